import {
  MAX_SHARDS,
  MAX_TOLERANCE_PCT,
  ZErrorEntry,
  ZLaunchOverrides,
  ZStageStat,
  ZThreshold,
  ZToolThresholdVerdict,
} from "@benchboard/core";
import { ZNormalizedRun } from "@benchboard/core/importers";
import { z } from "zod";
import { ZLaunchRunInput } from "../routers/run";
import { ZUploadRunInput } from "../routers/upload";

/**
 * Request and response schemas of REST /api/v1. Handlers validate with them and the OpenAPI
 * document is generated from them, so the document cannot drift from what the server does.
 */

const ZOptionalText = (max: number) => z.string().trim().min(1).max(max).optional();

/**
 * The JSON envelope of an upload: the file as text (`content`) or a native run as JSON (`run`),
 * with what only the uploader knows. A native run or a tool's output may also be sent as the
 * whole body, with these fields as query parameters.
 */
export const ZRestUploadEnvelope = ZUploadRunInput.omit({ content: true, idempotencyKey: true })
  .extend({
    content: z.string().min(1, "the uploaded content is empty").optional(),
    run: ZNormalizedRun.optional(),
  })
  .refine((e) => (e.content === undefined) !== (e.run === undefined), {
    message: "send exactly one of content (the tool's output as text) or run (a Benchboard run as JSON)",
    path: ["content"],
  });
export type TRestUploadEnvelope = z.infer<typeof ZRestUploadEnvelope>;

export const ZRestLaunchInput = z.object({
  /** The project's id or slug; needed when `scenario` is a name. */
  project: ZOptionalText(200),
  /** A stored scenario: its id, or its name within `project`. */
  scenario: z.string().trim().min(1, "scenario is required (its id, or its name with project)").max(200),
  /** The target: its id, or its name within the scenario's project. */
  target: z.string().trim().min(1, "target is required (its id or name)").max(200),
  /** Optional instance config: its id, or its name within the scenario's project. */
  instanceConfig: ZOptionalText(200),
  tags: z.array(z.string()).max(20).optional(),
  notes: z.string().max(10_000).optional(),
  repetitions: z.number().int().min(1).max(50).optional(),
  /** Split each run across this many worker processes (1–64); their results merge exactly. */
  shards: ZLaunchRunInput.shape.shards.optional(),
  /** Only workers offering this label (e.g. a region) take the run. */
  workerLabel: z.string().max(63).optional(),
  /** Run it on the organization's agents offering this label (inside its own network), not on the install's workers. */
  agentLabel: z.string().max(63).optional(),
  /** Override the scenario's arrival rate (req/s) for this launch; within the organization's caps. */
  rate: ZLaunchOverrides.shape.rate,
  /** Override the concurrency (closed-model users, or an open model's connection pool). */
  concurrency: ZLaunchOverrides.shape.concurrency,
  /** Override the duration in seconds (a closed model then ends by time, not request count). */
  durationS: ZLaunchOverrides.shape.durationS,
});
export type TRestLaunchInput = z.infer<typeof ZRestLaunchInput>;

/** A yes/no query parameter: `true`/`1`/`yes` or `false`/`0`/`no` (absent is no). */
const ZQueryFlag = z
  .enum(["true", "false", "1", "0", "yes", "no", ""], { error: "must be true or false" })
  .optional()
  .transform((v) => v === "true" || v === "1" || v === "yes");

export const ZRestCompareQuery = z.object({
  /** A run id, or `branch:<name>` for that branch's latest succeeded run of head's scenario. */
  base: z.string().trim().min(1, "base is required: a run id or branch:<name>"),
  head: z.string().trim().min(1, "head is required: a run id"),
  /** Percent a metric may worsen before it counts as a regression. */
  tolerance: z.coerce
    .number({ error: "must be a number (percent)" })
    .min(0, "must be at least 0")
    .max(MAX_TOLERANCE_PCT, `must be at most ${MAX_TOLERANCE_PCT}`)
    .default(5),
  /** Comma-separated metric keys to judge; default: the usual gate metrics either run has. */
  metrics: z
    .string()
    .optional()
    .transform((v) =>
      v
        ?.split(",")
        .map((k) => k.trim())
        .filter(Boolean),
    ),
  /** Let a threshold whose metric head did not measure pass the gate (it fails it by default). */
  allowNotMeasured: ZQueryFlag,
  /** Let a run the engine flagged invalid pass the gate (it fails it by default). */
  allowInvalid: ZQueryFlag,
  /** What fails the gate beside thresholds: the percent tolerance, the statistical test, or either. */
  gate: z
    .enum(["tolerance", "statistical", "both"], { error: "must be tolerance, statistical or both" })
    .default("tolerance"),
  /** How many of base's branch's latest runs the statistical test judges head against. */
  history: z.coerce
    .number({ error: "must be a whole number of runs" })
    .int("must be a whole number of runs")
    .min(3, "must be at least 3 runs")
    .max(100, "must be at most 100 runs")
    .default(10),
  /** Significance level of the statistical test. */
  alpha: z.coerce
    .number({ error: "must be a number between 0 and 0.5" })
    .gt(0, "must be above 0")
    .max(0.5, "must be at most 0.5")
    .default(0.01),
});

