import { relativeDelta } from "./compare";
import { type MetricDirection, type MetricUnit, metricDef } from "./metrics";

/**
 * Regression verdicts for a CI gate: a head run against a base run, metric by metric, judged by
 * each metric's direction with a tolerance in percent. The delta is the one used everywhere,
 * `(head − base) / base` (compare.ts); only the tolerance and the verdict names are added here.
 */

export type RegressionVerdict = "regressed" | "improved" | "unchanged" | "incomparable";

export interface RegressionRow {
  key: string;
  label: string;
  unit: MetricUnit;
  direction: MetricDirection;
  base: number | null;
  head: number | null;
  /** `(head − base) / base` as a fraction; null when undefined (a side is missing, or base is 0). */
  delta: number | null;
  verdict: RegressionVerdict;
}

export interface RegressionReport {
  tolerancePct: number;
  rows: RegressionRow[];
  regressed: string[];
  improved: string[];
}

/**
 * Metrics a gate looks at when none are chosen: the figures a change is judged by. Extremes
 * (min, max) and spreads are left out on purpose: one slow request moves them by far more than
 * any tolerance, so gating on them fails builds on noise.
 */
export const DEFAULT_REGRESSION_METRICS: readonly string[] = [
  "rps",
  "throughput",
  "success_rate",
  "latency_mean",
  "latency_p50",
  "latency_p90",
  "latency_p95",
  "latency_p99",
  "ttft_p50",
  "ttft_p99",
  "tokens_per_s",
  "rps_per_vcpu",
  "mem_peak_bytes",
  "cpu_peak",
  "queue_depth_peak",
  "failed_connections",
];

/** Largest tolerance accepted, in percent; beyond it a gate would pass anything. */
export const MAX_TOLERANCE_PCT = 1000;

/**
 * The verdict for one metric. A change counts only when it is strictly beyond the tolerance. A
 * base of zero has no relative delta, but a lower-is-better metric rising from zero (failed
 * connections appearing) is still a regression, and falling to zero an improvement.
 */
export function regressionVerdict(
  key: string,
  base: number | null | undefined,
  head: number | null | undefined,
  tolerancePct: number,
): { delta: number | null; verdict: RegressionVerdict } {
  const delta = relativeDelta(base, head);
  const { direction } = metricDef(key);
  if (base === null || base === undefined || head === null || head === undefined) {
    return { delta: null, verdict: "incomparable" };
  }
  if (direction === "neutral") return { delta, verdict: "unchanged" };
  if (delta === null) {
    // base is 0 and head is not: an unbounded change in a known direction.
    if (!Number.isFinite(head)) return { delta, verdict: "incomparable" };
    const better = direction === "higher" ? head > 0 : head < 0;
    return { delta, verdict: better ? "improved" : "regressed" };
  }
  // The slack absorbs binary rounding: 4 → 4.2 is +5.000000000000004%, and must pass a 5% tolerance.
  if (Math.abs(delta) * 100 <= tolerancePct + 1e-9) return { delta, verdict: "unchanged" };
  const better = direction === "higher" ? delta > 0 : delta < 0;
  return { delta, verdict: better ? "improved" : "regressed" };
}

/**
 * Compare head against base on `metrics` (default: DEFAULT_REGRESSION_METRICS that either side
 * measured). A metric named explicitly is always reported, as `incomparable` when a side lacks it.
 */
export function evaluateRegressions(
  base: Readonly<Record<string, number>>,
  head: Readonly<Record<string, number>>,
  options: { tolerancePct: number; metrics?: readonly string[] },
): RegressionReport {
  const { tolerancePct } = options;
  if (!Number.isFinite(tolerancePct) || tolerancePct < 0 || tolerancePct > MAX_TOLERANCE_PCT) {
    throw new RangeError(`tolerance must be between 0 and ${MAX_TOLERANCE_PCT} percent`);
  }
  const keys = options.metrics?.length
    ? [...new Set(options.metrics)]
    : DEFAULT_REGRESSION_METRICS.filter((k) => k in base || k in head);
  const rows = keys.map((key): RegressionRow => {
    const def = metricDef(key);
    const b = base[key] ?? null;
    const h = head[key] ?? null;
    return {
      key,
      label: def.label,
      unit: def.unit,
      direction: def.direction,
      base: b,
      head: h,
      ...regressionVerdict(key, b, h, tolerancePct),
    };
  });
  return {
    tolerancePct,
    rows,
    regressed: rows.filter((r) => r.verdict === "regressed").map((r) => r.key),
    improved: rows.filter((r) => r.verdict === "improved").map((r) => r.key),
  };
}
