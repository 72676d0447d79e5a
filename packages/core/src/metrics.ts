/**
 * The one metric vocabulary: every number Benchboard stores, compares or charts has a key here
 * (or matches a pattern such as `stage.<name>`), a unit and a direction.
 */
export type MetricDirection = "lower" | "higher" | "neutral";
export type MetricUnit = "count" | "ms" | "req/s" | "msg/s" | "tokens/s" | "bytes" | "percent" | "cores" | "req/s/vCPU";

export interface MetricDef {
  key: string;
  label: string;
  unit: MetricUnit;
  direction: MetricDirection;
  /** Derived metrics are computed from other metrics and never accepted as input. */
  derived?: boolean;
}

const def = (key: string, label: string, unit: MetricUnit, direction: MetricDirection, derived = false): MetricDef => ({
  key,
  label,
  unit,
  direction,
  ...(derived ? { derived } : {}),
});

const LATENCY_STATS = ["min", "mean", "p50", "p90", "p95", "p99", "p999", "max", "stddev"] as const;
export type LatencyStat = (typeof LATENCY_STATS)[number];
const LATENCY_LABEL: Record<LatencyStat, string> = {
  min: "min",
  mean: "mean",
  p50: "p50",
  p90: "p90",
  p95: "p95",
  p99: "p99",
  p999: "p99.9",
  max: "max",
  stddev: "std dev",
};

export const METRICS: readonly MetricDef[] = [
  def("requests", "Requests", "count", "neutral"),
  def("success", "Successful", "count", "higher"),
  def("failed", "Failed", "count", "lower"),
  def("success_rate", "Success rate", "percent", "higher"),
  def("rps", "Achieved rate", "req/s", "higher"),
  /** A capacity search's answer: the highest rate offered that met its SLO, achieved within 2 %. */
  def("capacity_rps", "Sustainable rate", "req/s", "higher"),
  def("target_rps", "Target rate", "req/s", "neutral"),
  def("throughput", "Throughput", "msg/s", "higher"),
  def("messages", "Messages delivered", "count", "neutral"),
  def("expected_deliveries", "Expected deliveries", "count", "neutral"),
  def("lost_deliveries", "Lost messages", "count", "lower"),
  def("message_loss", "Message loss (lost + failed)", "count", "lower", true),
  def("completed_rps", "Completed throughput", "req/s", "higher"),
  def("runtime_ms", "Runtime", "ms", "lower"),
  ...LATENCY_STATS.map((s) => def(`latency_${s}`, `Latency ${LATENCY_LABEL[s]}`, "ms", "lower")),
  def("req_bytes_avg", "Avg request size", "bytes", "neutral"),
  def("res_bytes_avg", "Avg response size", "bytes", "neutral"),
  def("mem_peak_bytes", "Peak memory", "bytes", "lower"),
  def("mem_avg_bytes", "Avg memory", "bytes", "lower"),
  def("cpu_peak", "Peak CPU", "cores", "lower"),
  def("queue_depth_peak", "Peak queue depth", "count", "lower"),
  def("failed_connections", "Failed connections", "count", "lower"),
  ...LATENCY_STATS.map((s) => def(`ttft_${s}`, `Time to first token ${LATENCY_LABEL[s]}`, "ms", "lower")),
  ...LATENCY_STATS.map((s) => def(`itl_${s}`, `Inter-token latency ${LATENCY_LABEL[s]}`, "ms", "lower")),
  def("tokens_per_s", "Output tokens/s per request", "tokens/s", "higher"),
  def("tokens_per_s_total", "Output tokens/s in total", "tokens/s", "higher", true),
  def("output_tokens", "Output tokens", "count", "neutral"),
  def("rps_per_vcpu", "Req/s per vCPU", "req/s/vCPU", "higher", true),
  def("gateway_overhead", "Gateway overhead", "ms", "lower", true),
  def("mem_utilization", "Memory utilization", "percent", "lower", true),
  // Tools such as drill report p99.5 beside p99 and p99.9.
  def("latency_p995", "Latency p99.5", "ms", "lower"),
  def("custom.room_throughput_median", "Median room throughput", "msg/s", "higher"),
  // The load generator's own error (open model), recorded beside the target's figures.
  def("send_lag_p50", "Send lag p50 (generator)", "ms", "lower"),
  def("send_lag_p99", "Send lag p99 (generator)", "ms", "lower"),
  def("send_lag_max", "Send lag max (generator)", "ms", "lower"),
  // Sends the generator dropped after it stalled (frozen, or its host too busy), not sent late.
  def("stall_dropped", "Dropped after stalls (generator)", "count", "lower"),
  def("connection_wait_p99", "Wait for a connection p99", "ms", "lower"),
  // Latency from when the engine fired each request, not its due time: as oha and vegeta time it.
  def("latency_from_send_p50", "Latency from the send p50", "ms", "lower"),
  def("latency_from_send_p99", "Latency from the send p99", "ms", "lower"),
  def("event_loop_delay_p99", "Event-loop delay p99 (generator)", "ms", "lower"),
  def("event_loop_delay_max", "Event-loop delay max (generator)", "ms", "lower"),
  def("gc_pause_max", "GC pause max (generator)", "ms", "lower"),
  def("gc_pause_share", "Time in GC pauses (generator)", "percent", "lower"),
  def("generator_cpu", "Generator CPU", "cores", "lower"),
];

