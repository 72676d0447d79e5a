import {
  DEFAULT_BASELINE_RUNS,
  DEFAULT_GATE_ALPHA,
  MAX_SHARDS,
  MAX_TOLERANCE_PCT,
  ZCapacitySearchSummary,
  ZErrorEntry,
  ZLaunchOverrides,
  ZStageStat,
  ZThreshold,
  ZToolThresholdVerdict,
} from "@benchboard/core";
import { ZNormalizedRun } from "@benchboard/core/importers";
import { z } from "zod";
import { refuseShardedCapacitySearch, ZLaunchRunInput } from "../routers/run";
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
export const ZRestUploadEnvelopeFields = ZUploadRunInput.omit({ content: true, idempotencyKey: true }).extend({
  content: z.string().min(1, "the uploaded content is empty").optional(),
});

/** The envelope's rule on `content` and `run`, said the same way wherever it is checked. */
export const ENVELOPE_ONE_OF =
  "send exactly one of content (the tool's output as text) or run (a Benchboard run as JSON)";

export const ZRestUploadEnvelope = ZRestUploadEnvelopeFields.extend({
  run: ZNormalizedRun.optional(),
}).refine((e) => (e.content === undefined) !== (e.run === undefined), {
  message: ENVELOPE_ONE_OF,
  path: ["content"],
});
export type TRestUploadEnvelope = z.infer<typeof ZRestUploadEnvelope>;

export const ZRestLaunchInput = z
  .object({
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
    /**
     * Queue the run even when no online agent offers its label (an agent about to start); without
     * it such a launch is refused with 409. A queued run no agent takes ends failed after the give-up time.
     */
    queueWithoutAgent: z.boolean({ error: "queueWithoutAgent: must be true or false" }).optional(),
    /** Override the scenario's arrival rate (req/s) for this launch; within the organization's caps. */
    rate: ZLaunchOverrides.shape.rate,
    /** Override the concurrency (closed-model users, or an open model's connection pool). */
    concurrency: ZLaunchOverrides.shape.concurrency,
    /** Override the duration in seconds (a closed model then ends by time, not request count). */
    durationS: ZLaunchOverrides.shape.durationS,
    /**
     * Run this open-model scenario as a capacity search: plateaus at rates stepped from `minRate`
     * (×`stepFactor`) and then bisected until the knee is bracketed within `resolutionPct`, each
     * `plateauS` long after `warmupS`, judged against `slo` (p99 ≤ `p99Ms`, errors ≤
     * `errorRatePct` %). One run stores the sustainable rate, every plateau and why it stopped
     * (`capacitySearch` on the run). Runs on one worker or agent: `shards` must be 1.
     */
    findCapacity: ZLaunchRunInput.shape.findCapacity,
  })
  .superRefine((input, ctx) => refuseShardedCapacitySearch(input, ctx));
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
  /**
   * What makes a metric a regression: `noise` (beyond the tolerance and beyond the baseline's own
   * noise), `tolerance` (beyond the tolerance alone, e.g. against one run) or `statistical`
   * (beyond the noise alone).
   */
  gate: z
    .enum(["noise", "tolerance", "statistical"], { error: "must be noise, tolerance or statistical" })
    .default("noise"),
  /** How many of base's branch's latest runs make the baseline; fewer make the gate inconclusive. */
  history: z.coerce
    .number({ error: "must be a whole number of runs" })
    .int("must be a whole number of runs")
    .min(1, "must be at least 1 run")
    .max(100, "must be at most 100 runs")
    .default(DEFAULT_BASELINE_RUNS),
  /** One-sided level of the noise bound: how often a run of unchanged code may land beyond it. */
  alpha: z.coerce
    .number({ error: "must be a number between 0 and 0.5" })
    .gt(0, "must be above 0")
    .max(0.5, "must be at most 0.5")
    .default(DEFAULT_GATE_ALPHA),
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
  /**
   * What ran, as the web app titles the run: "Run #24 · 400 req/s · 20 s · t3.xlarge · rate = 400
   * (value 3 of 4) · repetition 1 of 2". The scenario's name may describe other load.
   */
  title: z.string(),
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
      saturationReasons: z.array(z.string()),
    })
    .nullable(),
  thresholds: ZRestThresholds.nullable(),
  /** False when the load generator distorted the measurement (late sends, its CPU spent, …); null before results. */
  valid: z.boolean().nullable(),
  /**
   * How the figures read: `valid`; `saturated` (still valid: the target was the limit, see
   * `saturation`); `invalid` (the generator distorted them, see `invalidReasons`). Null before results.
   */
  reading: z.enum(["valid", "saturated", "invalid"]).nullable(),
  /** "saturated at ~N req/s achieved of M offered" when the target was the limit, else null. */
  saturation: z.string().nullable(),
  /** Why the measurement is not valid, one line each: the generator's reasons first. */
  invalidReasons: z.array(z.string()),
  /** The target's own reasons for being the limit, one line each. */
  saturationReasons: z.array(z.string()),
  /**
   * A capacity search's answer: the sustainable rate, the bracket [last good, first bad] with how
   * many plateaus agree, why it stopped, and every plateau (offered, achieved, p50/p99, error
   * rate, reading, verdict). Null for any other run.
   */
  capacitySearch: ZCapacitySearchSummary.nullable(),
  /**
   * A queued agent run: the label it waits for, how many agents offering it are online, when one
   * was last seen (null: never), and `message` ("waiting for an agent labelled lab (none online
   * since …)"). Null for any other run.
   */
  waitingFor: z
    .object({
      agentLabel: z.string(),
      agentsOnline: z.number().int(),
      lastSeenAt: ZIso.nullable(),
      message: z.string(),
    })
    .nullable(),
  /**
   * Where the run went: `runsOn` (`agent` or `worker`), the `label` it was launched for, and per
   * shard — one for an unsharded run, numbered from 1 — its status and the agent that took it
   * (`worker`: the install worker's id, shown to the install's own organization only). `agents`
   * lists every agent that took part. Null for a run that was not launched here (an upload, an
   * import, a run a client drove).
   */
  placement: z
    .object({
      runsOn: z.enum(["agent", "worker"]),
      label: z.string().nullable(),
      shardCount: z.number().int().min(1),
      shards: z.array(
        z.object({
          shard: z.number().int().min(1),
          status: ZRunStatus,
          agent: z.string().nullable(),
          worker: z.string().nullable(),
          error: z.string().nullable(),
        }),
      ),
      agents: z.array(z.string()),
    })
    .nullable(),
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
  title: true,
  git: true,
  endedAt: true,
  valid: true,
  reading: true,
  saturation: true,
  invalidReasons: true,
});

