/**
 * A target's config hook (`configApplyUrl`): before load, the knobs a run asks for are PUT, and
 * the hook is read back (GET) so the run records the config actually in effect. Knobs the run's
 * instance config does not name take the target's baseline, so a run never inherits whatever
 * the previous run applied.
 */

import { findReservedKey } from "@benchboard/core/record-keys";
import { describeStatus, OutboundError, type OutboundResponse, outboundRequest } from "./outbound";
import type { SafetyPolicy } from "./target-safety";

export type Knobs = Record<string, unknown>;

const HOOK_TIMEOUT_MS = 10_000;
/** Larger answers are not a knob set: the snapshot is refused rather than stored. */
const MAX_REPORTED_BYTES = 64 * 1024;

export class ServerConfigError extends Error {
  override name = "ServerConfigError";
}

/** The knobs a run sends: the baseline, overlaid with its instance config's knobs. */
export function knobsForRun(baseline: Knobs | null | undefined, configKnobs: Knobs | null | undefined): Knobs | null {
  const merged = { ...(baseline ?? {}), ...(configKnobs ?? {}) };
  return Object.keys(merged).length ? merged : null;
}

/**
 * PUT the knobs (when there are any) and GET the config in effect. Returns what the hook
 * reported, or null without a hook. A refused PUT throws (the run must not measure an unknown
 * config); an unreadable GET answer records `{ unreadable: reason }` instead of a config.
 * Both go through the outbound client: the checked address, no redirects, bounded time and
 * size, and no response body in messages.
 */
export async function applyServerConfig(
  url: string | null | undefined,
  knobs: Knobs | null,
  policy: SafetyPolicy,
): Promise<Knobs | null> {
  if (!url) return null;
  if (knobs) {
    let res: OutboundResponse;
    try {
      res = await outboundRequest(url, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(knobs),
        timeoutMs: HOOK_TIMEOUT_MS,
        maxBytes: MAX_REPORTED_BYTES,
        policy,
      });
    } catch (err) {
      throw new ServerConfigError(`applying the instance config to the target's config hook failed: ${reason(err)}`);
    }
    if (res.status < 200 || res.status >= 300)
      throw new ServerConfigError(`the target's config hook refused the instance config (${describeStatus(res)})`);
  }
  return readServerConfig(url, policy);
}

/** GET the hook: the config the target reports it runs with. */
export async function readServerConfig(url: string, policy: SafetyPolicy): Promise<Knobs> {
  let res: OutboundResponse;
  try {
    res = await outboundRequest(url, {
      headers: { accept: "application/json" },
      timeoutMs: HOOK_TIMEOUT_MS,
      maxBytes: MAX_REPORTED_BYTES,
      policy,
    });
  } catch (err) {
    if (err instanceof OutboundError && err.kind === "too-large")
      return { unreadable: `the config hook's answer is over ${MAX_REPORTED_BYTES / 1024} KiB` };
    return { unreadable: `reading the config hook failed: ${reason(err)}` };
  }
  if (res.status !== 200) return { unreadable: `the config hook answered ${describeStatus(res)}` };
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString("utf8"));
  } catch {
    return { unreadable: "the config hook's answer is not JSON" };
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    return { unreadable: "the config hook's answer is not a JSON object" };
  }
  // Stored as it came, the run's page would fail: its serializer refuses such a key anywhere.
  const reserved = findReservedKey(body);
  if (reserved) return { unreadable: `the config hook's answer has a reserved key at ${reserved.join(".")}` };
  return body as Knobs;
}

function reason(err: unknown): string {
  if (err instanceof OutboundError) return err.message;
  const e = err as { message?: string };
  return e.message ?? String(err);
}
