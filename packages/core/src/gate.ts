import { relativeDelta } from "./compare";
import { metricDef } from "./metrics";
import { DEFAULT_REGRESSION_METRICS, regressionVerdict } from "./regression";
import { mean, sampleVariance, studentTCritical, studentTTwoSidedP } from "./statistics";

/**
 * A CI gate against a baseline that is a distribution: the last N runs of the baseline branch,
 * not one run. A metric regresses when head is worse than the baseline's median by more than the
 * tolerance AND outside what the baseline's own runs make plausible for one more run of the same
 * code (a one-sided prediction bound on a log scale). Where that cannot be decided — too few
 * baseline runs to know their noise, a metric one side lacks — the verdict says so instead of
 * passing: a gate has three outcomes, pass, fail and inconclusive.
 */

/** What makes a metric a regression: both the tolerance and the noise (default), or one of them. */
export type GateKind = "noise" | "tolerance" | "statistical";
export const GATE_KINDS: readonly GateKind[] = ["noise", "tolerance", "statistical"];

export type GateOutcome = "pass" | "fail" | "inconclusive";

/** Baseline runs a branch baseline needs by default; fewer make the gate inconclusive. */
export const DEFAULT_BASELINE_RUNS = 5;
/** Below this many runs a baseline's spread is not estimated at all: the noise is unknown. */
export const MIN_NOISE_RUNS = 3;
/** Default one-sided level of the noise bound: a run of unchanged code lands beyond it 1 time in 100. */
export const DEFAULT_GATE_ALPHA = 0.01;

export interface NoiseBand {
  /** Baseline runs the band is estimated from. */
  n: number;
  /**
   * `log` when every baseline value is positive: latencies and rates vary by ratios, so the
   * band is symmetric in ratio and can never reach below zero; `linear` otherwise.
   */
  scale: "log" | "linear";
  /** The baseline's centre on that scale (geometric mean on the log scale). */
  center: number;
  /** One-sided prediction bounds at level alpha: a next baseline run falls below `low` (or above `high`) with probability alpha. */
  low: number;
  high: number;
  /**
   * The probability that one more baseline run is at least as bad as head in the metric's
   * worse direction (one-sided); null for a metric without a direction.
   */
  pWorse: number | null;
}

/**
 * The noise band of `values` at one-sided level `alpha`, and where `head` lies in it; null with
 * fewer than MIN_NOISE_RUNS values. The bound is Student's prediction interval for one new
 * observation, `centre ± t(1−α, n−1)·s·√(1 + 1/n)`: a short history widens it rather than
 * making the gate trigger-happy.
 */
export function noiseBand(
  key: string,
  values: readonly number[],
  head: number | null,
  alpha = DEFAULT_GATE_ALPHA,
): NoiseBand | null {
  const finite = values.filter(Number.isFinite);
  if (finite.length < MIN_NOISE_RUNS) return null;
  const log = finite.every((v) => v > 0);
  const to = (v: number) => (log ? (v > 0 ? Math.log(v) : Number.NEGATIVE_INFINITY) : v);
  const from = (v: number) => (log ? Math.exp(v) : v);
  const ys = finite.map(to);
  const n = ys.length;
  const m = mean(ys);
  const scale = Math.sqrt(sampleVariance(ys)) * Math.sqrt(1 + 1 / n);
  const half = scale === 0 ? 0 : studentTCritical(2 * alpha, n - 1) * scale;
  const { direction } = metricDef(key);
  let pWorse: number | null = null;
  if (direction !== "neutral" && head !== null && Number.isFinite(head)) {
    const y = to(head);
    // Signed so that positive is worse.
    const away = direction === "lower" ? y - m : m - y;
    if (scale === 0) pWorse = away > 0 ? 0 : 1;
    else {
      const t = away / scale;
      const two = studentTTwoSidedP(t, n - 1);
      pWorse = t > 0 ? two / 2 : 1 - two / 2;
    }
  }
  return { n, scale: log ? "log" : "linear", center: from(m), low: from(m - half), high: from(m + half), pWorse };
}

