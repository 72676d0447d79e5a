import { formatMetric, metricDef } from "./metrics";
import type { TThreshold } from "./scenario";

export interface ThresholdVerdict extends TThreshold {
  /** null when the run did not measure the metric: a missing metric fails its threshold. */
  actual: number | null;
  passed: boolean;
  source: "project" | "scenario" | "import";
}

const OPS: Record<TThreshold["op"], (a: number, b: number) => boolean> = {
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
  "==": (a, b) => a === b,
};

export function evaluateThresholds(
  metrics: Record<string, number>,
  thresholds: { threshold: TThreshold; source: ThresholdVerdict["source"] }[],
): ThresholdVerdict[] {
  return thresholds.map(({ threshold, source }) => {
    const actual = metrics[threshold.metric];
    const passed = actual !== undefined && OPS[threshold.op](actual, threshold.value);
    return { ...threshold, actual: actual ?? null, passed, source };
  });
}

export function describeThreshold(t: TThreshold): string {
  return `${metricDef(t.metric).label} ${t.op} ${formatMetric(t.metric, t.value)}`;
}
