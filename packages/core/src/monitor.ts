import { z } from "zod";

/**
 * Monitors sample the target once a second during a run. Their samples become series keyed as
 * `mem_bytes`, `cpu_cores`, `queue_depth` (sum over watched queues), `queue_depth.<queue>` and
 * `gauge.<name>`, and their peaks become `mem_peak_bytes`, `mem_avg_bytes`, `cpu_peak`,
 * `queue_depth_peak`.
 */
export const ZPrometheusMonitor = z.object({
  kind: z.literal("prometheus"),
  url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
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
  url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
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
  .refine((m) => m.pid !== undefined || m.port !== undefined, { message: "pid or port is required", path: ["pid"] });

export const ZMonitorConfig = z.discriminatedUnion("kind", [ZPrometheusMonitor, ZRabbitMqMonitor, ZProcessMonitor]);
export type TMonitorConfig = z.infer<typeof ZMonitorConfig>;
export type TMonitorConfigInput = z.input<typeof ZMonitorConfig>;
