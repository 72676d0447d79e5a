import { withTargetReasons } from "./run-state";

/**
 * The target's own signals that it is the limit: a queue it reports (a RabbitMQ queue, a
 * Prometheus gauge named like one) that grew over the run, or a stage it reports in
 * Server-Timing that got slower. They make a run saturated, which is a measurement of the
 * target; they never make it invalid, which only the generator's own distortion does.
 */

/** Monitor series that hold a queue's depth: the RabbitMQ monitor's and gauges named like one. */
const QUEUE_KEY = /^(queue_depth|queue_ready)(\.|$)|^gauge\..*(queue|depth|backlog|pending|waiting)/i;
/** Per-second p50 series of a Server-Timing stage (`stage.<name>_p50`). */
const STAGE_KEY = /^stage\.(.+)_p50$/;

/** A queue grew when a later quarter of the run reads (median) this many times its first quarter's lowest … */
export const QUEUE_GROWTH_FACTOR = 2;
/** … and by at least this many items (a queue of 0 → 3 is noise, not saturation). */
export const QUEUE_GROWTH_MIN = 10;
/** A stage slowed when its p50 over a later quarter is this many times the first quarter's … */
export const STAGE_SLOWDOWN_FACTOR = 1.5;
/** … and at least this much slower, ms. */
export const STAGE_SLOWDOWN_MIN_MS = 1;
/** Fewer readings than this say nothing about a trend. */
export const MIN_READINGS = 4;

interface SeriesLike {
  values: readonly (number | null)[];
}

/**
 * Where the series stood in the run's first quarter (its lowest reading for a queue, which may
 * grow from the first second on; its median for a stage's noisy p50) against the highest median
 * of any later stretch as long (so one odd reading is not a trend, and a queue that drains after
 * the load stops still counts), and the single highest reading.
 */
function quarters(
  values: readonly (number | null)[],
  start: "median" | "min",
): { first: number; last: number; peak: number } | null {
  const v = values.filter((x): x is number => x !== null && Number.isFinite(x));
  if (v.length < MIN_READINGS) return null;
  const n = Math.max(1, Math.floor(v.length / 4));
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  let last = Number.NEGATIVE_INFINITY;
  for (let i = n; i + n <= v.length; i++) last = Math.max(last, median(v.slice(i, i + n)));
  const head = v.slice(0, n);
  return { first: start === "min" ? Math.min(...head) : median(head), last, peak: Math.max(...v) };
}

const num = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

/** Why the target's own signals say it was the limit, one reason per signal (none: []). */
export function targetLimitSignals(series: Readonly<Record<string, SeriesLike>>): string[] {
  const reasons: string[] = [];
  for (const [key, s] of Object.entries(series)) {
    if (!QUEUE_KEY.test(key)) continue;
    const q = quarters(s.values, "min");
    if (!q) continue;
    if (q.last >= QUEUE_GROWTH_FACTOR * Math.max(q.first, 1) && q.last - q.first >= QUEUE_GROWTH_MIN) {
      reasons.push(
        `the target is the limit: its queue (${key}) grew from ${num(q.first)} to ${num(q.last)} (median of a quarter of the run) ` +
          `(peak ${num(q.peak)}) during the run, so it took in work faster than it finished it`,
      );
    }
  }
  for (const [key, s] of Object.entries(series)) {
    const m = STAGE_KEY.exec(key);
    if (!m) continue;
    const q = quarters(s.values, "median");
    if (!q) continue;
    if (q.last >= STAGE_SLOWDOWN_FACTOR * q.first && q.last - q.first >= STAGE_SLOWDOWN_MIN_MS) {
      reasons.push(
        `the target is the limit: its own "${m[1]}" stage (Server-Timing) slowed from p50 ${num(q.first)} ms ` +
          `to ${num(q.last)} ms during the run`,
      );
    }
  }
  return reasons;
}

/**
 * A result with the target's own signals added to its saturation reasons: a valid result becomes
 * saturated (the target is what it measured), an invalid one lists them after the generator's.
 */
export function withTargetSignals<
  R extends {
    valid: boolean;
    invalidReasons: string[];
    saturationReasons?: string[];
    series: Readonly<Record<string, SeriesLike>>;
  },
>(result: R): R & { saturationReasons: string[] } {
  return withTargetReasons(result, targetLimitSignals(result.series));
}
