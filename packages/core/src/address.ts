import { isIP } from "node:net";

/**
 * Which target addresses a load test may reach. Loopback and private networks are allowed (the
 * point is to load your own services), but link-local addresses — where cloud providers serve
 * instance metadata and credentials — and known metadata endpoints are refused unless an
 * administrator allows them for the organization.
 */

const METADATA_HOSTNAMES = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
]);
const METADATA_ADDRESSES = new Set([
  "169.254.169.254",
  "169.254.170.2",
  "169.254.169.253",
  "100.100.100.200",
  "fd00:ec2::254",
]);

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

function ipv4Parts(ip: string): number[] | null {
  const parts = ip.split(".").map(Number);
  return parts.length === 4 && parts.every((n) => Number.isInteger(n) && n >= 0 && n <= 255) ? parts : null;
}

/** Expand an IPv6 address to 8 groups (handles `::` and a trailing dotted IPv4). */
function ipv6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase().split("%")[0] ?? "";
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted?.[1]) {
    const v4 = ipv4Parts(dotted[1]);
    if (!v4) return null;
    text = text.replace(dotted[1], `${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`);
  }
  const [head = "", tail] = text.split("::");
  const h = head ? head.split(":") : [];
  const t = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const missing = 8 - h.length - t.length;
  if (tail === undefined ? h.length !== 8 : missing < 0) return null;
  const groups = [...h, ...Array(tail === undefined ? 0 : missing).fill("0"), ...t].map((g) => Number.parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** IPv4-mapped / compatible IPv6 (::ffff:a.b.c.d) reaches the IPv4 address. */
function embeddedIpv4(groups: number[]): string | null {
  const zeros = groups.slice(0, 5).every((g) => g === 0);
  if (zeros && (groups[5] === 0xffff || groups[5] === 0)) {
    const a = groups[6]!;
    const b = groups[7]!;
    return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
  }
  return null;
}

export function classifyAddress(ip: string): AddressVerdict {
  const family = isIP(ip);
  if (family === 4) {
    if (METADATA_ADDRESSES.has(ip)) return { allowed: false, reason: `${ip} is a cloud metadata address` };
    const [a, b] = ipv4Parts(ip)!;
    if (a === 169 && b === 254) return { allowed: false, reason: `${ip} is link-local (169.254.0.0/16)` };
    if (a === 0) return { allowed: false, reason: `${ip} is not a routable address` };
    if (a! >= 224) return { allowed: false, reason: `${ip} is multicast or reserved` };
    return { allowed: true };
  }
  if (family === 6) {
    const groups = ipv6Groups(ip);
    if (!groups) return { allowed: false, reason: `${ip} is not a valid IPv6 address` };
    const v4 = embeddedIpv4(groups);
    if (v4 && v4 !== "0.0.0.0" && groups.slice(0, 7).some((g) => g !== 0)) return classifyAddress(v4);
    const canonical = groups.map((g) => g.toString(16)).join(":");
    if (canonical === "fd00:ec2:0:0:0:0:0:254") return { allowed: false, reason: `${ip} is a cloud metadata address` };
    if ((groups[0]! & 0xffc0) === 0xfe80) return { allowed: false, reason: `${ip} is link-local (fe80::/10)` };
    if ((groups[0]! & 0xff00) === 0xff00) return { allowed: false, reason: `${ip} is multicast` };
    if (groups.every((g) => g === 0)) return { allowed: false, reason: `${ip} is not a routable address` };
    return { allowed: true };
  }
  return { allowed: false, reason: `${ip} is not an IP address` };
}

function normalizeHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

/** Judge a hostname alone (when it cannot be resolved here). */
export function assessHostname(hostname: string): AddressVerdict {
  const host = normalizeHost(hostname);
  if (METADATA_HOSTNAMES.has(host)) return { allowed: false, reason: `${host} is a cloud metadata endpoint` };
  return isIP(host) ? classifyAddress(host) : { allowed: true };
}

/** Judge a hostname and every address it resolved to; one refused address refuses the target. */
export function assessTarget(hostname: string, addresses: string[]): AddressVerdict {
  const host = normalizeHost(hostname);
  const byName = assessHostname(host);
  if (!byName.allowed) return byName;
  if (addresses.length === 0) return { allowed: false, reason: `${host} did not resolve to any address` };
  for (const ip of addresses) {
    const verdict = classifyAddress(ip);
    if (!verdict.allowed)
      return { allowed: false, reason: host === ip ? verdict.reason : `${host} resolves to ${ip}: ${verdict.reason}` };
  }
  return { allowed: true };
}
