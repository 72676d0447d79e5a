import { BlockList, isIP } from "node:net";

/**
 * Which peers may tell us the client's address (`X-Forwarded-For`): the proxies listed in
 * `BENCHBOARD_TRUSTED_PROXIES` (addresses or CIDR ranges, comma-separated). Nobody else: a
 * header any client can write must never choose the key a rate limit counts under.
 */
export interface TrustedProxies {
  has(address: string): boolean;
}

/** `::ffff:10.0.0.1` (IPv4 on a dual-stack socket) is 10.0.0.1. */
export function normalizeAddress(address: string): string {
  const trimmed = address.trim().replace(/^\[|\]$/g, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return mapped?.[1] ?? trimmed;
}

export function parseTrustedProxies(spec: string | undefined): TrustedProxies {
  const list = new BlockList();
  for (const raw of (spec ?? "").split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const [address = "", bits] = entry.split("/");
    const ip = normalizeAddress(address);
    const family = isIP(ip);
    if (family === 0) throw new Error(`BENCHBOARD_TRUSTED_PROXIES: "${entry}" is not an address or CIDR range`);
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) list.addAddress(ip, type);
    else {
      const prefix = Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
        throw new Error(`BENCHBOARD_TRUSTED_PROXIES: "${entry}" has an invalid prefix length`);
      }
      list.addSubnet(ip, prefix, type);
    }
  }
  return {
    has(address) {
      const ip = normalizeAddress(address);
      const family = isIP(ip);
      return family !== 0 && list.check(ip, family === 4 ? "ipv4" : "ipv6");
    },
  };
}

/**
 * The client's address: the socket's peer, unless the peer is a trusted proxy; then the
 * nearest `X-Forwarded-For` entry (from the right) that is not itself a trusted proxy.
 */
export function clientAddress(
  peer: string | null,
  forwardedFor: string | null,
  trusted: TrustedProxies,
): string | null {
  if (!peer) return null;
  let address = normalizeAddress(peer);
  if (!trusted.has(address) || !forwardedFor) return address;
  const hops = forwardedFor
    .split(",")
    .map((h) => normalizeAddress(h))
    .filter((h) => isIP(h) !== 0);
  for (let i = hops.length - 1; i >= 0; i--) {
    address = hops[i] as string;
    if (!trusted.has(address)) return address;
  }
  return address;
}