export function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * One metric's verdict. `noise` is beyond the tolerance but inside the baseline's noise band;
 * `inconclusive` is beyond the tolerance with too few baseline runs to know their noise;
 * `incomparable` is a metric one side did not measure.
 */
export type GateMetricVerdict = "regressed" | "improved" | "unchanged" | "noise" | "inconclusive" | "incomparable";

export interface GateMetricJudgement {
  /** The baseline's median (its one value for a one-run baseline); null when no run has the metric. */
  base: number | null;
  head: number | null;
  /** `(head − base) / base` against that median. */
  delta: number | null;
  verdict: GateMetricVerdict;
  /** The noise band, when the baseline has enough runs for one. */
  noise: NoiseBand | null;
  /** Why the verdict is not a plain pass or fail, in words. */
  note?: string;
}

/**
 * Judge one metric of head against the baseline's values for it. With gate `noise` a change must
 * be beyond the tolerance and beyond the noise band; `tolerance` ignores the noise (a one-run
 * baseline); `statistical` ignores the tolerance.
 */
export function judgeMetric(
  key: string,
  baseline: readonly number[],
  head: number | null | undefined,
  options: { tolerancePct: number; gate: GateKind; alpha?: number },
): GateMetricJudgement {
  const values = baseline.filter(Number.isFinite);
  const h = head === undefined || head === null || !Number.isFinite(head) ? null : head;
  const base = values.length ? median(values) : null;
  const delta = relativeDelta(base, h);
  if (base === null || h === null) {
    return {
      base,
      head: h,
      delta: null,
      verdict: "incomparable",
      noise: null,
      note: base === null ? "no baseline run measured it" : "head did not measure it",
    };
  }
  const noise = noiseBand(key, values, h, options.alpha);
  const { direction } = metricDef(key);
  if (direction === "neutral") return { base, head: h, delta, verdict: "unchanged", noise };
  const alpha = options.alpha ?? DEFAULT_GATE_ALPHA;
  const byTolerance = regressionVerdict(key, base, h, options.tolerancePct).verdict;
  if (options.gate === "tolerance") return { base, head: h, delta, verdict: byTolerance, noise };
  if (options.gate === "noise" && byTolerance === "unchanged")
    return { base, head: h, delta, verdict: "unchanged", noise };
  if (!noise || noise.pWorse === null) {
    return {
      base,
      head: h,
      delta,
      verdict: "inconclusive",
      noise,
      note: `${values.length} baseline ${values.length === 1 ? "run does" : "runs do"} not show their noise (${MIN_NOISE_RUNS} needed)`,
    };
  }
  const worse = noise.pWorse < alpha;
  const better = 1 - noise.pWorse < alpha;
  if (options.gate === "statistical") {
    return { base, head: h, delta, verdict: worse ? "regressed" : better ? "improved" : "unchanged", noise };
  }
  // Beyond the tolerance: it counts only when it is also beyond the noise, in the same direction.
  if (byTolerance === "regressed" && worse) return { base, head: h, delta, verdict: "regressed", noise };
  if (byTolerance === "improved" && better) return { base, head: h, delta, verdict: "improved", noise };
  return { base, head: h, delta, verdict: "noise", noise, note: "beyond the tolerance, within the baseline's noise" };
}

/**
 * The metrics a gate judges: the ones chosen, or the default gate metrics that head or any
 * baseline run measured (one that only one side has is then incomparable, and says so).
 */
export function gateMetricKeys(
  baseline: readonly Readonly<Record<string, number>>[],
  head: Readonly<Record<string, number>>,
  chosen?: readonly string[],
): string[] {
  if (chosen?.length) return [...new Set(chosen)];
  return DEFAULT_REGRESSION_METRICS.filter((k) => k in head || baseline.some((b) => k in b));
}
