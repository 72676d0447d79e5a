import { z } from "zod";

/**
 * The parts of REST /api/v1's answers the CLI reads (the server's OpenAPI document at
 * /api/v1/openapi.json has the full shapes). Unknown fields are ignored, so the server can grow.
 */

export type TThresholdStatus = "pass" | "fail" | "not_measured";

export const ZThresholds = z.object({
  passed: z.boolean(),
  verdicts: z.array(
    z.object({
      metric: z.string(),
      op: z.string(),
      value: z.number(),
      actual: z.number().nullable(),
      /** Absent from servers that predate "not measured": derived from `passed` and `actual`. */
      status: z.enum(["pass", "fail", "not_measured"]).optional(),
      passed: z.boolean(),
      source: z.string(),
      note: z.string().optional(),
    }),
  ),
  tool: z.array(z.object({ metric: z.string(), expression: z.string(), passed: z.boolean() })),
});
export type TThresholds = z.infer<typeof ZThresholds>;

const ZGit = z.object({ branch: z.string().nullable(), commit: z.string().nullable(), ciUrl: z.string().nullable() });

export const ZRun = z.object({
  id: z.string(),
  number: z.number(),
  url: z.string(),
  project: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
  status: z.enum(["queued", "running", "succeeded", "failed", "canceled"]),
  source: z.string(),
  scenario: z.object({ id: z.string().nullable(), name: z.string() }),
  /** "Run #24 · 400 req/s · 20 s · rate = 400 (value 3 of 4)": what ran; absent from older servers. */
  title: z.string().optional(),
  git: ZGit,
  error: z.string().nullable(),
  progress: z.record(z.string(), z.unknown()).nullable(),
  result: z.object({ metrics: z.record(z.string(), z.number()) }).nullable(),
  thresholds: ZThresholds.nullable(),
  /** False when the engine flagged the measurement as unsound; null or absent before results. */
  valid: z.boolean().nullable().optional(),
  invalidReasons: z.array(z.string()).optional(),
  /** valid, saturated (the target was the limit; still valid) or invalid; absent from older servers. */
  reading: z.enum(["valid", "saturated", "invalid"]).nullable().optional(),
  /** "saturated at ~N req/s achieved of M offered" for a saturated run. */
  saturation: z.string().nullable().optional(),
  /** A capacity search's answer and why it stopped; absent from older servers, null for other runs. */
  capacitySearch: z
    .object({
      statement: z.string(),
      sustainableRps: z.number().nullable(),
      stop: z.object({ kind: z.string(), message: z.string() }),
    })
    .nullable()
    .optional(),
  /** A queued agent run: which agents it waits for ("waiting for an agent labelled lab (2 online)"). */
  waitingFor: z.object({ message: z.string() }).nullable().optional(),
  /** Where the run went: its label, and per shard (from 1) the agent that took it; absent from older servers. */
  placement: z
    .object({
      runsOn: z.enum(["agent", "worker"]),
      label: z.string().nullable(),
      shardCount: z.number(),
      shards: z.array(
        z.object({
          shard: z.number(),
          status: z.string(),
          agent: z.string().nullable(),
          worker: z.string().nullable(),
          error: z.string().nullable(),
        }),
      ),
      agents: z.array(z.string()),
    })
    .nullable()
    .optional(),
});
export type TRun = z.infer<typeof ZRun>;

export const ZUploadResult = z.object({ created: z.boolean(), run: ZRun });
export const ZLaunchResult = z.object({ run: ZRun, groupRunIds: z.array(z.string()), created: z.boolean().optional() });

const ZRunSummary = ZRun.pick({
  id: true,
  number: true,
  url: true,
  status: true,
  scenario: true,
  title: true,
  git: true,
  project: true,
  reading: true,
  saturation: true,
});

export const ZCompareOutcome = z.enum(["pass", "fail", "inconclusive"]);
export type TCompareOutcome = z.infer<typeof ZCompareOutcome>;

export const ZCompareResult = z.object({
  base: ZRunSummary,
  head: ZRunSummary,
  /** Absent from servers that compared against one run only. */
  baseline: z
    .object({
      branch: z.string().nullable(),
      required: z.number(),
      runs: z.array(z.object({ id: z.string(), number: z.number() })),
    })
    .optional(),
  tolerancePct: z.number(),
  metrics: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      base: z.number().nullable(),
      head: z.number().nullable(),
      delta: z.number().nullable(),
      verdict: z.enum(["regressed", "improved", "unchanged", "noise", "inconclusive", "incomparable"]),
      noise: z
        .object({
          n: z.number(),
          scale: z.enum(["log", "linear"]),
          low: z.number(),
          high: z.number(),
          pWorse: z.number().nullable(),
        })
        .nullable()
        .optional(),
      note: z.string().optional(),
    }),
  ),
  regressed: z.array(z.string()),
  improved: z.array(z.string()),
  thresholds: ZThresholds,
  gate: z.string().optional(),
  alpha: z.number().optional(),
  changePoints: z
    .array(
      z.object({
        metric: z.string(),
        label: z.string(),
        runId: z.string(),
        runNumber: z.number(),
        change: z.number().nullable(),
        pValue: z.number(),
      }),
    )
    .optional(),
  valid: z.boolean().optional(),
  invalidReasons: z.array(z.string()).optional(),
  /** Servers before the three outcomes send `passed` only. */
  outcome: ZCompareOutcome.optional(),
  passed: z.boolean(),
  reasons: z.array(z.string()),
  inconclusiveReasons: z.array(z.string()).optional(),
});
export type TCompareResult = z.infer<typeof ZCompareResult>;

/** The gate's outcome, read from servers with and without `outcome`. */
export function compareOutcome(result: Pick<TCompareResult, "outcome" | "passed">): TCompareOutcome {
  return result.outcome ?? (result.passed ? "pass" : "fail");
}

export const TERMINAL_STATUSES: ReadonlySet<TRun["status"]> = new Set(["succeeded", "failed", "canceled"]);
