import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { type AddressVerdict, assessHostname, assessTarget } from "@benchboard/core/address";

/**
 * May load (or a monitor probe, or a config PUT) be sent to this URL? Resolves the host and
 * refuses link-local and cloud-metadata addresses. A host that does not resolve here is judged
 * by name only: the request itself will then fail with a resolution error.
 */
export async function assessUrl(raw: string): Promise<AddressVerdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { allowed: false, reason: `${JSON.stringify(raw)} is not a valid URL` };
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return assessTarget(host, [host]);
  try {
    const addresses = (await lookup(host, { all: true })).map((a) => a.address);
    return assessTarget(host, addresses);
  } catch {
    return assessHostname(host);
  }
}