const BY_KEY = new Map(METRICS.map((m) => [m.key, m]));

function titleCase(name: string): string {
  return name.replace(/[_-]+/g, " ").replace(/^\w/, (c) => c.toUpperCase());
}

/** Words set in capitals wherever a stage is named. */
const ACRONYMS = new Set(["json", "http", "https", "tls", "dns", "tcp", "db", "io", "sql", "api", "llm", "sse", "ws"]);

/**
 * A server-timing stage's name as every page prints it (run page, comparison, share link,
 * trends): `json_parse` → "JSON parse", `db-query` → "DB query".
 */
export function stageName(name: string): string {
  const words = name
    .split(/[_\-\s]+/)
    .filter(Boolean)
    .map((w) => (ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : w));
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The metric key of a stage's mean (ms): `stage.<name>`. */
export const STAGE_PREFIX = "stage.";

/** Look up a metric, including pattern keys: `stage.<name>` (ms, lower) and `custom.<name>`. */
export function metricDef(key: string): MetricDef {
  const known = BY_KEY.get(key);
  if (known) return known;
  if (key.startsWith(STAGE_PREFIX))
    return def(key, `Stage: ${stageName(key.slice(STAGE_PREFIX.length))}`, "ms", "lower");
  return def(key, titleCase(key.replace(/^custom\./, "")), "count", "neutral");
}

export function isKnownMetric(key: string): boolean {
  return BY_KEY.has(key) || key.startsWith("stage.") || key.startsWith("custom.");
}

/** Format a value in its metric's unit for display; missing values render as an em dash. */
export function formatMetric(key: string, value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  const { unit } = metricDef(key);
  switch (unit) {
    case "ms":
      return formatDurationMs(value);
    case "bytes":
      return formatBytes(value);
    case "percent":
      return formatPercent(value);
    case "count":
      return Number.isInteger(value) ? value.toLocaleString("en-US") : value.toFixed(2);
    default:
      return `${value.toLocaleString("en-US", { maximumFractionDigits: 2 })} ${unit}`;
  }
}

/**
 * A percentage to two decimals, with more where two would say what is not so: 3,599,880 of
 * 3,600,000 is 99.997 %, never "100.00 %", and one failure in a million is not "0.00 %".
 */
export function formatPercent(value: number): string {
  let digits = 2;
  const misleads = (d: number) => {
    const shown = Number(value.toFixed(d));
    return (value < 100 && shown >= 100) || (value > 0 && shown <= 0);
  };
  while (digits < 6 && misleads(digits)) digits++;
  return `${value.toFixed(digits)}%`;
}

export function formatDurationMs(ms: number): string {
  const abs = Math.abs(ms);
  if (abs === 0) return "0 ms";
  if (abs < 0.001) return `${+(ms * 1e6).toPrecision(3)} ns`;
  if (abs < 1) return `${+(ms * 1e3).toPrecision(3)} µs`;
  if (abs < 1000) return `${+ms.toPrecision(4)} ms`;
  return `${+(ms / 1000).toPrecision(4)} s`;
}

/** Bytes in binary units, labelled as such: 3.26 GiB is 3.26 × 1024³ bytes, not 3.26 GB. */
export function formatBytes(bytes: number): string {
  const abs = Math.abs(bytes);
  if (abs < 1024) return `${Math.round(bytes)} B`;
  if (abs < 1024 ** 2) return `${(bytes / 1024).toFixed(2)} KiB`;
  if (abs < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(2)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}
