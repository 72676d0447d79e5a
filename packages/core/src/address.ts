/**
 * Which addresses load (and every other request the product sends for a tenant) may reach.
 *
 * - Cloud metadata endpoints, link-local, unspecified (0.0.0.0, ::) and multicast addresses are
 *   refused always, for everyone: they serve credentials or reach the host itself.
 * - Loopback, private, shared (CGNAT), unique-local and reserved addresses are refused unless the
 *   operator's allow-list (`BENCHBOARD_ALLOWED_TARGETS`, CIDRs and host:port) names them.
 * - Public addresses are allowed here; whether an organization owns the origin is a separate
 *   question (origin verification).
 *
 * Every spelling of an IP address is normalized first (0x7f000001, 2130706433, 0177.0.0.1,
 * 127.1, [::1], ::ffff:127.0.0.1, ::ffff:7f00:1), so a check cannot be dodged by spelling.
 */

const METADATA_HOSTNAMES = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.internal",
]);
const METADATA_V4 = new Set(["169.254.169.254", "169.254.170.2", "169.254.169.253", "100.100.100.200"]);
const METADATA_V6 = new Set(["fd00:ec2:0:0:0:0:0:254"]);

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/** An IP address in canonical form: dotted quad for IPv4 (and IPv4-mapped IPv6), 8 groups for IPv6. */
export interface ParsedIp {
  family: 4 | 6;
  /** 4 or 16 bytes. */
  bytes: number[];
  /** Canonical text: `127.0.0.1`, or IPv6 groups in lower-case hex without compression. */
  text: string;
}

/** One inet_aton part: decimal, 0x hex or leading-zero octal. */
function parseV4Part(part: string): number | null {
  if (part === "") return null;
  let value: number;
  if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  else if (/^0[0-7]*$/.test(part)) value = Number.parseInt(part, 8);
  else if (/^[1-9][0-9]*$/.test(part)) value = Number(part);
  else return null;
  return Number.isSafeInteger(value) ? value : null;
}

/** IPv4 in any inet_aton spelling: a, a.b, a.b.c, a.b.c.d; each part decimal, hex or octal. */
function parseV4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length > 4) return null;
  const values = parts.map(parseV4Part);
  if (values.some((v) => v === null)) return null;
  const nums = values as number[];
  const last = nums.pop()!;
  if (nums.some((n) => n > 255)) return null;
  const lastBytes = 4 - nums.length;
  if (last >= 2 ** (8 * lastBytes)) return null;
  const out = [...nums];
  for (let i = lastBytes - 1; i >= 0; i--) out.push(Math.floor(last / 2 ** (8 * i)) & 255);
  return out;
}

function parseV6(text: string): number[] | null {
  let body = text.toLowerCase();
  const zone = body.indexOf("%");
  if (zone >= 0) body = body.slice(0, zone);
  if (!/^[0-9a-f:.]+$/.test(body) || !body.includes(":")) return null;
  let tailV4: number[] | null = null;
  const lastColon = body.lastIndexOf(":");
  if (body.slice(lastColon + 1).includes(".")) {
    const dotted = body.slice(lastColon + 1);
    if (!/^\d+\.\d+\.\d+\.\d+$/.test(dotted)) return null;
    tailV4 = dotted.split(".").map(Number);
    if (tailV4.some((n) => n > 255)) return null;
    body = `${body.slice(0, lastColon + 1)}0:0`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const split = (s: string) => (s === "" ? [] : s.split(":"));
  const head = split(halves[0]!);
  const tail = halves.length === 2 ? split(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  const bytes = groups.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 255];
  });
  if (tailV4) bytes.splice(12, 4, ...tailV4);
  return bytes;
}

function v6Text(bytes: number[]): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(":");
}

/**
 * Parse any spelling of an IP address (brackets allowed); null for a name. IPv4-mapped IPv6
 * (`::ffff:a.b.c.d`) becomes the IPv4 address it reaches.
 */
