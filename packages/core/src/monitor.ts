import { z } from "zod";

/**
 * Monitors sample the target once a second during a run. Their samples become series keyed as
 * `mem_bytes`, `cpu_cores`, `queue_depth` (sum over watched queues), `queue_depth.<queue>` and
 * `gauge.<name>`, and their peaks become `mem_peak_bytes`, `mem_avg_bytes`, `cpu_peak`,
 * `queue_depth_peak`.
 */
/** An http(s) address; the JSON Schema (the OpenAPI document) states the scheme too. */
const ZMonitorUrl = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .meta({ pattern: "^[hH][tT][tT][pP][sS]?://[^\\s/?#]" });

export const ZPrometheusMonitor = z.object({
  kind: z.literal("prometheus"),
  url: ZMonitorUrl,
  /** Metric read as the target's memory (bytes). */
  memoryMetric: z.string().default("process_resident_memory_bytes"),
  /** Counter of CPU seconds, turned into cores used per second. */
  cpuMetric: z.string().default("process_cpu_seconds_total"),
  /** Extra gauges, e.g. `{ name: "queue_depth", metric: "gateway_queue_depth" }`. */
  gauges: z
    .array(
      z.object({
        name: z.string().regex(/^[a-z][a-z0-9_]*$/, "lowercase letters, digits and _"),
        metric: z.string().min(1),
        labels: z.record(z.string(), z.string()).optional(),
      }),
    )
    .default([]),
});

export const ZRabbitMqMonitor = z.object({
  kind: z.literal("rabbitmq"),
  /** Management API base, e.g. `http://127.0.0.1:15672`. */
  url: ZMonitorUrl,
  vhost: z.string().default("/"),
  queues: z.array(z.string().min(1)).min(1, "name at least one queue"),
  username: z.string().default("guest"),
  /** Secret: stored encrypted, never returned. */
  password: z.string().default("guest"),
});

export const ZProcessMonitor = z
  .object({
    kind: z.literal("process"),
    pid: z.number().int().positive().optional(),
    port: z.number().int().min(1).max(65_535).optional(),
  })
  .refine((m) => m.pid !== undefined || m.port !== undefined, { message: "pid or port is required", path: ["pid"] })
  // The same rule in the JSON Schema (the OpenAPI document), where a refinement does not reach.
  .meta({ anyOf: [{ required: ["pid"] }, { required: ["port"] }] });

/** What a PromQL monitor's answer is stored as: the series key it fills and the unit of its values. */
export const PROMQL_METRICS = {
  memory: { key: "mem_bytes", unit: "bytes" },
  cpu: { key: "cpu_cores", unit: "cores" },
  queue_depth: { key: "queue_depth", unit: "messages" },
  custom: { key: "gauge.", unit: "" },
} as const;

/**
 * A PromQL expression evaluated with `query_range` over the run's window, e.g.
 * `sum(container_memory_working_set_bytes{pod=~"gateway-.*"})`. It must give one series.
 */
export const ZPromQlMonitor = z
  .object({
    kind: z.literal("promql"),
    /** Prometheus base URL, e.g. `http://prometheus:9090` (the API path is added). */
    url: ZMonitorUrl,
    query: z
      .string()
      .regex(/[^\s\uFEFF]/, "a PromQL expression is required")
      .trim()
      .max(4000, "at most 4000 characters"),
    metric: z.enum(["memory", "cpu", "queue_depth", "custom"], { error: "memory, cpu, queue_depth or custom" }),
    /** Series name of a custom metric, stored as `gauge.<name>`. */
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/, "lowercase letters, digits and _")
      .optional(),
    /** Unit of a custom metric's values, e.g. `connections`. */
    unit: z.string().trim().max(32, "at most 32 characters").optional(),
    /** Resolution in seconds; by default 1 s, coarser for runs longer than 11,000 s. */
    stepSeconds: z.number().int().min(1, "at least 1").max(3600, "at most 3600").optional(),
  })
  .refine((m) => m.metric !== "custom" || (m.name !== undefined && m.name !== ""), {
    message: "a custom metric needs a series name",
    path: ["name"],
  })
  .meta({ anyOf: [{ properties: { metric: { enum: ["memory", "cpu", "queue_depth"] } } }, { required: ["name"] }] });

/** The series key a PromQL monitor's answer is stored under. */
export function promQlKey(config: { metric: keyof typeof PROMQL_METRICS; name?: string }): string {
  return config.metric === "custom" ? `gauge.${config.name}` : PROMQL_METRICS[config.metric].key;
}

export const ZMonitorConfig = z.discriminatedUnion("kind", [
  ZPrometheusMonitor,
  ZRabbitMqMonitor,
  ZProcessMonitor,
  ZPromQlMonitor,
]);
export type TMonitorConfig = z.infer<typeof ZMonitorConfig>;
export type TMonitorConfigInput = z.input<typeof ZMonitorConfig>;
