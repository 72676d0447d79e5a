import { promises as dns } from "node:dns";
import { VERIFICATION_DNS_LABEL, VERIFICATION_PATH, verificationRecord } from "@benchboard/core";
import { parseIp } from "@benchboard/core/address";
import { describeStatus, OutboundError, outboundRequest } from "./outbound";
import type { SafetyPolicy } from "./target-safety";

export type VerificationMethod = "http" | "dns";

export interface VerifyOptions {
  policy: SafetyPolicy;
  /** TXT lookup; the system resolver when absent. */
  resolveTxt?: (name: string) => Promise<string[][]>;
}

export type VerifyResult =
  | { ok: true; method: VerificationMethod /** HTTP: where the token was served from. */; addresses: string[] }
  | { ok: false; reason: string };

const TOKEN_FILE_MAX_BYTES = 4_096;

/**
 * Does the origin publish the organization's token? Over HTTP: the file at
 * `/.well-known/benchboard-verification.txt` on that origin (no redirects followed) has a line
 * that is the token or `benchboard-verification=<token>`. Over DNS: a TXT record of that value at
 * `_benchboard-verification.<host>`. The reason for a failure names the status and size, never
 * what the origin answered.
 */
export async function verifyOrigin(
  origin: string,
  token: string,
  method: VerificationMethod,
  options: VerifyOptions,
): Promise<VerifyResult> {
  const url = new URL(origin);
  const expected = verificationRecord(token);
  if (method === "http") {
    try {
      const res = await outboundRequest(`${url.origin}${VERIFICATION_PATH}`, {
        policy: options.policy,
        timeoutMs: 5_000,
        maxBytes: TOKEN_FILE_MAX_BYTES,
      });
      if (res.status !== 200) return { ok: false, reason: `${VERIFICATION_PATH} answered ${describeStatus(res)}` };
      const lines = res.body
        .toString("utf8")
        .split(/\r?\n/)
        .map((l) => l.trim());
      if (lines.includes(token) || lines.includes(expected)) return { ok: true, method, addresses: [res.address] };
      return {
        ok: false,
        reason: `${VERIFICATION_PATH} answered HTTP 200, ${res.body.length} bytes, without this organization's token`,
      };
    } catch (err) {
      if (err instanceof OutboundError) return { ok: false, reason: `${VERIFICATION_PATH}: ${err.message}` };
      throw err;
    }
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (parseIp(host)) return { ok: false, reason: "an IP address has no DNS records: verify it over HTTP" };
  const name = `${VERIFICATION_DNS_LABEL}.${host}`;
  let records: string[][];
  try {
    records = await (options.resolveTxt ?? ((n: string) => dns.resolveTxt(n)))(name);
  } catch (err) {
    const code = (err as { code?: string }).code ?? "lookup failed";
    return { ok: false, reason: `no TXT record at ${name} (${code})` };
  }
  const values = records.map((chunks) => chunks.join(""));
  if (values.includes(expected)) return { ok: true, method, addresses: [] };
  return { ok: false, reason: `the TXT records at ${name} (${values.length}) do not hold this organization's token` };
}