export function parseIp(input: string): ParsedIp | null {
  const text = input.trim().replace(/^\[(.*)\]$/, "$1");
  if (text.includes(":")) {
    const bytes = parseV6(text);
    if (!bytes) return null;
    const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
    if (mapped) {
      const v4 = bytes.slice(12);
      return { family: 4, bytes: v4, text: v4.join(".") };
    }
    return { family: 6, bytes, text: v6Text(bytes) };
  }
  // A name that merely ends in digits ("host.123") is not an address; every part must parse.
  if (!/^[0-9a-fx.]+$/i.test(text)) return null;
  const v4 = parseV4(text);
  return v4 ? { family: 4, bytes: v4, text: v4.join(".") } : null;
}

/** What kind of address this is, from the most dangerous down. */
export type AddressClass =
  | "metadata"
  | "link-local"
  | "unspecified"
  | "multicast"
  | "loopback"
  | "private"
  | "reserved"
  | "public";

function prefixMatch(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if ((bytes[byte]! & mask) !== (prefix[byte]! & mask)) return false;
  }
  return true;
}

const V4_RANGES: [number[], number, AddressClass][] = [
  [[0, 0, 0, 0], 8, "unspecified"],
  [[127, 0, 0, 0], 8, "loopback"],
  [[169, 254, 0, 0], 16, "link-local"],
  [[10, 0, 0, 0], 8, "private"],
  [[172, 16, 0, 0], 12, "private"],
  [[192, 168, 0, 0], 16, "private"],
  [[100, 64, 0, 0], 10, "private"],
  [[192, 0, 0, 0], 24, "reserved"],
  [[192, 0, 2, 0], 24, "reserved"],
  [[198, 18, 0, 0], 15, "reserved"],
  [[198, 51, 100, 0], 24, "reserved"],
  [[203, 0, 113, 0], 24, "reserved"],
  [[224, 0, 0, 0], 4, "multicast"],
  [[240, 0, 0, 0], 4, "reserved"],
];

function classifyV4(bytes: number[], text: string): AddressClass {
  if (METADATA_V4.has(text)) return "metadata";
  for (const [prefix, bits, kind] of V4_RANGES) if (prefixMatch(bytes, prefix, bits)) return kind;
  return "public";
}

function v6Prefix(groups: number[]): number[] {
  return groups
    .flatMap((g) => [g >> 8, g & 255])
    .concat(Array(16).fill(0))
    .slice(0, 16);
}
const V6_RANGES: [number[], number, AddressClass][] = [
  [v6Prefix([0xfe80]), 10, "link-local"],
  [v6Prefix([0xff00]), 8, "multicast"],
  [v6Prefix([0xfc00]), 7, "private"],
  [v6Prefix([0xfec0]), 10, "private"],
  [v6Prefix([0x2001, 0x0db8]), 32, "reserved"],
  [v6Prefix([0x0100]), 64, "reserved"],
];

/**
 * Classify an address. Addresses that embed an IPv4 address (IPv4-compatible ::a.b.c.d, NAT64
 * 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32) are judged by the IPv4 address they reach
 * when that is the stricter answer.
 */
export function classifyIp(ip: ParsedIp): AddressClass {
  if (ip.family === 4) return classifyV4(ip.bytes, ip.text);
  const b = ip.bytes;
  if (METADATA_V6.has(ip.text)) return "metadata";
  if (b.every((x) => x === 0)) return "unspecified";
  if (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) return "loopback";
  const embedded = (v4: number[]) => classifyV4(v4, v4.join("."));
  // ::a.b.c.d (deprecated IPv4-compatible) and NAT64 reach IPv4.
  if (b.slice(0, 12).every((x) => x === 0)) return stricter(embedded(b.slice(12)), "reserved");
  if (prefixMatch(b, v6Prefix([0x64, 0xff9b]), 96)) return stricter(embedded(b.slice(12)), "public");
  if (b[0] === 0x20 && b[1] === 0x02) return stricter(embedded(b.slice(2, 6)), "public");
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) {
    return stricter(embedded(b.slice(12).map((x) => x ^ 0xff)), "reserved");
  }
  for (const [prefix, bits, kind] of V6_RANGES) if (prefixMatch(b, prefix, bits)) return kind;
  return "public";
}