export const ZRestError = z.object({
  error: z.object({
    message: z.string(),
    /** The input field at fault, e.g. `project`, `result.metrics.rps`, `Idempotency-Key`. */
    field: z.string().optional(),
    /** The line of a text upload (or JSON body) at fault. */
    line: z.number().int().optional(),
  }),
});

const ZRunStatus = z.enum(["queued", "running", "succeeded", "failed", "canceled"]);
const ZIso = z.string().describe("ISO 8601 date-time");

export const ZRestThresholds = z.object({
  /** Every threshold passed, Benchboard's and the tool's own (a threshold not measured has not passed). */
  passed: z.boolean(),
  /** All verdicts together: `fail` if any failed, else `not_measured` if any was not measured, else `pass`; `none` without thresholds. */
  outcome: z.enum(["pass", "fail", "not_measured", "none"]),
  /** Benchboard's thresholds (the project's and the scenario's). */
  verdicts: z.array(
    ZThreshold.extend({
      actual: z.number().nullable(),
      /** `not_measured` when the run has no value for the metric (or only an approximate one across the line). */
      status: z.enum(["pass", "fail", "not_measured"]),
      passed: z.boolean(),
      source: z.string(),
      note: z.string().optional(),
    }),
  ),
  /** The load tool's own verdicts, kept as it judged them (e.g. k6 thresholds). */
  tool: z.array(ZToolThresholdVerdict),
});

const ZProjectRef = z.object({ id: z.string(), slug: z.string(), name: z.string() });

export const ZRestRun = z.object({
  id: z.string(),
  number: z.number().int(),
  /** The run's page in the web app. */
  url: z.string(),
  project: ZProjectRef,
  status: ZRunStatus,
  /** `launched`, `upload` (native JSON) or `import:<format>`. */
  source: z.string(),
  scenario: z.object({ id: z.string().nullable(), name: z.string() }),
  git: z.object({ branch: z.string().nullable(), commit: z.string().nullable(), ciUrl: z.string().nullable() }),
  tags: z.array(z.string()),
  notes: z.string(),
  excluded: z.boolean(),
  excludedReason: z.string().nullable(),
  /** Why a failed or canceled run ended. */
  error: z.string().nullable(),
  /** Latest progress of a queued or running run: elapsedMs, fraction (0..1), requests, errors, rps, … */
  progress: z.record(z.string(), z.unknown()).nullable(),
  queuedAt: ZIso,
  startedAt: ZIso.nullable(),
  endedAt: ZIso.nullable(),
  /** The instance config the run had: instanceType, vcpu, memoryMb, cpuLimit, replicas, knobs. */
  instanceConfig: z.record(z.string(), z.unknown()).nullable(),
  result: z
    .object({
      metrics: z.record(z.string(), z.number()),
      statusCounts: z.record(z.string(), z.number()),
      errors: z.array(ZErrorEntry),
      stages: z.record(z.string(), ZStageStat),
      valid: z.boolean(),
      invalidReasons: z.array(z.string()),
    })
    .nullable(),
  thresholds: ZRestThresholds.nullable(),
  /** False when the engine flagged the measurement as unsound (rate not held, …); null before results. */
  valid: z.boolean().nullable(),
  /** Why the measurement is not valid, one line each. */
  invalidReasons: z.array(z.string()),
});
export type TRestRun = z.infer<typeof ZRestRun>;

export const ZRestUploadResult = z.object({
  /** false when the Idempotency-Key was used before: `run` is the run stored then. */
  created: z.boolean(),
  run: ZRestRun,
});

export const ZRestLaunchResult = z.object({
  run: ZRestRun,
  /** Every run of the launch in order (more than one with repetitions). */
  groupRunIds: z.array(z.string()),
  /** False when an Idempotency-Key used before returned the earlier launch's runs. */
  created: z.boolean(),
});

