import { capacitySearchBounds, HARD_LIMITS, type TScenarioSpec } from "@benchboard/core";
import { EngineConfigError, type EngineContext, type EngineLimits } from "./types";

/** The tighter of the hard limits and the caps the caller passes (e.g. the organization's). */
export function effectiveLimits(ctx: EngineContext): EngineLimits {
  const caps = ctx.limits ?? {};
  const pick = (hard: number, cap: number | undefined) => (cap !== undefined && cap < hard ? cap : hard);
  return {
    maxRate: pick(HARD_LIMITS.maxRate, caps.maxRate),
    maxConcurrency: pick(HARD_LIMITS.maxConcurrency, caps.maxConcurrency),
    maxDurationS: pick(HARD_LIMITS.maxDurationS, caps.maxDurationS),
    maxRequests: pick(HARD_LIMITS.maxRequests, caps.maxRequests),
    maxUsers: pick(HARD_LIMITS.maxUsers, caps.maxUsers),
  };
}

/**
 * Refuse a spec beyond the limits before anything is sent. The zod schemas hold the hard limits
 * too, but engines are also called directly, and caps can be tighter than the schema's.
 */
export function enforceLimits(spec: TScenarioSpec, ctx: EngineContext): EngineLimits {
  const limits = effectiveLimits(ctx);
  const check = (field: string, value: number | undefined, max: number, what: string) => {
    if (value === undefined) return;
    if (!Number.isFinite(value) || value < 0) throw new EngineConfigError(field, `must be a non-negative number`);
    if (value > max) throw new EngineConfigError(field, `${value} is above the limit of ${max} ${what}`);
  };
  switch (spec.engine) {
    case "http-open":
      check("rate", spec.rate, limits.maxRate, "req/s");
      check("rampFromRate", spec.rampFromRate, limits.maxRate, "req/s");
      check("maxConnections", spec.maxConnections, limits.maxConcurrency, "connections");
      check("durationS", spec.durationS + spec.warmupS, limits.maxDurationS, "seconds (warm-up included)");
      break;
    case "http-closed":
      check("concurrency", spec.concurrency, limits.maxConcurrency, "connections");
      check("durationS", spec.durationS, limits.maxDurationS, "seconds");
      check("requests", spec.requests, limits.maxRequests, "requests");
      break;
    case "llm":
      check("rate", spec.rate, limits.maxRate, "req/s");
      check("maxConnections", spec.maxConnections, limits.maxConcurrency, "connections");
      check("durationS", spec.durationS, limits.maxDurationS, "seconds");
      break;
    case "ws-chat":
      check("users", spec.users, limits.maxUsers, "users");
      check("poolSize", spec.poolSize, limits.maxConcurrency, "connections");
      check("durationS", spec.durationS, limits.maxDurationS, "seconds");
      break;
    case "capacity-search":
      // The whole search is bounded before its first plateau: the highest rate it may offer and
      // its worst-case time (every step to the maximum, then every bisection).
      check("minRate", spec.minRate, limits.maxRate, "req/s");
      check("maxRate", spec.maxRate, limits.maxRate, "req/s");
      check("maxConnections", spec.maxConnections, limits.maxConcurrency, "connections");
      check(
        "plateauS",
        capacitySearchBounds(spec).maxDurationS,
        limits.maxDurationS,
        "seconds for the whole search at worst (plateaus and warm-ups)",
      );
      break;
  }
  return limits;
}
