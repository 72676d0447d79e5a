import { z } from "zod";
import { capacitySearchBounds, HARD_LIMITS, type TScenarioSpec } from "./scenario";

/**
 * An organization's caps on launched load (`Organization.caps`). A load tester that can be
 * pointed anywhere at any rate is an attack tool: every launch is checked against these before
 * anything is queued. Missing keys take the defaults; the hard limits bound them all.
 */
export const DEFAULT_ORG_CAPS = {
  maxRate: 10_000,
  maxConnections: 2_000,
  maxDurationS: 1_800,
  maxConcurrentRuns: 4,
  maxWorkerSlots: 64,
} as const;

/**
 * Caps a self-serve organization starts with when the operator sets none
 * (`BENCHBOARD_DEFAULT_MAX_*`): enough to try the product, not enough to hurt anyone.
 */
export const SELF_SERVE_CAPS = {
  maxRate: 1_000,
  maxConnections: 200,
  maxDurationS: 300,
  maxConcurrentRuns: 2,
  maxWorkerSlots: 4,
} as const;

export const ZOrgCaps = z.object({
  /** Requests (or messages) per second, at the peak of any ramp. */
  maxRate: z.number().positive().max(HARD_LIMITS.maxRate).default(DEFAULT_ORG_CAPS.maxRate),
  /** Concurrent connections (closed-model concurrency, open-model connection pool, chat users). */
  maxConnections: z.number().int().positive().max(HARD_LIMITS.maxConcurrency).default(DEFAULT_ORG_CAPS.maxConnections),
  maxDurationS: z.number().positive().max(HARD_LIMITS.maxDurationS).default(DEFAULT_ORG_CAPS.maxDurationS),
  /** Runs queued or running at once; repetitions of one launch run back to back and count once. */
  maxConcurrentRuns: z.number().int().positive().max(1_000).default(DEFAULT_ORG_CAPS.maxConcurrentRuns),
  /** Worker slots held at once: a run split into 64 shards holds 64. */
  maxWorkerSlots: z.number().int().positive().max(10_000).default(DEFAULT_ORG_CAPS.maxWorkerSlots),
});
export type TOrgCaps = z.infer<typeof ZOrgCaps>;

/** Some caps, none filled in: what an operator changes. */
export const ZOrgCapsPatch = z.object({
  maxRate: z.number({ error: "must be a number" }).positive("must be above 0").max(HARD_LIMITS.maxRate).optional(),
  maxConnections: z
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .positive("must be above 0")
    .max(HARD_LIMITS.maxConcurrency)
    .optional(),
  maxDurationS: z
    .number({ error: "must be a number" })
    .positive("must be above 0")
    .max(HARD_LIMITS.maxDurationS)
    .optional(),
  maxConcurrentRuns: z
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .positive("must be above 0")
    .max(1_000)
    .optional(),
  maxWorkerSlots: z
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .positive("must be above 0")
    .max(10_000)
    .optional(),
});

/** Caps from the stored JSON; a malformed value falls back to the default for that key only. */
export function resolveOrgCaps(stored: unknown): TOrgCaps {
  const raw = stored && typeof stored === "object" ? (stored as Record<string, unknown>) : {};
  const caps: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULT_ORG_CAPS) as (keyof TOrgCaps)[]) {
    const one = ZOrgCaps.shape[key].safeParse(raw[key]);
    caps[key] = one.success ? one.data : DEFAULT_ORG_CAPS[key];
  }
  return caps as TOrgCaps;
}

/**
 * The most a scenario asks of the target: peak rate (null when the engine does not pace),
 * connections, and planned duration (null when it ends by count, e.g. a fixed request count).
 */
export interface PeakLoad {
  rate: number | null;
  connections: number;
  durationS: number | null;
}

export function peakLoad(spec: TScenarioSpec): PeakLoad {
  switch (spec.engine) {
    case "http-open":
      return {
        rate: Math.max(spec.rate, spec.rampFromRate ?? 0),
        connections: spec.maxConnections,
        durationS: spec.durationS + spec.warmupS,
      };
    case "llm":
      return { rate: spec.rate, connections: spec.maxConnections, durationS: spec.durationS };
    case "http-closed":
      return { rate: null, connections: spec.concurrency, durationS: spec.durationS ?? null };
    case "ws-chat":
      return {
        rate: spec.messageIntervalMs > 0 ? (spec.users * 1000) / spec.messageIntervalMs : null,
        connections: spec.users,
        durationS: spec.durationS,
      };
    case "capacity-search":
      // Checked up front against the worst case: every step to the maximum, then every bisection.
      return {
        rate: spec.maxRate,
        connections: spec.maxConnections,
        durationS: capacitySearchBounds(spec).maxDurationS,
      };
  }
}

