import { z } from "zod";
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
  });

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

export const ZScenarioSpec = z.discriminatedUnion("engine", [ZHttpOpenSpec, ZHttpClosedSpec, ZLlmSpec, ZWsChatSpec]);
export type TScenarioSpec = z.infer<typeof ZScenarioSpec>;
export type TScenarioSpecInput = z.input<typeof ZScenarioSpec>;
export type TEngineKind = TScenarioSpec["engine"];
export const ENGINE_KINDS = ["http-open", "http-closed", "llm", "ws-chat"] as const satisfies readonly TEngineKind[];

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
  }
}
