import { ENGINE_KINDS, HARD_LIMITS } from "@benchboard/core";
import { ZAgentId, ZAgentShard } from "@benchboard/core/importers/agent-body";
import { ZWorkerLabel } from "@benchboard/jobs";
import { z } from "zod";

// The bodies that carry a result are read on the parse pool, whose threads import their schemas
// from core; they are one source with the rest here.
export {
  MAX_AGENT_SERIES_POINTS,
  ZAgentCheckpointInput,
  ZAgentEngineResult,
  ZAgentResultInput,
} from "@benchboard/core/importers/agent-body";

/** What `benchboard agent` sends; every field bounded, as from any other client. */

const ZMs = z.number().finite().min(0).max(3.6e9);
const ZCount = z.number().finite().min(0).max(1e12);
const ZNullableMs = ZMs.nullable();

export const ZAgentAnnounceInput = z.object({
  name: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, "letters, digits, . _ - (at most 63)"),
  labels: z.array(ZWorkerLabel).min(1, "give at least one label").max(16, "at most 16 labels"),
  capacity: z.number().int().min(1).max(64).default(1),
  version: z.string().trim().max(40).default(""),
  /** The agent's own ceilings (`--max-rate`, `--max-connections`): it receives only runs within them. */
  maxRate: z.number().positive().max(HARD_LIMITS.maxRate).nullable().default(null),
  maxConnections: z.number().int().positive().max(HARD_LIMITS.maxConcurrency).nullable().default(null),
  /** Engines it runs (`--engine`); empty: every engine. */
  engines: z.array(z.enum(ENGINE_KINDS)).max(ENGINE_KINDS.length).default([]),
});

/** The announce's instance id: a newer process that announced the same name makes this one stale. */
const ZInstanceId = z.string().min(1).max(64).optional();

export const ZAgentClaimInput = z.object({
  agentId: ZAgentId,
  instanceId: ZInstanceId,
  /** How long to wait for work (long poll), seconds. */
  waitS: z.number().min(0).max(25).default(20),
  /** Runs the agent is executing now (shown on the Workers page). */
  activeRuns: z.number().int().min(0).max(64).default(0),
});

export const ZAgentStopInput = z.object({ agentId: ZAgentId, instanceId: ZInstanceId });

const ZShard = ZAgentShard;

export const ZAgentHeartbeatInput = z.object({ agentId: ZAgentId, shard: ZShard });

const ZLlmProgress = z.object({
  ttftP50Ms: ZNullableMs,
  ttftP99Ms: ZNullableMs,
  itlP50Ms: ZNullableMs,
  itlP99Ms: ZNullableMs,
  tokensPerS: z.number().finite().min(0).max(1e7).nullable(),
});

export const ZAgentProgress = z.object({
  elapsedMs: ZMs,
  fraction: z.number().min(0).max(1).nullable(),
  requests: ZCount,
  errors: ZCount,
  rps: z.number().finite().min(0).max(1e9),
  latencyP50Ms: ZNullableMs,
  latencyP99Ms: ZNullableMs,
  llm: ZLlmProgress.optional(),
});

export const ZAgentProgressInput = z.object({
  agentId: ZAgentId,
  shard: ZShard,
  progress: ZAgentProgress,
  /** Latest monitor readings (the lead only), e.g. `mem_bytes`. */
  monitors: z
    .record(z.string().max(80), z.number().finite().nullable())
    .refine((m) => Object.keys(m).length <= 64, "at most 64 monitor readings")
    .default({}),
});

export const ZAgentReadyInput = z.object({
  agentId: ZAgentId,
  shard: ZShard,
  /** What the target's config hook reported (the lead, when the target has one). */
  serverConfig: z
    .record(z.string().max(200), z.unknown())
    .refine((c) => JSON.stringify(c).length <= 64_000, "at most 64 kB")
    .nullable()
    .default(null),
});
