import { z } from "zod";
import { HARD_LIMITS, type TScenarioSpec } from "./scenario";

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
} as const;

export const ZOrgCaps = z.object({
  /** Requests (or messages) per second, at the peak of any ramp. */
  maxRate: z.number().positive().max(HARD_LIMITS.maxRate).default(DEFAULT_ORG_CAPS.maxRate),
  /** Concurrent connections (closed-model concurrency, open-model connection pool, chat users). */
  maxConnections: z.number().int().positive().max(HARD_LIMITS.maxConcurrency).default(DEFAULT_ORG_CAPS.maxConnections),
  maxDurationS: z.number().positive().max(HARD_LIMITS.maxDurationS).default(DEFAULT_ORG_CAPS.maxDurationS),
  /** Runs queued or running at once; repetitions of one launch run back to back and count once. */
  maxConcurrentRuns: z.number().int().positive().max(1_000).default(DEFAULT_ORG_CAPS.maxConcurrentRuns),
});
export type TOrgCaps = z.infer<typeof ZOrgCaps>;

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
    const specField = spec.engine === "ws-chat" ? "messageIntervalMs" : "rate";
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
    out.push({
      cap: "maxDurationS",
      specField: "durationS",
      message: `runs for ${fmt(peak.durationS)} s; the organization allows at most ${fmt(caps.maxDurationS)} s`,
    });
  }
  return out;
}
