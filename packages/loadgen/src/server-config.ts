/**
 * A target's config hook (`configApplyUrl`): before load, the knobs a run asks for are PUT, and
 * the hook is read back (GET) so the run records the config actually in effect. Knobs the run's
 * instance config does not name take the target's baseline, so a run never inherits whatever
 * the previous run applied.
 */

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
 * Redirects are not followed and no response body flows into messages.
 */
export async function applyServerConfig(url: string | null | undefined, knobs: Knobs | null): Promise<Knobs | null> {
  if (!url) return null;
  if (knobs) {
    let res: Response;
    try {
      res = await fetch(url, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(knobs),
        redirect: "manual",
        signal: AbortSignal.timeout(HOOK_TIMEOUT_MS),
      });
    } catch (err) {
      throw new ServerConfigError(`applying the instance config to the target's config hook failed: ${reason(err)}`);
    }
    await res.body?.cancel().catch(() => {});
    if (!res.ok)
      throw new ServerConfigError(`the target's config hook refused the instance config (HTTP ${res.status})`);
  }
  return readServerConfig(url);
}

/** GET the hook: the config the target reports it runs with. */
export async function readServerConfig(url: string): Promise<Knobs> {
  try {
    const res = await fetch(url, {
      method: "GET",
      headers: { accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(HOOK_TIMEOUT_MS),
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      return { unreadable: `the config hook answered HTTP ${res.status}` };
    }
    const text = await readCapped(res, MAX_REPORTED_BYTES);
    if (text === null) return { unreadable: `the config hook's answer is over ${MAX_REPORTED_BYTES / 1024} KiB` };
    const body = JSON.parse(text) as unknown;
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      return { unreadable: "the config hook's answer is not a JSON object" };
    }
    return body as Knobs;
  } catch (err) {
    return { unreadable: `reading the config hook failed: ${reason(err)}` };
  }
}

async function readCapped(res: Response, max: number): Promise<string | null> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function reason(err: unknown): string {
  const e = err as { message?: string; name?: string; cause?: { code?: string } };
  if (e.name === "TimeoutError") return `no answer within ${HOOK_TIMEOUT_MS / 1000} s`;
  return e.cause?.code ?? e.message ?? String(err);
}