export const ZRestRunSummary = ZRestRun.pick({
  id: true,
  number: true,
  url: true,
  project: true,
  status: true,
  source: true,
  scenario: true,
  git: true,
  endedAt: true,
  valid: true,
  invalidReasons: true,
});

export const ZRestCompareResult = z.object({
  base: ZRestRunSummary,
  head: ZRestRunSummary,
  tolerancePct: z.number(),
  metrics: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      unit: z.string(),
      direction: z.enum(["lower", "higher", "neutral"]),
      base: z.number().nullable(),
      head: z.number().nullable(),
      /** `(head − base) / base` as a fraction; null when undefined. */
      delta: z.number().nullable(),
      verdict: z.enum(["regressed", "improved", "unchanged", "incomparable"]),
      /** Head against the last runs of base's branch: a prediction t-test; null with under 3 runs of history. */
      statistical: z
        .object({
          n: z.number().int(),
          mean: z.number(),
          stddev: z.number(),
          z: z.number().nullable(),
          pValue: z.number(),
          verdict: z.enum(["regressed", "improved", "unchanged"]),
        })
        .nullable(),
    }),
  ),
  /** What fails the gate beside thresholds and validity. */
  gate: z.enum(["tolerance", "statistical", "both"]),
  /** Significance level of the statistical test. */
  alpha: z.number(),
  /** Change points (e-divisive means) in the history of head's branch up to head, newest per metric. */
  changePoints: z.array(
    z.object({
      metric: z.string(),
      label: z.string(),
      runId: z.string(),
      /** The run number where the new level starts. */
      runNumber: z.number().int(),
      before: z.number(),
      after: z.number(),
      /** `(after − before) / before`; null when before is 0. */
      change: z.number().nullable(),
      pValue: z.number(),
    }),
  ),
  /** Whether head is a valid measurement, and why not. */
  valid: z.boolean(),
  invalidReasons: z.array(z.string()),
  regressed: z.array(z.string()),
  improved: z.array(z.string()),
  /** Head's thresholds. */
  thresholds: ZRestThresholds,
  /**
   * Head succeeded, is valid (unless allowInvalid), passed its thresholds (not measured counts as a
   * failure unless allowNotMeasured) and regressed on no metric (by the tolerance and/or the statistical test).
   */
  passed: z.boolean(),
  /** Why it did not pass, one line each. */
  reasons: z.array(z.string()),
});
export type TRestCompareResult = z.infer<typeof ZRestCompareResult>;

export const ZRestTrendQuery = z.object({
  /** The project's id or slug. */
  project: z.string().trim().min(1, "project is required (its id or slug)").max(200),
  /** The scenario's name. */
  scenario: z.string().trim().min(1, "scenario is required (its name)").max(200),
  /** A metric key, e.g. latency_p99. */
  metric: z.string().trim().min(1, "metric is required, e.g. latency_p99").max(200),
  /** Only this branch (default: every branch, each its own line). */
  branch: z.string().trim().min(1).max(200).optional(),
  /** Only runs on this config, by its label (instance type or name, CPU limit), e.g. "t3.xlarge". */
  config: z.string().trim().min(1).max(200).optional(),
  /** Only runs of this load, by its label, e.g. "5,000 req/s · 60 s". */
  load: z.string().trim().min(1).max(200).optional(),
  /** Only runs split into this many shards. */
  shards: z.coerce
    .number({ error: "must be a whole number of shards" })
    .int("must be a whole number of shards")
    .min(1, "must be at least 1")
    .max(MAX_SHARDS, `must be at most ${MAX_SHARDS}`)
    .optional(),
});

export const ZRestTrend = z.object({
  project: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
  scenario: z.string(),
  metric: z.string(),
  branch: z.string().nullable(),
  /** The project's and the scenario's thresholds on this metric. */
  thresholds: z.array(ZThreshold),
  /** Succeeded runs of the scenario outside sweeps, oldest first; excluded runs are marked and kept off the line. */
  points: z.array(
    z.object({
      runId: z.string(),
      number: z.number().int(),
      branch: z.string().nullable(),
      commit: z.string().nullable(),
      at: ZIso,
      value: z.number().nullable(),
      excluded: z.boolean(),
    }),
  ),
  /** Change points per branch (e-divisive means), at the first run of each new level. */
  changePoints: z.array(
    z.object({
      runId: z.string(),
      runNumber: z.number().int(),
      branch: z.string().nullable(),
      before: z.number(),
      after: z.number(),
      change: z.number().nullable(),
      pValue: z.number(),
    }),
  ),
});
export type TRestTrend = z.infer<typeof ZRestTrend>;
