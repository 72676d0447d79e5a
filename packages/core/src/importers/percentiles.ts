/** Percentiles that have a key in the metric vocabulary; others stay in `extra`. */
const PERCENTILE_KEYS: Record<string, string> = {
  "50": "latency_p50",
  "90": "latency_p90",
  "95": "latency_p95",
  "99": "latency_p99",
  "99.9": "latency_p999",
};

/** `50.000` → `"50"`, `99.900` → `"99.9"`: one spelling for a percentile everywhere. */
export function percentileLabel(percent: number): string {
  return String(Number(percent.toFixed(6)));
}

/** Vocabulary metrics for a `{ "50": ms, "99.9": ms, … }` map. */
export function percentileMetrics(percentilesMs: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [label, ms] of Object.entries(percentilesMs)) {
    const key = PERCENTILE_KEYS[label];
    if (key) out[key] = ms;
  }
  return out;
}
