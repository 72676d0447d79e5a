import { z } from "zod";
import { ZRecordKey } from "./record-keys";

/**
 * The normalized result of a run: what engines produce, importers return and uploads accept.
 * Metric values use the units of the metric registry (latency in ms). A metric that was not
 * measured is absent, never zero.
 */

export const ZSeries = z.object({
  /** Epoch milliseconds of the first sample. */
  start: z.number(),
  intervalMs: z.number().positive().default(1000),
  values: z.array(z.number().nullable()),
});
export type TSeries = z.infer<typeof ZSeries>;

export const ZErrorEntry = z.object({
  /** `status` for HTTP status codes, `transport`, `timeout`, `lost`, `connect`, `assert`, … */
  kind: z.string().min(1),
  status: z.number().int().optional(),
  message: z.string().default(""),
  count: z.number().int().nonnegative(),
});
export type TErrorEntry = z.infer<typeof ZErrorEntry>;

export const ZStageStat = z.object({
  meanMs: z.number().nonnegative(),
  count: z.number().int().nonnegative().optional(),
  p50Ms: z.number().nonnegative().optional(),
  p99Ms: z.number().nonnegative().optional(),
  maxMs: z.number().nonnegative().optional(),
});
export type TStageStat = z.infer<typeof ZStageStat>;

/**
 * A pass/fail verdict on one threshold, as the tool that ran the load judged it (e.g. a k6
 * threshold `p(95)<500` on `http_req_duration`). Kept beside the metrics so a CI gate can
 * honour the tool's own verdicts as well as Benchboard's thresholds.
 */
export const ZToolThresholdVerdict = z.object({
  /** The tool's metric name, e.g. `http_req_duration` or `http_req_duration{status:200}`. */
  metric: z.string().min(1),
  /** The threshold as the tool wrote it, e.g. `p(95)<500`. */
  expression: z.string().min(1),
  passed: z.boolean(),
});
export type TToolThresholdVerdict = z.infer<typeof ZToolThresholdVerdict>;

export const ZRunResultData = z.object({
  metrics: z.record(ZRecordKey, z.number().finite()),
  /** Compressed base64 HDR histogram of latency in microseconds. */
  histogram: z.string().optional(),
  statusCounts: z.record(ZRecordKey, z.number().int().nonnegative()).default({}),
  errors: z.array(ZErrorEntry).default([]),
  stages: z.record(ZRecordKey, ZStageStat).default({}),
  valid: z.boolean().default(true),
  invalidReasons: z.array(z.string()).default([]),
  /** Series keyed by metric: `rps`, `latency_p50`, `latency_p99`, `errors`, `mem_bytes`, `queue_depth`, … */
  series: z.record(ZRecordKey, ZSeries).default({}),
  /**
   * Further encoded HDR histograms (µs) keyed by metric prefix: `ttft`, `itl`, `stage.<name>`.
   * Kept so shard results merge exactly.
   */
  histograms: z.record(ZRecordKey, z.string()).optional(),
  /**
   * Per-interval latency histograms (encoded, µs; null for an interval without samples) aligned
   * with `series`, so per-second percentiles of merged shards are re-read, never averaged.
   */
  intervalHistograms: z
    .object({
      start: z.number(),
      intervalMs: z.number().positive().default(1000),
      values: z.array(z.string().nullable()),
    })
    .optional(),
  /** Threshold verdicts of the tool that ran the load (not Benchboard's own thresholds). */
  toolThresholds: z.array(ZToolThresholdVerdict).optional(),
  /** Fields from a foreign format that have no place in the vocabulary, kept as they were. */
  extra: z.record(ZRecordKey, z.unknown()).optional(),
});
export type TRunResultData = z.infer<typeof ZRunResultData>;
export type TRunResultDataInput = z.input<typeof ZRunResultData>;

/** Progress reported by a running engine about once a second. */
export interface EngineProgress {
  elapsedMs: number;
  /** 0..1 when the engine knows its end (requests or duration), else null. */
  fraction: number | null;
  requests: number;
  errors: number;
  rps: number;
  latencyP50Ms: number | null;
  latencyP99Ms: number | null;
  /** Percentiles of the last complete second alone (what a per-second chart plots). */
  intervalP50Ms?: number | null;
  intervalP99Ms?: number | null;
  /** Open model: the generator's own send lag (due → fired) p99 so far, ms. */
  sendLagP99Ms?: number | null;
  /** Open model: wait for a free connection (fired → on a socket) p99 so far, ms. */
  connectionWaitP99Ms?: number | null;
  /** LLM runs only: streaming and output figures so far (see `ZLiveLlm`). */
  llm?: LlmProgress;
}

/** An LLM run's live figures, from the run's histograms and counters so far. */
export interface LlmProgress {
  /** Time to first token, ms (streaming runs). */
  ttftP50Ms: number | null;
  ttftP99Ms: number | null;
  /** Gap between content events, ms (streaming runs). */
  itlP50Ms: number | null;
  itlP99Ms: number | null;
  /** Output tokens per second seen by one client, pooled over the requests so far. */
  tokensPerS: number | null;
  /** The last complete second alone: TTFT and inter-token percentiles (per-second timelines). */
  intervalTtftP50Ms?: number | null;
  intervalTtftP99Ms?: number | null;
  intervalItlP50Ms?: number | null;
  intervalItlP99Ms?: number | null;
}
