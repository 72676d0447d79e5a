import type { Interval } from "./derived";
import { formatMetric, metricDef } from "./metrics";
import type { TThreshold } from "./scenario";

/**
 * Threshold verdicts have three states. A metric the run did not measure is neither a pass nor a
 * fail: it is "not measured", shown as such, and a CI gate decides what to make of it (by default
 * it fails the gate, because a gate that passes on missing data proves nothing).
 */
export type ThresholdStatus = "pass" | "fail" | "not_measured";

export interface ThresholdVerdict extends TThreshold {
  /** null when the run did not measure the metric. */
  actual: number | null;
  status: ThresholdStatus;
  /** True only for `pass`; kept for readers that predate the third state. */
  passed: boolean;
  source: "project" | "scenario" | "import";
  /** Why the verdict is what it is when that is not plain from the numbers (approximate values). */
  note?: string;
}

const OPS: Record<TThreshold["op"], (a: number, b: number) => boolean> = {
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
  "==": (a, b) => a === b,
};

/** How far either side of `~x` an approximate figure without a printed range may lie. */
export const APPROXIMATE_SPREAD = 0.1;

/** The interval an approximate value stands for: its printed range, or ±10 % around `~x`. */
export function approximateInterval(value: number, range?: readonly [number, number] | null): Interval {
  if (range) return [Math.min(range[0], range[1]), Math.max(range[0], range[1])];
  const spread = Math.abs(value) * APPROXIMATE_SPREAD;
  return [value - spread, value + spread];
}

/**
 * Judge one threshold. An approximate value (`~20`, `~35–40`) is judged on the whole interval it
 * stands for: it passes only when every value in it passes, fails only when every value fails, and
 * is "not measured" otherwise. An exact comparison (`==`) is never decided by an approximate value.
 */
export function judgeThreshold(
  threshold: TThreshold,
  actual: number | null | undefined,
  approximate?: Interval | null,
): { status: ThresholdStatus; note?: string } {
  if (actual === null || actual === undefined || Number.isNaN(actual)) return { status: "not_measured" };
  if (!approximate) return { status: OPS[threshold.op](actual, threshold.value) ? "pass" : "fail" };
  if (threshold.op === "==") {
    return { status: "not_measured", note: "approximate value: an exact threshold cannot be judged on it" };
  }
  const test = OPS[threshold.op];
  const lo = test(approximate[0], threshold.value);
  const hi = test(approximate[1], threshold.value);
  if (lo && hi) return { status: "pass", note: "approximate value: passes across its whole range" };
  if (!lo && !hi) return { status: "fail", note: "approximate value: fails across its whole range" };
  return { status: "not_measured", note: "approximate value: its range straddles the threshold" };
}

export function evaluateThresholds(
  metrics: Readonly<Record<string, number>>,
  thresholds: { threshold: TThreshold; source: ThresholdVerdict["source"] }[],
  approximate: Readonly<Record<string, Interval>> = {},
): ThresholdVerdict[] {
  return thresholds.map(({ threshold, source }) => {
    const actual = metrics[threshold.metric];
    const judged = judgeThreshold(threshold, actual, approximate[threshold.metric]);
    return {
      ...threshold,
      actual: actual ?? null,
      status: judged.status,
      passed: judged.status === "pass",
      source,
      ...(judged.note ? { note: judged.note } : {}),
    };
  });
}

/** A verdict as stored before the third state existed: a missing value is "not measured". */
export function verdictStatus(v: { passed: boolean; actual: number | null; status?: unknown }): ThresholdStatus {
  if (v.status === "pass" || v.status === "fail" || v.status === "not_measured") return v.status;
  if (v.actual === null) return "not_measured";
  return v.passed ? "pass" : "fail";
}

/** Every verdict taken together: `none` when there are no thresholds. */
export type ThresholdsOutcome = ThresholdStatus | "none";

export function thresholdsOutcome(verdicts: readonly { status: ThresholdStatus }[]): ThresholdsOutcome {
  if (verdicts.length === 0) return "none";
  if (verdicts.some((v) => v.status === "fail")) return "fail";
  if (verdicts.some((v) => v.status === "not_measured")) return "not_measured";
  return "pass";
}

/** Whether verdicts pass a gate; "not measured" fails it unless the caller allows it. */
export function thresholdsPassGate(
  verdicts: readonly { status: ThresholdStatus }[],
  options: { allowNotMeasured?: boolean } = {},
): boolean {
  return verdicts.every((v) => v.status === "pass" || (v.status === "not_measured" && options.allowNotMeasured));
}

export const THRESHOLD_STATUS_TEXT: Record<ThresholdStatus, string> = {
  pass: "pass",
  fail: "fail",
  not_measured: "not measured",
};

export function describeThreshold(t: TThreshold): string {
  return `${metricDef(t.metric).label} ${t.op} ${formatMetric(t.metric, t.value)}`;
}
