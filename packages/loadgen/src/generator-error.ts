/**
 * When is the load generator's own error material? An open model measures latency from each
 * request's due time, so a send that leaves late adds its lateness to the latency it reports.
 * That is right when the *target* held it up (all connections busy with slow responses: the
 * wait is what a user would see), and wrong when the generator itself was late (its event loop
 * busy, its CPU spent): then the figure is partly the generator's.
 *
 * The bound scales with what was measured: a 0.3 ms lag is nothing against a 50 ms service and
 * most of a 0.1 ms one. Small absolute floors keep clock and timer noise from condemning a run.
 */

import { LAG_FLOOR_P50_MS, LAG_FLOOR_P99_MS, LAG_SHARE_P50, LAG_SHARE_P99, lagBound } from "@benchboard/core";

// The lag bounds are shared with the live run page, which warns while a run is crossing them.
export { LAG_FLOOR_P50_MS, LAG_FLOOR_P99_MS, LAG_SHARE_P50, LAG_SHARE_P99, lagBound };

/** Above this share of sends finding every connection busy, the connections were the limit. */
export const ALL_BUSY_SHARE = 0.01;
/** Above this share of one core the generator's process was saturated. */
export const CPU_SATURATED = 0.9;

export interface GeneratorFigures {
  /** Due time → fired (the pacing's own lateness), ms. */
  sendLagP50Ms: number | null;
  sendLagP99Ms: number | null;
  /** Fired → handed to a socket (waiting for a free connection), ms. */
  connectionWaitP99Ms: number | null;
  latencyP50Ms: number | null;
  latencyP99Ms: number | null;
  /** Share of sends that found every connection busy (so they had to queue for one). */
  allBusyShare: number;
  /** The generator process's CPU over the measured window, in cores. */
  cpuShare: number;
  maxConnections: number;
}

export interface GeneratorJudgement {
  /** Why the generator's error is material (names the generator), or null. */
  generator: string | null;
  /** Why the target is the limit (requests queued for its connections), or null. */
  targetLimited: string | null;
  cpuShare: number;
}

export function judgeGenerator(f: GeneratorFigures): GeneratorJudgement {
  const fmt = (v: number) => (v >= 10 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(3));
  let generator: string | null = null;
  let targetLimited: string | null = null;

  const p50Bound = f.latencyP50Ms !== null ? lagBound(f.latencyP50Ms, LAG_SHARE_P50, LAG_FLOOR_P50_MS) : null;
  const p99Bound = f.latencyP99Ms !== null ? lagBound(f.latencyP99Ms, LAG_SHARE_P99, LAG_FLOOR_P99_MS) : null;

  const lateP50 = f.sendLagP50Ms !== null && p50Bound !== null && f.sendLagP50Ms > p50Bound;
  const lateP99 = f.sendLagP99Ms !== null && p99Bound !== null && f.sendLagP99Ms > p99Bound;
  if (lateP50 || lateP99) {
    const which = lateP50
      ? `send lag p50 ${fmt(f.sendLagP50Ms!)} ms against latency p50 ${fmt(f.latencyP50Ms!)} ms (bound ${fmt(p50Bound!)} ms)`
      : `send lag p99 ${fmt(f.sendLagP99Ms!)} ms against latency p99 ${fmt(f.latencyP99Ms!)} ms (bound ${fmt(p99Bound!)} ms)`;
    const cpu =
      f.cpuShare >= CPU_SATURATED
        ? `its CPU was saturated (${(f.cpuShare * 100).toFixed(0)}% of a core): split the load over more shards`
        : `its event loop was held up (CPU ${(f.cpuShare * 100).toFixed(0)}% of a core): the machine or the process was busy`;
    generator = `the load generator, not the target, was late sending: ${which}; ${cpu}`;
  }

  // A wait with connections free is the opening of a new one, not the target holding them.
  if (
    f.connectionWaitP99Ms !== null &&
    p99Bound !== null &&
    f.connectionWaitP99Ms > p99Bound &&
    f.allBusyShare > ALL_BUSY_SHARE
  ) {
    const waited = `requests waited for one of the ${f.maxConnections} connections (p99 ${fmt(f.connectionWaitP99Ms)} ms)`;
    // A generator that was itself late also read its responses late, and a connection stays
    // busy until its response is read: then the wait is partly the generator's, and the run
    // cannot say whether the target was the limit.
    targetLimited = generator
      ? `${waited}, but the load generator was held up too and read responses late, which keeps connections busy: this run cannot tell whether the target was the limit`
      : `the target is the limit: ${waited} because every one was busy with a response; ` +
        "that wait is counted in the latency, as a user would see it";
  }
  return { generator, targetLimited, cpuShare: f.cpuShare };
}
