import {
  applyLaunchOverrides,
  type CapViolation,
  FindCapacityError,
  LaunchOverrideError,
  peakLoad,
  planShards,
  ShardPlanError,
  type TFindCapacity,
  type TLaunchOverrides,
  type TScenarioSpec,
  toCapacitySearch,
} from "@benchboard/core";

/**
 * The launch form's arithmetic, without React: the spec a launch would run (overrides and a
 * capacity search applied), what each shard would send, and the scenario's own values.
 */

export const n = (v: number) => v.toLocaleString("en-US", { maximumFractionDigits: 1 });

/** "45 s", "30 min", "1 h 30 min": durations people plan load tests in. */
export function formatSeconds(total: number): string {
  if (total < 60) return `${n(total)} s`;
  const h = Math.floor(total / 3600);
  const min = Math.round((total % 3600) / 60);
  if (h === 0) return `${min} min`;
  return min ? `${h} h ${min} min` : `${h} h`;
}

/**
 * The spec this launch would run: the scenario's, as a capacity search when one is asked for,
 * with the overrides applied (errors recorded at the field).
 */
/**
 * The engine whose per-worker capacity the form shows: the chosen scenario's (the first one
 * before a choice), when it is an open model; null otherwise.
 */
export function capacityEngineFor(
  scenarios: readonly { id: string; spec: unknown }[] | undefined,
  scenarioId: string,
): "http-open" | "llm" | null {
  const spec = scenarios?.find((s) => s.id === (scenarioId || scenarios?.[0]?.id))?.spec as
    | { engine?: string }
    | undefined;
  return spec?.engine === "http-open" || spec?.engine === "llm" ? spec.engine : null;
}

export function effectiveSpec(
  spec: TScenarioSpec | null,
  overrides: Record<"rate" | "concurrency" | "durationS", number | undefined>,
  errors: Record<string, string>,
  findCapacity: TFindCapacity | null = null,
): TScenarioSpec | null {
  if (!spec) return null;
  let base = spec;
  if (findCapacity) {
    try {
      base = toCapacitySearch(spec, findCapacity);
    } catch (err) {
      if (err instanceof FindCapacityError) errors[err.field] = err.message;
      else throw err;
    }
  }
  const given: TLaunchOverrides = {};
  for (const key of ["rate", "concurrency", "durationS"] as const) {
    const v = overrides[key];
    if (v === undefined || errors[key]) continue;
    if (v <= 0) errors[key] = "must be above 0";
    else if (key === "concurrency" && !Number.isInteger(v)) errors[key] = "must be a whole number";
    else given[key] = v;
  }
  try {
    return applyLaunchOverrides(base, given);
  } catch (err) {
    if (err instanceof LaunchOverrideError) errors[err.field] = err.message;
    return base;
  }
}

/** What each shard sends, or why the scenario cannot split so. */
export function planFor(spec: TScenarioSpec, count: number): { each: string } | { error: string } | null {
  if (count < 1) return null;
  try {
    const first = planShards(spec, count)[0];
    if (!first) return null;
    const load = peakLoad(first);
    const parts = [
      load.rate !== null ? `${n(load.rate)} req/s` : null,
      `${n(load.connections)} ${first.engine === "http-closed" || first.engine === "ws-chat" ? "users" : "connections"}`,
    ].filter(Boolean);
    return { each: parts.join(", ") };
  } catch (err) {
    if (err instanceof ShardPlanError) return { error: err.message };
    throw err;
  }
}

/** The scenario's own value of an overridable field, shown as the input's placeholder. */
export function specValue(spec: TScenarioSpec | null, field: "rate" | "concurrency" | "durationS"): string {
  if (!spec) return "";
  let value: number | undefined;
  if (field === "rate") value = spec.engine === "http-open" || spec.engine === "llm" ? spec.rate : undefined;
  else if (field === "concurrency")
    value =
      spec.engine === "http-closed" ? spec.concurrency : spec.engine === "ws-chat" ? undefined : spec.maxConnections;
  else value = "durationS" in spec ? spec.durationS : undefined;
  return value === undefined ? "" : String(value);
}

/**
 * Where each cap the launch exceeds is shown: at the launch field that asked for too much (an
 * override, or the capacity search's range and plateaus), else at the scenario.
 */
export function launchCapErrors(
  violations: readonly CapViolation[],
  overrides: Record<"rate" | "concurrency" | "durationS", number | undefined>,
  findCapacity: TFindCapacity | null,
): Record<string, string> {
  const overridden = (cap: string) =>
    (cap === "maxRate" && overrides.rate !== undefined) ||
    (cap === "maxConnections" && overrides.concurrency !== undefined) ||
    (cap === "maxDurationS" && overrides.durationS !== undefined) ||
    (findCapacity !== null && cap !== "maxConnections");
  const field = (cap: string) => {
    if (findCapacity && cap === "maxRate") return "findCapacity.maxRate";
    if (findCapacity && cap === "maxDurationS") return "findCapacity.plateauS";
    return cap === "maxRate" ? "rate" : cap === "maxConnections" ? "concurrency" : "durationS";
  };
  const out: Record<string, string> = {};
  for (const v of violations) {
    if (overridden(v.cap)) out[field(v.cap)] ??= `this launch ${v.message}`;
    else out.scenarioId ??= `this scenario ${v.message}`;
  }
  return out;
}

/** The shards field's hint: what each shard sends, and what one worker sends on time. */
export function shardsHintText(
  shardPlan: { each: string } | { error: string } | null,
  shardCount: number,
  capacity: { ratePerWorker: number; basis: string } | null,
  openRate: number | null,
  neededShards: number,
): string | undefined {
  if (!shardPlan || !("each" in shardPlan)) return undefined;
  const split =
    shardCount > 1
      ? `Each of ${shardCount} workers sends ${shardPlan.each}`
      : "Split the load across worker processes; results merge exactly";
  if (!capacity || openRate === null) return split;
  const short =
    shardCount < neededShards
      ? `: ${openRate.toLocaleString("en-US")} req/s needs ${neededShards} shards, or the generator's own lateness will make the run invalid`
      : "";
  return `${split}. One worker sends about ${capacity.ratePerWorker.toLocaleString("en-US")} req/s on time with this engine (${capacity.basis})${short}`;
}