export interface CapViolation {
  cap: keyof TOrgCaps;
  /** Path in the scenario spec that asks for too much, e.g. `rate` or `concurrency`. */
  specField: string;
  message: string;
}

const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 1 });

/** Every way a scenario exceeds the caps, with a message a user can act on. */
export function checkScenarioCaps(spec: TScenarioSpec, caps: TOrgCaps): CapViolation[] {
  const peak = peakLoad(spec);
  const out: CapViolation[] = [];
  if (peak.rate !== null && peak.rate > caps.maxRate) {
    const specField =
      spec.engine === "ws-chat" ? "messageIntervalMs" : spec.engine === "capacity-search" ? "maxRate" : "rate";
    out.push({
      cap: "maxRate",
      specField,
      message: `asks for ${fmt(peak.rate)} req/s; the organization allows at most ${fmt(caps.maxRate)} req/s`,
    });
  }
  if (peak.connections > caps.maxConnections) {
    const specField =
      spec.engine === "http-closed" ? "concurrency" : spec.engine === "ws-chat" ? "users" : "maxConnections";
    out.push({
      cap: "maxConnections",
      specField,
      message: `opens up to ${fmt(peak.connections)} connections; the organization allows at most ${fmt(caps.maxConnections)}`,
    });
  }
  if (peak.durationS !== null && peak.durationS > caps.maxDurationS) {
    const search = spec.engine === "capacity-search" ? capacitySearchBounds(spec) : null;
    out.push({
      cap: "maxDurationS",
      specField: search ? "plateauS" : "durationS",
      message: search
        ? `may run for up to ${fmt(peak.durationS)} s (${search.plateaus} plateaus of ${fmt(spec.engine === "capacity-search" ? spec.plateauS + spec.warmupS : 0)} s with warm-up); the organization allows at most ${fmt(caps.maxDurationS)} s: shorten the plateaus, narrow the range or coarsen the resolution`
        : `runs for ${fmt(peak.durationS)} s; the organization allows at most ${fmt(caps.maxDurationS)} s`,
    });
  }
  return out;
}

/**
 * What one launch holds while it runs, counted against `maxConcurrentRuns` and `maxWorkerSlots`.
 * Repetitions and sweep values run back to back as one chain, so the chain is one run at a time;
 * every shard of that run is a worker slot of its own.
 */
export interface LaunchDemand {
  shards?: number;
  repetitions?: number;
  sweepValues?: number;
}

export function launchFootprint(demand: LaunchDemand): { runs: number; workerSlots: number; queuedRuns: number } {
  const whole = (n: number | undefined) => Math.max(1, Math.floor(n ?? 1));
  const shards = whole(demand.shards);
  return {
    runs: 1,
    workerSlots: shards,
    queuedRuns: whole(demand.repetitions) * whole(demand.sweepValues),
  };
}

/** Why a launch does not fit beside what the organization already has queued or running, or null. */
export function checkLaunchFootprint(
  active: { runs: number; workerSlots: number },
  demand: LaunchDemand,
  caps: Pick<TOrgCaps, "maxConcurrentRuns" | "maxWorkerSlots">,
): CapViolation | null {
  const want = launchFootprint(demand);
  if (active.runs + want.runs > caps.maxConcurrentRuns) {
    return {
      cap: "maxConcurrentRuns",
      specField: "maxConcurrentRuns",
      message: `${active.runs} run${active.runs === 1 ? " is" : "s are"} already queued or running; the organization allows ${caps.maxConcurrentRuns} at a time`,
    };
  }
  if (active.workerSlots + want.workerSlots > caps.maxWorkerSlots) {
    return {
      cap: "maxWorkerSlots",
      specField: "shards",
      message: `needs ${fmt(want.workerSlots)} worker slot${want.workerSlots === 1 ? "" : "s"} (one per shard) with ${fmt(active.workerSlots)} in use; the organization may hold ${fmt(caps.maxWorkerSlots)} at a time`,
    };
  }
  return null;
}