const SEVERITY: AddressClass[] = [
  "metadata",
  "link-local",
  "unspecified",
  "multicast",
  "loopback",
  "private",
  "reserved",
  "public",
];
function stricter(a: AddressClass, b: AddressClass): AddressClass {
  return SEVERITY.indexOf(a) <= SEVERITY.indexOf(b) ? a : b;
}

/** Refused for everyone, whatever the operator allows. */
export function isAlwaysRefused(kind: AddressClass): boolean {
  return kind === "metadata" || kind === "link-local" || kind === "unspecified" || kind === "multicast";
}

const CLASS_WORDS: Record<AddressClass, string> = {
  metadata: "a cloud metadata address",
  "link-local": "link-local (169.254.0.0/16, fe80::/10)",
  unspecified: "not a routable address (it reaches this host)",
  multicast: "multicast",
  loopback: "loopback (this host)",
  private: "a private network address",
  reserved: "a reserved address",
  public: "a public address",
};

// ---- The operator's allow-list -------------------------------------------------------------

export type AllowEntry =
  | { kind: "cidr"; family: 4 | 6; bytes: number[]; bits: number; text: string }
  | { kind: "host"; host: string; port: number | null; text: string };

export interface AllowList {
  entries: AllowEntry[];
  /**
   * Whose list this is. A tenant's (what the operator opened to tenants) differs in one way: a
   * host name that resolves to a private address is refused unless an entry names that host —
   * a tenant's own DNS name pointed at an allowed address proves nothing about the server.
   */
  scope?: "install" | "tenant";
}

export const EMPTY_ALLOW_LIST: AllowList = { entries: [] };

export function normalizeHostname(hostname: string): string {
  const host = hostname.trim().toLowerCase().replace(/\.$/, "");
  const ip = parseIp(host);
  return ip ? ip.text : host.replace(/^\[|\]$/g, "");
}

/** One allow-list entry: `10.0.0.0/8`, `127.0.0.1`, `::1`, `127.0.0.1:4100`, `[::1]:5432`, `gateway.internal:8080`. */
export function parseAllowEntry(raw: string): AllowEntry | { error: string } {
  const text = raw.trim();
  if (!text) return { error: "empty entry" };
  const slash = text.indexOf("/");
  if (slash >= 0) {
    const ip = parseIp(text.slice(0, slash));
    const bitsText = text.slice(slash + 1);
    if (!ip || !/^\d{1,3}$/.test(bitsText)) return { error: `${JSON.stringify(text)} is not a CIDR range` };
    const bits = Number(bitsText);
    if (bits > ip.bytes.length * 8) return { error: `${JSON.stringify(text)}: prefix longer than the address` };
    return { kind: "cidr", family: ip.family, bytes: ip.bytes, bits, text: `${ip.text}/${bits}` };
  }
  const whole = parseIp(text);
  if (whole)
    return { kind: "cidr", family: whole.family, bytes: whole.bytes, bits: whole.bytes.length * 8, text: whole.text };
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text);
  const hostPart = m ? m[1]! : text;
  const port = m ? Number(m[2]) : null;
  if (port !== null && (port < 1 || port > 65_535)) return { error: `${JSON.stringify(text)}: port out of range` };
  const host = normalizeHostname(hostPart);
  if (!parseIp(hostPart) && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host)) {
    return { error: `${JSON.stringify(text)} is not a CIDR, an address, or host:port` };
  }
  return {
    kind: "host",
    host,
    port,
    text: port === null ? host : `${host.includes(":") ? `[${host}]` : host}:${port}`,
  };
}

