/**
 * Derived metrics are computed from stored ones, never typed in: req/s per vCPU, throughput as
 * messages over runtime, gateway overhead as a sum of chosen server-timing stages, and memory
 * utilization. Each derivation also runs on intervals, so a figure published with rounded
 * inputs can be checked against the whole range those inputs allow.
 */

export interface DerivedContext {
  vcpu?: number | null;
  /** CPU limit in cores (a container quota); the binding limit when below `vcpu`. */
  cpuLimit?: number | null;
  replicas?: number | null;
  memoryMb?: number | null;
  /** Stages (`stage.<name>` without the prefix) whose sum is the gateway's own overhead. */
  overheadStages?: readonly string[] | null;
}

/** [low, high]; an exact value is [v, v]. */
export type Interval = readonly [number, number];

export const DERIVED_KEYS = [
  "rps_per_vcpu",
  "throughput",
  "gateway_overhead",
  "mem_utilization",
  "lost_deliveries",
  "message_loss",
  "tokens_per_s_total",
] as const;
/** Keys only ever derived: a stored value under one of them is ignored. */
const ALWAYS_DERIVED = new Set<string>([
  "rps_per_vcpu",
  "gateway_overhead",
  "mem_utilization",
  "message_loss",
  "tokens_per_s_total",
]);

const MIB = 1024 * 1024;

function positive(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null;
}

/** vCPUs the target could use: the CPU limit when it binds, times the number of replicas. */
export function effectiveVcpu(ctx: DerivedContext): number | null {
  const vcpu = positive(ctx.vcpu);
  const limit = positive(ctx.cpuLimit);
  const perReplica = vcpu !== null && limit !== null ? Math.min(vcpu, limit) : (limit ?? vcpu);
  if (perReplica === null) return null;
  return perReplica * (positive(ctx.replicas) ?? 1);
}

/** Read the derivation context from a run's instance-config and scenario snapshots. */
export function derivedContext(configSnapshot: unknown, scenarioSnapshot?: unknown): DerivedContext {
  const config = (configSnapshot ?? {}) as Record<string, unknown>;
  const scenario = (scenarioSnapshot ?? {}) as Record<string, unknown>;
  const stages = scenario.overheadStages;
  return {
    vcpu: positive(config.vcpu),
    cpuLimit: positive(config.cpuLimit),
    replicas: positive(config.replicas),
    memoryMb: positive(config.memoryMb),
    overheadStages: Array.isArray(stages) ? stages.filter((s): s is string => typeof s === "string") : null,
  };
}

const exact = (v: number): Interval => [v, v];

function add(a: Interval, b: Interval): Interval {
  return [a[0] + b[0], a[1] + b[1]];
}

/** Division by an interval that lies entirely above zero. */
function div(a: Interval, b: Interval): Interval | null {
  if (!(b[0] > 0)) return null;
  const corners = [a[0] / b[0], a[0] / b[1], a[1] / b[0], a[1] / b[1]];
  return [Math.min(...corners), Math.max(...corners)];
}

function scale(a: Interval, k: number): Interval {
  return k >= 0 ? [a[0] * k, a[1] * k] : [a[1] * k, a[0] * k];
}

/** Derived metrics as intervals, from inputs given as intervals. */
export function deriveBounds(
  inputs: Readonly<Record<string, Interval>>,
  ctx: DerivedContext,
): Record<string, Interval> {
  const out: Record<string, Interval> = {};
  const vcpu = effectiveVcpu(ctx);
  const rps = inputs.rps;
  if (rps && vcpu !== null) {
    const v = div(rps, exact(vcpu));
    if (v) out.rps_per_vcpu = v;
  }
  const messages = inputs.messages;
  const runtime = inputs.runtime_ms;
  if (messages && runtime) {
    const v = div(messages, scale(runtime, 1 / 1000));
    if (v) out.throughput = v;
  }
  const stages = ctx.overheadStages;
  if (stages && stages.length > 0) {
    let sum: Interval | null = exact(0);
    for (const stage of stages) {
      const value = inputs[`stage.${stage}`];
      sum = value && sum ? add(sum, value) : null;
    }
    if (sum) out.gateway_overhead = sum;
  }
  const tokens = inputs.output_tokens;
  if (tokens && runtime) {
    const v = div(tokens, scale(runtime, 1 / 1000));
    if (v) out.tokens_per_s_total = v;
  }
  // Chat delivery: what was owed and never arrived, and that plus outright failures.
  const expected = inputs.expected_deliveries;
  const lost =
    expected && messages
      ? ([expected[0] - messages[1], expected[1] - messages[0]] as Interval)
      : inputs.lost_deliveries;
  if (lost) out.lost_deliveries = lost;
  const failed = inputs.failed;
  if (lost && failed) out.message_loss = add(lost, failed);
  const memory = positive(ctx.memoryMb);
  const peak = inputs.mem_peak_bytes;
  if (peak && memory !== null) out.mem_utilization = scale(peak, 100 / (memory * MIB));
  return out;
}

