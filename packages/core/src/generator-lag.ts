/**
 * How late the load generator may send before its lateness is material: an open model measures
 * latency from each request's due time, so a send that leaves late adds its lateness to what it
 * reports. The bound scales with what was measured — a 0.3 ms lag is nothing against a 50 ms
 * service and most of a 0.1 ms one — and small absolute floors keep clock and timer noise from
 * condemning a run. The engine judges a finished run with these; the live page warns with them.
 */

/** Send lag p50 above this share of latency p50 (and the floor) is material. */
export const LAG_SHARE_P50 = 0.1;
/** Send lag p99 above this share of latency p99 (and the floor) is material. */
export const LAG_SHARE_P99 = 0.25;
export const LAG_FLOOR_P50_MS = 0.05;
export const LAG_FLOOR_P99_MS = 0.5;

/** The largest send lag (ms) that is not material against a latency of `latencyMs`. */
export function lagBound(latencyMs: number, share: number, floorMs: number): number {
  return Math.max(floorMs, share * latencyMs);
}

/**
 * While a run goes on: is the generator's own send lag so far past the line at which the finished
 * run would be judged not a valid measurement? Null while it is not (or the engine reports no lag).
 */
export function liveLagWarning(progress: {
  sendLagP99Ms?: number | null;
  latencyP99Ms: number | null;
}): { lagP99Ms: number; boundMs: number; latencyP99Ms: number } | null {
  const lag = progress.sendLagP99Ms;
  const latency = progress.latencyP99Ms;
  if (typeof lag !== "number" || latency === null) return null;
  const boundMs = lagBound(latency, LAG_SHARE_P99, LAG_FLOOR_P99_MS);
  return lag > boundMs ? { lagP99Ms: lag, boundMs, latencyP99Ms: latency } : null;
}
