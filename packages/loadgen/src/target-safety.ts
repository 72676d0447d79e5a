import { promises as dns, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import {
  type AddressVerdict,
  type AllowList,
  assessHostname,
  assessTarget,
  destinationOf,
  EMPTY_ALLOW_LIST,
  normalizeHostname,
  parseIp,
} from "@benchboard/core/address";

/** Resolves a host name to its addresses; injectable so tests can use their own DNS server. */
export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface SafetyPolicy {
  /** The operator's allow-list of private ranges and hosts. */
  allowList: AllowList;
  resolve?: Resolve;
}

export const STRICT_POLICY: SafetyPolicy = { allowList: EMPTY_ALLOW_LIST };

/** An address the connection must use: the one that was checked, so no second lookup can differ. */
export interface PinnedAddress {
  hostname: string;
  address: string;
  family: 4 | 6;
}

export type UrlVerdict = ({ allowed: true; pin: PinnedAddress } & { url: URL }) | { allowed: false; reason: string };

/**
 * May a request be sent to this URL? Resolves the host once, refuses metadata, link-local and
 * unspecified addresses always and private ones unless the operator allows them, and refuses a
 * host that does not resolve. The answer carries the address to connect to.
 */
export async function resolveUrl(raw: string, policy: SafetyPolicy): Promise<UrlVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { allowed: false, reason: `${JSON.stringify(raw.slice(0, 200))} is not a valid URL` };
  }
  const dest = destinationOf(raw);
  if (!dest) return { allowed: false, reason: `${url.protocol} URLs are not allowed` };
  const host = normalizeHostname(dest.hostname);
  // Judged by name before any lookup: a metadata name is never sent to a resolver.
  const byName = assessHostname(host);
  if (!byName.allowed) return byName;
  const literal = parseIp(host);
  let addresses: { address: string; family: number }[];
  if (literal) {
    addresses = [{ address: literal.text, family: literal.family }];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolve)(host);
    } catch (err) {
      const code = (err as { code?: string }).code ?? "lookup failed";
      return { allowed: false, reason: `${host} could not be resolved (${code}); a target must resolve here` };
    }
  }
  const verdict: AddressVerdict = assessTarget(
    dest,
    addresses.map((a) => a.address),
    policy.allowList,
  );
  if (!verdict.allowed) return verdict;
  const first = parseIp(addresses[0]!.address)!;
  return { allowed: true, url, pin: { hostname: host, address: first.text, family: first.family } };
}

/** Shorthand for callers that need only the verdict. */
export async function assessUrl(raw: string, policy: SafetyPolicy): Promise<AddressVerdict> {
  const v = await resolveUrl(raw, policy);
  return v.allowed ? { allowed: true } : v;
}

/**
 * A `lookup` for net/tls/undici/ws that answers with the pinned address for the pinned host and
 * refuses any other name: a connection can only reach the address that was checked.
 */
export function pinnedLookup(pin: PinnedAddress): LookupFunction {
  return ((hostname: string, options: unknown, callback: unknown) => {
    const cb = (typeof options === "function" ? options : callback) as (
      err: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    const opts = (typeof options === "object" && options ? options : {}) as { all?: boolean };
    if (normalizeHostname(hostname) !== pin.hostname) {
      const err = Object.assign(new Error(`refused to look up ${hostname}: not the checked host`), {
        code: "ENOTFOUND",
      });
      cb(err, opts.all ? [] : "", 0);
      return;
    }
    if (opts.all) cb(null, [{ address: pin.address, family: pin.family }]);
    else cb(null, pin.address, pin.family);
  }) as LookupFunction;
}
