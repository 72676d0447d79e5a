import { z } from "zod";
import { isKnownMetric, METRICS } from "./metrics";
import { ZRecordKey } from "./record-keys";

/**
 * Scenario specs: what an engine runs. Stored as JSON on Scenario rows and snapshotted on runs;
 * validated here at every boundary (forms, REST, job payloads, the engines themselves).
 */

export const HARD_LIMITS = {
  maxRate: 100_000,
  maxConcurrency: 10_000,
  maxDurationS: 3_600,
  maxRequests: 10_000_000,
  maxUsers: 10_000,
} as const;

export const ZThreshold = z.object({
  metric: z.string().min(1, "metric is required"),
  op: z.enum(["<", "<=", ">", ">=", "=="]),
  value: z.number().finite(),
});
export type TThreshold = z.infer<typeof ZThreshold>;

/**
 * A metric key a threshold may name: one of the vocabulary, or a `stage.` / `custom.` key. The
 * JSON Schema states the same rule, so a document drawn from it is never refused for the key.
 */
export const ZMetricKey = z
  .string()
  .min(1, "metric is required")
  .max(200, "a metric key is at most 200 characters")
  .refine(isKnownMetric, "not a known metric (see the metric list, or use stage.<name> / custom.<name>)")
  .meta({ anyOf: [{ enum: METRICS.map((m) => m.key) }, { pattern: "^(stage|custom)\\." }] });

const ZHeaders = z.record(ZRecordKey, z.string()).default({});

export const ZRequestSpec = z.object({
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]).default("GET"),
  /** Path relative to the target's base URL (or an absolute URL on the same origin). */
  path: z.string().default("/"),
  headers: ZHeaders,
  body: z.string().optional(),
});
export type TRequestSpec = z.infer<typeof ZRequestSpec>;

export const ZPlanStep = z.object({
  name: z.string().min(1),
  request: ZRequestSpec,
  /** Store the response under this name for later steps (`{{ name.body.x }}`). */
  assign: z.string().optional(),
  /** Iterate the step over these values (`{{ item }}`). */
  withItems: z.array(z.union([z.string(), z.number()])).optional(),
  /** Pause before the step (once, before its first item). */
  delayMs: z.number().int().min(0).max(60_000).optional(),
  /** Pause after the step (e.g. a drill `delay` at the end of a plan). */
  delayAfterMs: z.number().int().min(0).max(60_000).optional(),
  /** Variables set before the request is built (drill's standalone `assign: {key, value}`). */
  set: z.record(ZRecordKey, z.string()).optional(),
  /** Checked after the response (and its `assign`); a mismatch counts as an `assert` error. */
  asserts: z
    .array(z.object({ key: z.string().min(1), value: z.union([z.string(), z.number(), z.boolean()]) }))
    .optional(),
  /** Shuffle `withItems` per iteration; `pick` keeps the first n after shuffling. */
  shuffle: z.boolean().optional(),
  pick: z.number().int().positive().optional(),
});
export type TPlanStep = z.infer<typeof ZPlanStep>;

export const ZHttpOpenSpec = z.object({
  engine: z.literal("http-open"),
  request: ZRequestSpec.default({ method: "GET", path: "/", headers: {} }),
  rate: z.number().positive().max(HARD_LIMITS.maxRate),
  /** Optional ramp: the rate grows linearly from `rampFromRate` over `rampS` seconds. */
  rampFromRate: z.number().min(0).max(HARD_LIMITS.maxRate).optional(),
  rampS: z.number().min(0).max(HARD_LIMITS.maxDurationS).optional(),
  durationS: z.number().positive().max(HARD_LIMITS.maxDurationS),
  maxConnections: z.number().int().positive().max(HARD_LIMITS.maxConcurrency).default(1_000),
  timeoutMs: z.number().int().positive().max(600_000).default(30_000),
  warmupS: z.number().min(0).max(60).default(1),
});

export const ZHttpClosedSpec = z
  .object({
    engine: z.literal("http-closed"),
    request: ZRequestSpec.default({ method: "GET", path: "/", headers: {} }),
    /** Multi-step plan (drill model); when present each iteration runs the whole plan. */
    plan: z.array(ZPlanStep).optional(),
    variables: z.record(ZRecordKey, z.string()).optional(),
    concurrency: z.number().int().positive().max(HARD_LIMITS.maxConcurrency),
    requests: z.number().int().positive().max(HARD_LIMITS.maxRequests).optional(),
    durationS: z.number().positive().max(HARD_LIMITS.maxDurationS).optional(),
    rampUpS: z.number().min(0).max(HARD_LIMITS.maxDurationS).default(0),
    timeoutMs: z.number().int().positive().max(600_000).default(10_000),
  })
  .refine((s) => s.requests !== undefined || s.durationS !== undefined, {
    message: "either requests or durationS is required",
    path: ["requests"],
  })
  .meta({ anyOf: [{ required: ["requests"] }, { required: ["durationS"] }] });

