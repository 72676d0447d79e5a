import { z } from "zod";
import { findReservedKey, ZRecordKey } from "./record-keys";

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

/**
 * The most entries each part of one result may hold. A result is written as one row per metric
 * and read whole by every view of the run, so a client that sends 200,000 keys must be refused
 * before anything is stored. Real runs stay far below: engines report a few dozen metrics, at
 * most 200 error kinds and 64 stages; importers a few dozen metrics and their tool's own report
 * in `extra` (a k6 summary with its tagged sub-metrics is tens of kB).
 */
export const RESULT_LIMITS = {
  metrics: 5_000,
  statusCounts: 1_000,
  errors: 1_000,
  stages: 200,
  series: 100,
  histograms: 300,
  toolThresholds: 1_000,
  invalidReasons: 100,
  /** `extra` as JSON text, in characters. */
  extraChars: 1_000_000,
} as const;

const count = (n: number) => n.toLocaleString("en-US");

/**
 * A map of at most `max` entries. The size is checked before any entry is validated, so an
 * oversized map costs one pass over its keys, not a validation of each.
 */
function boundedRecord<V extends z.ZodType>(value: V, max: number, what: string) {
  return z
    .preprocess(
      (input, ctx) => {
        if (input !== null && typeof input === "object" && !Array.isArray(input)) {
          const size = Object.keys(input).length;
          if (size > max)
            ctx.addIssue({ code: "custom", message: `has ${count(size)} ${what}; at most ${count(max)}` });
        }
        return input;
      },
      z.record(ZRecordKey, value),
    )
    .meta({ maxProperties: max });
}

/** A list of at most `max` entries, checked before the entries are. */
function boundedArray<V extends z.ZodType>(element: V, max: number, what: string) {
  return z
    .preprocess((input, ctx) => {
      if (Array.isArray(input) && input.length > max) {
        ctx.addIssue({ code: "custom", message: `has ${count(input.length)} ${what}; at most ${count(max)}` });
      }
      return input;
    }, z.array(element))
    .meta({ maxItems: max });
}

/**
 * Free-form JSON kept as it was (a foreign tool's report, a tool's load settings): at most
 * `maxChars` as JSON text, and no reserved key at any depth (the views' serializer refuses one
 * anywhere, so one nested `constructor` would break the run's page).
 */
export function freeFormRecord(maxChars: number) {
  return z
    .preprocess(
      (input, ctx) => {
        if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
        const reserved = findReservedKey(input);
        if (reserved) {
          ctx.addIssue({ code: "custom", message: `${String(reserved.at(-1))} is a reserved name`, path: reserved });
          return input;
        }
        let chars = Number.POSITIVE_INFINITY;
        try {
          chars = JSON.stringify(input).length;
        } catch {
          // not JSON (a cycle): refused below as too large
        }
        if (chars > maxChars) {
          const size = Number.isFinite(chars) ? `${count(chars)} characters` : "no JSON form";
          ctx.addIssue({ code: "custom", message: `has ${size} as JSON; at most ${count(maxChars)}` });
        }
        return input;
      },
      z.record(ZRecordKey, z.unknown()),
    )
    .meta({
      description: `At most ${count(maxChars)} characters as JSON; no key named __proto__, constructor or prototype at any depth.`,
    });
}

export const ZRunResultData = z.object({
  metrics: boundedRecord(z.number().finite(), RESULT_LIMITS.metrics, "metrics"),
  /** Compressed base64 HDR histogram of latency in microseconds. */
  histogram: z.string().optional(),
  statusCounts: boundedRecord(z.number().int().nonnegative(), RESULT_LIMITS.statusCounts, "status codes").default({}),
  errors: boundedArray(ZErrorEntry, RESULT_LIMITS.errors, "error entries").default([]),
  stages: boundedRecord(ZStageStat, RESULT_LIMITS.stages, "stages").default({}),
  valid: z.boolean().default(true),
  invalidReasons: boundedArray(z.string(), RESULT_LIMITS.invalidReasons, "reasons").default([]),
  /**
   * The target's own reasons for being the limit (its queue grew, requests waited for its
   * connections, its stage slowed). With `valid` the run is saturated: a measurement, not a fault.
   */
  saturationReasons: boundedArray(z.string(), RESULT_LIMITS.invalidReasons, "reasons").default([]),
  /** Series keyed by metric: `rps`, `latency_p50`, `latency_p99`, `errors`, `mem_bytes`, `queue_depth`, … */
  series: boundedRecord(ZSeries, RESULT_LIMITS.series, "series").default({}),
  /**
   * Further encoded HDR histograms (µs) keyed by metric prefix: `ttft`, `itl`, `stage.<name>`.
   * Kept so shard results merge exactly.
   */
  histograms: boundedRecord(z.string(), RESULT_LIMITS.histograms, "histograms").optional(),
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
  toolThresholds: boundedArray(ZToolThresholdVerdict, RESULT_LIMITS.toolThresholds, "verdicts").optional(),
  /** Fields from a foreign format that have no place in the vocabulary, kept as they were. */
  extra: freeFormRecord(RESULT_LIMITS.extraChars).optional(),
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