/** Parse a comma/space/newline separated allow-list; every bad entry is reported. */
export function parseAllowList(text: string | string[]): { list: AllowList; errors: string[] } {
  const items = (Array.isArray(text) ? text : text.split(/[\s,]+/)).map((s) => s.trim()).filter(Boolean);
  const entries: AllowEntry[] = [];
  const errors: string[] = [];
  for (const item of items) {
    const parsed = parseAllowEntry(item);
    if ("error" in parsed) errors.push(parsed.error);
    else if (!entries.some((e) => e.text === parsed.text)) entries.push(parsed);
  }
  return { list: { entries }, errors };
}

export function allowListText(list: AllowList): string[] {
  return list.entries.map((e) => e.text);
}

function allowListed(list: AllowList, host: string, port: number, ip: ParsedIp): boolean {
  const byName = host !== ip.text;
  return list.entries.some((e) => {
    if (e.kind === "cidr") {
      if (byName && list.scope === "tenant") return false;
      return e.family === ip.family && prefixMatch(ip.bytes, e.bytes, e.bits);
    }
    if (byName && list.scope === "tenant" && e.host !== host) return false;
    if (e.port !== null && e.port !== port) return false;
    return e.host === host || e.host === ip.text;
  });
}

// ---- Verdicts ------------------------------------------------------------------------------

export interface Destination {
  /** The URL's hostname (any spelling; brackets allowed). */
  hostname: string;
  /** The port the connection goes to (default ports filled in). */
  port: number;
}

/** Judge a hostname before resolving it: metadata names are refused by name. */
export function assessHostname(hostname: string): AddressVerdict {
  const host = normalizeHostname(hostname);
  if (METADATA_HOSTNAMES.has(host)) return { allowed: false, reason: `${host} is a cloud metadata endpoint` };
  return { allowed: true };
}

/** Judge one resolved address for a destination against the operator's allow-list. */
export function assessAddress(dest: Destination, address: string, list: AllowList): AddressVerdict {
  const host = normalizeHostname(dest.hostname);
  const ip = parseIp(address);
  const what = (reason: string) =>
    host === ip?.text ? reason : `${host} resolves to ${ip?.text ?? address}: ${reason}`;
  if (!ip) return { allowed: false, reason: what(`${address} is not an IP address`) };
  const kind = classifyIp(ip);
  if (isAlwaysRefused(kind))
    return { allowed: false, reason: what(`${ip.text} is ${CLASS_WORDS[kind]}, never a target`) };
  if (kind === "public" || allowListed(list, host, dest.port, ip)) return { allowed: true };
  return {
    allowed: false,
    reason: what(`${ip.text} is ${CLASS_WORDS[kind]}, which the operator of this install has not allowed`),
  };
}

/** Judge a destination and every address it resolved to; one refused address refuses it. */
export function assessTarget(dest: Destination, addresses: string[], list: AllowList): AddressVerdict {
  const byName = assessHostname(dest.hostname);
  if (!byName.allowed) return byName;
  const host = normalizeHostname(dest.hostname);
  if (addresses.length === 0) return { allowed: false, reason: `${host} did not resolve to any address` };
  for (const address of addresses) {
    const verdict = assessAddress(dest, address, list);
    if (!verdict.allowed) return verdict;
  }
  return { allowed: true };
}

/** The origin (`scheme://host:port`, default ports included) load is aimed at, canonical. */
export function canonicalOrigin(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:" && url.protocol !== "ws:" && url.protocol !== "wss:")
    return null;
  const secure = url.protocol === "https:" || url.protocol === "wss:";
  const port = url.port ? Number(url.port) : secure ? 443 : 80;
  const host = normalizeHostname(url.hostname);
  return `${secure ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The destination (hostname and port) of a URL, or null when it is not an http(s)/ws(s) URL. */
export function destinationOf(raw: string): Destination | null {
  const origin = canonicalOrigin(raw);
  if (!origin) return null;
  const url = new URL(origin);
  return {
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || (url.protocol === "https:" ? 443 : 80)),
  };
}