export const ZLlmSpec = z.object({
  engine: z.literal("llm"),
  path: z.string().default("/v1/chat/completions"),
  model: z.string().min(1).default("gpt-4o-mini"),
  /** `{{nonce}}`, `{{index}}` and `{{timestamp}}` are filled in per request. */
  promptTemplate: z.string().min(1).default("#{{index}} {{timestamp}} {{nonce}} Say hello."),
  maxTokens: z.number().int().positive().max(32_768).default(150),
  stream: z.boolean().default(false),
  rate: z.number().positive().max(HARD_LIMITS.maxRate),
  durationS: z.number().positive().max(HARD_LIMITS.maxDurationS),
  maxConnections: z.number().int().positive().max(HARD_LIMITS.maxConcurrency).default(1_000),
  timeoutMs: z.number().int().positive().max(600_000).default(300_000),
  /** Seconds of the same requests, not measured, to open and warm connections first. */
  warmupS: z.number().min(0).max(60).default(1),
  headers: ZHeaders,
});

export const ZWsChatSpec = z.object({
  engine: z.literal("ws-chat"),
  path: z.string().default("/ws"),
  users: z.number().int().positive().max(HARD_LIMITS.maxUsers),
  rooms: z.number().int().positive().max(HARD_LIMITS.maxUsers),
  messagesPerUser: z.number().int().min(0).max(100_000),
  /** Caps concurrent connection setup. */
  poolSize: z.number().int().positive().max(HARD_LIMITS.maxConcurrency).default(50),
  messageIntervalMs: z.number().int().min(0).max(60_000).default(0),
  messageBytes: z.number().int().min(1).max(1_000_000).default(64),
  /** How long to wait for outstanding deliveries after the last send. */
  drainTimeoutMs: z.number().int().positive().max(600_000).default(10_000),
  /** A connection that has not been accepted and joined within this time counts as failed. */
  connectTimeoutMs: z.number().int().positive().max(600_000).default(10_000),
  /**
   * With `endsAfter: "messages"` the most the run may last (sending stops there); with
   * `endsAfter: "duration"` how long it lasts.
   */
  durationS: z.number().positive().max(HARD_LIMITS.maxDurationS).default(300),
  /**
   * How a chat run ends. `messages`: each user sends `messagesPerUser` messages, one per
   * interval, and the run ends once they are delivered (or at `durationS`, whichever is first).
   * `duration`: the run lasts `durationS`; users keep sending, one message per interval (as fast
   * as the rate ceiling allows at 0), until it ends, so the message count follows from the
   * duration and `messagesPerUser` is not used.
   */
  endsAfter: z.enum(["messages", "duration"]).default("messages"),
  /**
   * Set on a shard's spec only: the shard's rooms and users are numbered from these, so shards of
   * one run use distinct rooms and user ids (see planShards).
   */
  firstRoom: z.number().int().min(0).max(HARD_LIMITS.maxUsers).optional(),
  firstUser: z.number().int().min(0).max(HARD_LIMITS.maxUsers).optional(),
});

/** The service level a capacity search holds each plateau to. */
export const ZCapacitySlo = z.object(
  {
    /** The p99 latency a sustained rate may not exceed, ms. */
    p99Ms: z
      .number({ error: "p99Ms is required: the p99 latency (ms) a sustained rate may not exceed" })
      .positive("p99Ms must be above 0")
      .max(600_000, "p99Ms is at most 600,000 ms"),
    /** The share of failed requests a sustained rate may not exceed, %. */
    errorRatePct: z
      .number({ error: "errorRatePct must be a number (percent)" })
      .min(0, "errorRatePct is at least 0")
      .max(100, "errorRatePct is at most 100")
      .default(1),
  },
  { error: "slo is required: { p99Ms, errorRatePct }" },
);
export type TCapacitySlo = z.infer<typeof ZCapacitySlo>;

/** The search's own settings, shared by the scenario kind and a launch's `findCapacity`. */
export const CAPACITY_SEARCH_FIELDS = {
  slo: ZCapacitySlo,
  /** The rate range searched, req/s: the first plateau runs at `minRate`, none above `maxRate`. */
  minRate: z
    .number({ error: "minRate is required (req/s): the first plateau's rate" })
    .positive("minRate must be above 0")
    .max(HARD_LIMITS.maxRate),
  maxRate: z
    .number({ error: "maxRate is required (req/s): no plateau goes above it" })
    .positive("maxRate must be above 0")
    .max(HARD_LIMITS.maxRate),
  /** Each stepping plateau multiplies the rate by this until one fails. */
  stepFactor: z.number().min(1.1, "stepFactor is at least 1.1").max(10, "stepFactor is at most 10").default(2),
  /** Bisection stops once the bracket [last good, first bad] is narrower than this share of the good rate, %. */
  resolutionPct: z.number().min(1, "resolutionPct is at least 1").max(50, "resolutionPct is at most 50").default(5),
  /** Measured seconds per plateau. */
  plateauS: z.number().min(2, "plateauS is at least 2 s").max(600, "plateauS is at most 600 s").default(10),
  /** Unmeasured seconds at each plateau's rate before it is measured. */
  warmupS: z.number().min(0).max(60, "warmupS is at most 60 s").default(2),
} as const;