/** Derived metrics from exact stored values. */
export function deriveMetrics(metrics: Readonly<Record<string, number>>, ctx: DerivedContext): Record<string, number> {
  const inputs: Record<string, Interval> = {};
  for (const [key, value] of Object.entries(metrics)) if (Number.isFinite(value)) inputs[key] = exact(value);
  const out: Record<string, number> = {};
  for (const [key, [lo]] of Object.entries(deriveBounds(inputs, ctx))) out[key] = lo;
  return out;
}

/**
 * Stored metrics with the derived ones added. Engines measure throughput themselves; where a
 * run has messages and a runtime the derivation replaces it, so the number always agrees with
 * its inputs. The other derived keys are never taken from storage.
 */
export function withDerivedMetrics(
  metrics: Readonly<Record<string, number>>,
  ctx: DerivedContext,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(metrics)) if (!ALWAYS_DERIVED.has(key)) out[key] = value;
  return { ...out, ...deriveMetrics(metrics, ctx) };
}

/** Intervals for stored values known to a published precision (`step`: one unit of the last digit). */
export function boundsFromSteps(
  metrics: Readonly<Record<string, number>>,
  steps: Readonly<Record<string, number>>,
): Record<string, Interval> {
  const out: Record<string, Interval> = {};
  for (const [key, value] of Object.entries(metrics)) {
    const half = (steps[key] ?? 0) / 2;
    out[key] = [value - half, value + half];
  }
  return out;
}

/** Stored and derived metrics as intervals. */
export function withDerivedBounds(
  metrics: Readonly<Record<string, number>>,
  steps: Readonly<Record<string, number>>,
  ctx: DerivedContext,
): Record<string, Interval> {
  const bounds = boundsFromSteps(metrics, steps);
  for (const key of ALWAYS_DERIVED) delete bounds[key];
  return { ...bounds, ...deriveBounds(bounds, ctx) };
}

/** How a derived metric is obtained for a run, in words, e.g. "rps ÷ 0.05 vCPU". */
export function describeDerivation(metric: string, ctx: DerivedContext): string | null {
  switch (metric) {
    case "rps_per_vcpu": {
      const vcpu = effectiveVcpu(ctx);
      return vcpu === null ? null : `achieved rate ÷ ${+vcpu.toPrecision(6)} vCPU`;
    }
    case "throughput":
      return "messages ÷ runtime";
    case "gateway_overhead":
      return ctx.overheadStages?.length ? `sum of stages ${ctx.overheadStages.join(" + ")}` : null;
    case "tokens_per_s_total":
      return "output tokens ÷ runtime";
    case "lost_deliveries":
      return "expected deliveries − messages delivered";
    case "message_loss":
      return "lost messages + failed messages";
    case "mem_utilization":
      return ctx.memoryMb ? `peak memory ÷ ${ctx.memoryMb.toLocaleString("en-US")} MB` : null;
    default:
      return null;
  }
}

/**
 * Published figures that cannot all be true together, in words: a chat run that reports no failed
 * messages while deliveries it owed never arrived.
 */
export function contradictions(metrics: Readonly<Record<string, number>>): string[] {
  const out: string[] = [];
  const { failed, expected_deliveries: expected, messages } = metrics;
  if (failed === 0 && expected !== undefined && messages !== undefined && messages < expected) {
    const missing = expected - messages;
    out.push(
      `Failed messages is 0, yet ${missing.toLocaleString("en-US")} of ${expected.toLocaleString("en-US")} expected deliveries never arrived (${messages.toLocaleString("en-US")} delivered): those messages were lost, not delivered.`,
    );
  }
  return out;
}

/**
 * The achieved rate a list of runs shows: req/s where the engine measured requests, else the
 * delivered messages per second (derived from messages over runtime for chat runs); null when a
 * run has neither (an offered rate alone is not an achieved one).
 */
export function achievedRate(
  metrics: Readonly<Record<string, number>>,
): { metric: "rps" | "throughput"; value: number } | null {
  for (const metric of ["rps", "throughput"] as const) {
    const value = metrics[metric];
    if (typeof value === "number" && Number.isFinite(value)) return { metric, value };
  }
  return null;
}