export const ZRestCompareResult = z.object({
  /** The baseline's newest run. */
  base: ZRestRunSummary,
  head: ZRestRunSummary,
  /** The runs head was judged against: a branch's last runs of head's scenario and config, or one run. */
  baseline: z.object({
    /** The branch, or null when base named one run. */
    branch: z.string().nullable(),
    /** Runs the baseline needs; fewer make the outcome inconclusive (unless gate=tolerance). */
    required: z.number().int(),
    /** Oldest first. */
    runs: z.array(z.object({ id: z.string(), number: z.number().int() })),
  }),
  tolerancePct: z.number(),
  metrics: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      unit: z.string(),
      direction: z.enum(["lower", "higher", "neutral"]),
      /** The baseline runs' median (the one run's value against a run). */
      base: z.number().nullable(),
      head: z.number().nullable(),
      /** `(head − base) / base` as a fraction; null when undefined. */
      delta: z.number().nullable(),
      /**
       * `noise`: beyond the tolerance but inside the baseline's noise band; `inconclusive`: beyond
       * the tolerance with too few baseline runs to know their noise; `incomparable`: a side lacks it.
       */
      verdict: z.enum(["regressed", "improved", "unchanged", "noise", "inconclusive", "incomparable"]),
      /** The baseline's noise band (one-sided prediction bounds at alpha); null under 3 baseline runs. */
      noise: z
        .object({
          n: z.number().int(),
          scale: z.enum(["log", "linear"]),
          center: z.number(),
          low: z.number(),
          high: z.number(),
          /** Probability that one more baseline run is at least as bad as head; null without a direction. */
          pWorse: z.number().nullable(),
        })
        .nullable(),
      /** Why the verdict is not a plain one, in words. */
      note: z.string().optional(),
    }),
  ),
  gate: z.enum(["noise", "tolerance", "statistical"]),
  /** One-sided level of the noise bound. */
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
   * `fail`: head failed, is not valid (unless allowInvalid), failed or did not measure a threshold
   * (unless allowNotMeasured), or regressed. `inconclusive`: none of that, but the gate could not
   * judge (too few baseline runs, a metric a side lacks, an invalid base run). `pass` otherwise.
   */
  outcome: z.enum(["pass", "fail", "inconclusive"]),
  /** `outcome` is `pass`. */
  passed: z.boolean(),
  /** Why it failed, one line each. */
  reasons: z.array(z.string()),
  /** Why it could not judge, one line each. */
  inconclusiveReasons: z.array(z.string()),
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