/** The range must be a range: a minimum above the maximum is refused, naming minRate. */
export function checkCapacityRange(
  s: { minRate?: number; maxRate?: number },
  ctx: z.RefinementCtx,
  prefix: string[] = [],
) {
  if (s.minRate !== undefined && s.maxRate !== undefined && s.minRate > s.maxRate) {
    ctx.addIssue({
      code: "custom",
      message: `minRate (${s.minRate}) is above maxRate (${s.maxRate})`,
      path: [...prefix, "minRate"],
    });
  }
}

/**
 * Capacity search: plateaus of the open model (http-open) at stepped, then bisected rates until
 * the knee, judged against an SLO; one run stores the sustainable rate and every plateau.
 */
export const ZCapacitySearchSpec = z
  .object({
    engine: z.literal("capacity-search"),
    request: ZRequestSpec.default({ method: "GET", path: "/", headers: {} }),
    ...CAPACITY_SEARCH_FIELDS,
    maxConnections: z.number().int().positive().max(HARD_LIMITS.maxConcurrency).default(1_000),
    timeoutMs: z.number().int().positive().max(60_000).default(10_000),
  })
  .superRefine((s, ctx) => checkCapacityRange(s, ctx));

export const ZScenarioSpec = z.discriminatedUnion("engine", [
  ZHttpOpenSpec,
  ZHttpClosedSpec,
  ZLlmSpec,
  ZWsChatSpec,
  ZCapacitySearchSpec,
]);
export type TScenarioSpec = z.infer<typeof ZScenarioSpec>;
export type TCapacitySearchSpec = z.infer<typeof ZCapacitySearchSpec>;
export type TScenarioSpecInput = z.input<typeof ZScenarioSpec>;
export type TEngineKind = TScenarioSpec["engine"];
export const ENGINE_KINDS = [
  "http-open",
  "http-closed",
  "llm",
  "ws-chat",
  "capacity-search",
] as const satisfies readonly TEngineKind[];

/** Rough load estimate shown before launch: requests (or messages) and duration. */
export function estimateLoad(spec: TScenarioSpec): { requests: number | null; durationS: number | null } {
  switch (spec.engine) {
    case "http-open":
    case "llm":
      return { requests: Math.round(spec.rate * spec.durationS), durationS: spec.durationS };
    case "http-closed": {
      const steps = spec.plan?.length ?? 1;
      return {
        requests: spec.requests !== undefined ? spec.requests * steps : null,
        durationS: spec.durationS ?? null,
      };
    }
    case "ws-chat":
      if (spec.endsAfter === "duration") {
        const perUser =
          spec.messageIntervalMs > 0 ? Math.floor((spec.durationS * 1000) / spec.messageIntervalMs) : null;
        return { requests: perUser !== null ? spec.users * perUser : null, durationS: spec.durationS };
      }
      return { requests: spec.users * spec.messagesPerUser, durationS: null };
    case "capacity-search": {
      const plan = capacitySearchBounds(spec);
      return { requests: Math.round(plan.maxRequests), durationS: plan.maxDurationS };
    }
  }
}

/**
 * The most a capacity search can ask, judged before it starts: its plateaus (stepping to the
 * maximum, then bisecting where every midpoint fails, and one plateau run again after the
 * generator distorted it), their total time with warm-ups, and the requests at those rates.
 */
export function capacitySearchBounds(
  spec: Pick<TCapacitySearchSpec, "minRate" | "maxRate" | "stepFactor" | "resolutionPct" | "plateauS" | "warmupS">,
): { plateaus: number; maxDurationS: number; maxRequests: number } {
  let plateaus = 1;
  let requests = spec.minRate * (spec.plateauS + spec.warmupS);
  let rate = spec.minRate;
  while (rate < spec.maxRate && plateaus < 200) {
    rate = Math.min(rate * spec.stepFactor, spec.maxRate);
    plateaus++;
    requests += rate * (spec.plateauS + spec.warmupS);
  }
  // Bisection's worst case: every midpoint fails, halving the bracket relative to the good rate.
  let gap = spec.stepFactor - 1;
  while (gap >= spec.resolutionPct / 100 && plateaus < 200) {
    gap /= 2;
    plateaus++;
    requests += spec.maxRate * (spec.plateauS + spec.warmupS);
  }
  // One plateau the generator distorted is run again.
  plateaus++;
  requests += spec.maxRate * (spec.plateauS + spec.warmupS);
  return { plateaus, maxDurationS: plateaus * (spec.plateauS + spec.warmupS), maxRequests: requests };
}
