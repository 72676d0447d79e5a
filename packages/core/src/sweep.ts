import type { Interval } from "./derived";
import { formatMetric, metricDef } from "./metrics";
import type { TThreshold } from "./scenario";
import { describeThreshold, evaluateThresholds, type ThresholdsOutcome, thresholdsOutcome } from "./thresholds";

/**
 * Sweeps vary one parameter of a run across values. A parameter is a path into what a run is
 * launched with: `knobs.<name>` (service knobs applied through the target's config-apply URL),
 * `config.<field>` (the instance config: vcpu, cpuLimit, memoryMb, replicas, instanceType) or
 * `scenario.<field>` (the scenario spec: rate, concurrency, poolSize, …).
 */
export type SweepValue = string | number | boolean;

export const CONFIG_FIELDS = ["vcpu", "cpuLimit", "memoryMb", "replicas", "instanceType"] as const;
const NUMERIC_CONFIG = new Set(["vcpu", "cpuLimit", "memoryMb", "replicas"]);

export interface ParameterPath {
  scope: "knobs" | "config" | "scenario";
  key: string;
}

export function parseParameterPath(path: string): ParameterPath | null {
  const m = /^(knobs|config|scenario)\.([A-Za-z_][A-Za-z0-9_.-]*)$/.exec(path.trim());
  if (!m) return null;
  const scope = m[1] as ParameterPath["scope"];
  const key = m[2]!;
  if (scope === "config" && !(CONFIG_FIELDS as readonly string[]).includes(key)) return null;
  if (scope === "scenario" && (key.includes(".") || key === "engine")) return null;
  return { scope, key };
}

export interface RunSnapshots {
  config: Record<string, unknown> | null;
  scenario: Record<string, unknown> | null;
}

function scalar(v: unknown): SweepValue | null {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : null;
}

/** The parameter's value in a run's snapshots, or null when the run does not set it. */
export function readParameter(snapshots: RunSnapshots, path: string): SweepValue | null {
  const p = parseParameterPath(path);
  if (!p) return null;
  if (p.scope === "knobs") return scalar((snapshots.config?.knobs as Record<string, unknown> | undefined)?.[p.key]);
  if (p.scope === "config") return scalar(snapshots.config?.[p.key]);
  return scalar((snapshots.scenario?.spec as Record<string, unknown> | undefined)?.[p.key]);
}

/** New snapshots with the parameter set to `value` (the inputs are left untouched). */
export function applyParameter(snapshots: RunSnapshots, path: string, value: SweepValue): RunSnapshots {
  const p = parseParameterPath(path);
  if (!p) throw new Error(`not a sweep parameter: ${path}`);
  const config = structuredClone(snapshots.config ?? {}) as Record<string, unknown>;
  const scenario = structuredClone(snapshots.scenario ?? {}) as Record<string, unknown>;
  if (p.scope === "knobs") {
    config.knobs = { ...((config.knobs as Record<string, unknown> | undefined) ?? {}), [p.key]: value };
    return { config, scenario: snapshots.scenario ? scenario : null };
  }
  if (p.scope === "config") {
    if (NUMERIC_CONFIG.has(p.key) && typeof value !== "number") throw new Error(`${path} takes numbers`);
    config[p.key] = value;
    return { config, scenario: snapshots.scenario ? scenario : null };
  }
  scenario.spec = { ...((scenario.spec as Record<string, unknown> | undefined) ?? {}), [p.key]: value };
  return { config: snapshots.config ? config : null, scenario };
}

/** "16, 32, 64" → [16, 32, 64]; words stay strings, `true`/`false` become booleans. */
export function parseSweepValues(text: string): SweepValue[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      if (s === "true" || s === "false") return s === "true";
      const n = Number(s.replace(/_/g, ""));
      return Number.isFinite(n) && /^[-+]?[\d_.]+(e[-+]?\d+)?$/i.test(s) ? n : s;
    });
}

export function formatSweepValue(value: SweepValue | null | undefined): string {
  if (value === null || value === undefined) return "—";
  return typeof value === "number" ? value.toLocaleString("en-US", { maximumFractionDigits: 6 }) : String(value);
}

/** Order sweep values: numbers ascending, then everything else alphabetically. */
export function compareSweepValues(a: SweepValue | null, b: SweepValue | null): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "number") return -1;
  if (typeof b === "number") return 1;
  return String(a ?? "").localeCompare(String(b ?? ""));
}

export interface SweepRowInput {
  runId: string;
  value: SweepValue | null;
  status: string;
  excluded: boolean;
  /** Stored and derived metrics. */
  metrics: Readonly<Record<string, number>>;
  /** False when the load generator distorted the measurement; true when unknown. */
  valid?: boolean;
  invalidReasons?: readonly string[];
  /** The target's reasons for being the limit: a valid run with some reads "saturated". */
  saturationReasons?: readonly string[];
  /** Stored values that are approximate (`~20`, `~35–40`), as the interval they stand for. */
  approximate?: Readonly<Record<string, Interval>>;
}

export interface SweepRow extends SweepRowInput {
  /** Whether every threshold passes on the current thresholds; null when there are none or one is not measured. */
  meetsTargets: boolean | null;
  /** All thresholds taken together: pass, fail, not measured, or none set. */
  thresholdsOutcome: ThresholdsOutcome;
  failedTargets: string[];
  /** Thresholds whose metric the run did not measure (or measured only approximately, across the line). */
  notMeasuredTargets: string[];
  best: boolean;
  /** Why this run is not the best value, in words; null for the best run. */
  passedOver: string | null;
}

/** Below this success rate (in percent) a run does not qualify as best when no thresholds are set. */
export const BEST_MIN_SUCCESS_RATE = 99;

/**
 * What "best" means for a sweep: the best value of a metric by its direction, or a capacity
 * question, "the highest value (rate, pool size, …) that meets the thresholds and whose `metric`
 * stays at or under `below`" (without `below`, the thresholds alone decide).
 */
export type SweepObjective =
  | { kind: "optimize"; metric: string }
  | { kind: "capacity"; metric: string; below?: number };

/** The sweep parameter that is an open model's offered rate. */
export const RATE_PARAMETER = "scenario.rate";
/** A rate is sustained only when the rate achieved is within this share of the rate offered. */
export const ACHIEVED_WITHIN = 0.02;

/**
 * A sweep's answer unless a question is asked: for a rate sweep, the highest rate sustained
 * (capacity), never the lowest latency, which any rate sweep trivially finds at its lowest rate.
 */
export function defaultObjective(parameter: string, metric: string): SweepObjective {
  return parameter === RATE_PARAMETER ? { kind: "capacity", metric: "latency_p99" } : { kind: "optimize", metric };
}

/** The rate a run was offered: what the engine reports, else the swept value itself. */
function offeredRate(row: Pick<SweepRowInput, "metrics" | "value">): number | null {
  const reported = row.metrics.target_rps;
  if (reported !== undefined && reported > 0) return reported;
  return typeof row.value === "number" && row.value > 0 ? row.value : null;
}

const rateText = (v: number) => Math.round(v).toLocaleString("en-US");

function successRateOf(metrics: Readonly<Record<string, number>>): number | null {
  if (metrics.success_rate !== undefined) return metrics.success_rate;
  const requests = metrics.requests;
  if (requests && metrics.failed !== undefined) return ((requests - metrics.failed) / requests) * 100;
  return null;
}

const pctText = (v: number) => `${(Math.floor(v * 100) / 100).toFixed(2)}%`;

/**
 * Judge each run against the thresholds and mark the best value. A run qualifies when it
 * finished, is not excluded, measured the metric, and: meets every threshold when thresholds are
 * set; otherwise has a success rate of at least 99 % and is valid. A raw req/s that came with
 * thousands of failed requests is not a best value. Every other run says why it was passed over.
 */
export function summarizeSweep(
  rows: readonly SweepRowInput[],
  metricOrObjective: string | SweepObjective,
  thresholds: readonly TThreshold[],
  options: { parameter?: string } = {},
): { rows: SweepRow[]; bestRunId: string | null; objective: SweepObjective } {
  const objective: SweepObjective =
    typeof metricOrObjective === "string" ? { kind: "optimize", metric: metricOrObjective } : metricOrObjective;
  const metric = objective.metric;
  // A rate is sustained only when it was achieved and the target kept up with it.
  const sustainedRateOnly = objective.kind === "capacity" && options.parameter === RATE_PARAMETER;
  const judged = rows.map((row): SweepRow => {
    const base = { ...row, best: false, passedOver: null };
    if (thresholds.length === 0 || row.status !== "succeeded") {
      return {
        ...base,
        meetsTargets: null,
        thresholdsOutcome: "none",
        failedTargets: [],
        notMeasuredTargets: [],
      };
    }
    const verdicts = evaluateThresholds(
      { ...row.metrics },
      thresholds.map((threshold) => ({ threshold, source: "project" })),
      row.approximate ?? {},
    );
    const outcome = thresholdsOutcome(verdicts);
    return {
      ...base,
      meetsTargets: outcome === "pass" ? true : outcome === "fail" ? false : null,
      thresholdsOutcome: outcome,
      failedTargets: verdicts.filter((v) => v.status === "fail").map(describeThreshold),
      notMeasuredTargets: verdicts.filter((v) => v.status === "not_measured").map(describeThreshold),
    };
  });

  const direction = metricDef(metric).direction;
  /** Why a run cannot be the best, or null when it qualifies. */
  const disqualified = (row: SweepRow): string | null => {
    if (row.excluded) return "excluded from the sweep";
    if (row.status !== "succeeded") return `the run ${row.status}`;
    const v = row.metrics[metric];
    if (v === undefined) return `no ${metricDef(metric).label} measured`;
    // An unsound measurement answers nothing, with or without thresholds: its figures may be
    // the load generator's, not the target's.
    if (row.valid === false) {
      return `not a valid measurement${row.invalidReasons?.length ? `: ${row.invalidReasons.join("; ")}` : ""}`;
    }
    if (thresholds.length > 0) {
      if (row.failedTargets.length) return `misses ${row.failedTargets.join(", ")}`;
      if (row.notMeasuredTargets.length) return `not measured: ${row.notMeasuredTargets.join(", ")}`;
    } else {
      const success = successRateOf(row.metrics);
      if (success !== null && success < BEST_MIN_SUCCESS_RATE) {
        const failed = row.metrics.failed;
        return `success rate ${pctText(success)} is below ${BEST_MIN_SUCCESS_RATE}%${failed ? ` (${failed.toLocaleString("en-US")} failed)` : ""}`;
      }
    }
    if (objective.kind === "capacity" && objective.below !== undefined && !(v <= objective.below)) {
      return `${metricDef(metric).label} ${formatMetric(metric, v)} is above ${formatMetric(metric, objective.below)}`;
    }
    if (sustainedRateOnly) {
      const offered = offeredRate(row);
      const achieved = row.metrics.rps;
      if (offered !== null && achieved !== undefined && achieved < (1 - ACHIEVED_WITHIN) * offered) {
        return `achieved ${rateText(achieved)} of ${rateText(offered)} req/s offered, more than ${ACHIEVED_WITHIN * 100} % short`;
      }
      if (row.saturationReasons?.length) return `saturated: ${row.saturationReasons.join("; ")}`;
    }
    return null;
  };

  const reasons = new Map(judged.map((row) => [row.runId, disqualified(row)]));
  let best: SweepRow | null = null;
  for (const row of judged) {
    if (reasons.get(row.runId) !== null) continue;
    if (!best) {
      best = row;
      continue;
    }
    if (objective.kind === "capacity") {
      // The highest swept value that holds the limit; the higher achieved rate breaks a tie.
      const order = compareSweepValues(row.value, best.value);
      if (order > 0 || (order === 0 && (row.metrics.rps ?? 0) > (best.metrics.rps ?? 0))) best = row;
      continue;
    }
    if (direction === "neutral") continue;
    const v = row.metrics[metric]!;
    const current = best.metrics[metric]!;
    if (direction === "higher" ? v > current : v < current) best = row;
  }
  if (objective.kind === "optimize" && direction === "neutral") best = null;
  if (best) best.best = true;
  for (const row of judged) {
    if (row.best) continue;
    const reason = reasons.get(row.runId);
    if (reason) row.passedOver = reason;
    else if (!best) row.passedOver = `${metricDef(metric).label} has no better or worse direction`;
    else if (objective.kind === "capacity") {
      row.passedOver = `qualifies, but ${formatSweepValue(best.value)} is higher and also holds the limit`;
    } else {
      row.passedOver = `qualifies, but ${formatMetric(metric, best.metrics[metric])} at ${formatSweepValue(best.value)} is better than ${formatMetric(metric, row.metrics[metric])}`;
    }
  }
  return { rows: judged, bestRunId: best?.runId ?? null, objective };
}

/** The objective in words, e.g. "highest value whose Latency p99 stays at or under 100 ms". */
export function describeObjective(objective: SweepObjective, parameter?: string): string {
  if (objective.kind === "optimize") {
    const { direction, label } = metricDef(objective.metric);
    return `${direction === "lower" ? "lowest" : "highest"} ${label}`;
  }
  const limit =
    objective.below === undefined
      ? ""
      : ` whose ${metricDef(objective.metric).label} stays at or under ${formatMetric(objective.metric, objective.below)}`;
  if (parameter === RATE_PARAMETER) {
    return `highest rate${limit ? `${limit},` : ""} meeting the thresholds and achieved within ${ACHIEVED_WITHIN * 100} %`;
  }
  return objective.below === undefined ? "highest value meeting the thresholds" : `highest value${limit}`;
}

/** A rate sweep's answer: what rate the target sustains, and where it tops out. */
export interface RateCapacity {
  /** The highest rate sustained (the sweep's best run), or null when none was. */
  sustained: { runId: string; rate: number; achievedRps: number | null; measured: number | null } | null;
  /** The bound the answer holds to: the capacity question's, else a threshold on p99. */
  limit: { metric: string; value: number } | null;
  /** Where the target topped out: the highest rate achieved by a valid run that fell short or saturated. */
  saturatesAt: { runId: string; achievedRps: number; offered: number | null } | null;
  /** The highest rate tried by a finished, counted run. */
  highestTried: number | null;
  /** The answer in one sentence, e.g. "Sustains 2,000 req/s with Latency p99 ≤ 50 ms (…); saturates at ~2,350 req/s." */
  statement: string;
}

/**
 * A rate sweep leads with its answer. "Sustains N req/s with p99 ≤ X": N is the sweep's best run
 * under the capacity objective (highest rate meeting the thresholds, achieved within 2 %, valid,
 * not saturated). "Saturates at ~M": the highest rate actually achieved by a valid run whose
 * target was the limit (saturated, or short of the rate offered). Invalid runs answer neither.
 */
export function rateCapacity(
  rows: readonly SweepRow[],
  objective: SweepObjective,
  thresholds: readonly TThreshold[],
): RateCapacity {
  const counted = rows.filter((r) => r.status === "succeeded" && !r.excluded && r.valid !== false);
  const best = rows.find((r) => r.best) ?? null;
  const limitMetric = objective.kind === "capacity" && objective.below !== undefined ? objective.metric : "latency_p99";
  const threshold = thresholds.find((t) => t.metric === limitMetric && (t.op === "<" || t.op === "<="));
  const limit =
    objective.kind === "capacity" && objective.below !== undefined
      ? { metric: objective.metric, value: objective.below }
      : threshold
        ? { metric: threshold.metric, value: threshold.value }
        : null;
  const sustained =
    best && typeof best.value === "number"
      ? {
          runId: best.runId,
          rate: best.value,
          achievedRps: best.metrics.rps ?? null,
          measured: best.metrics[limitMetric] ?? null,
        }
      : null;
  let saturatesAt: RateCapacity["saturatesAt"] = null;
  for (const row of counted) {
    const offered = offeredRate(row);
    const achieved = row.metrics.rps;
    if (achieved === undefined) continue;
    const short = offered !== null && achieved < (1 - ACHIEVED_WITHIN) * offered;
    if (!short && !row.saturationReasons?.length) continue;
    if (!saturatesAt || achieved > saturatesAt.achievedRps)
      saturatesAt = { runId: row.runId, achievedRps: achieved, offered };
  }
  const rates = counted.map((r) => r.value).filter((v): v is number => typeof v === "number");
  const highestTried = rates.length ? Math.max(...rates) : null;

  const label = metricDef(limitMetric).label;
  const measured = sustained?.measured != null ? formatMetric(limitMetric, sustained.measured) : null;
  const holding = limit
    ? ` with ${label} ≤ ${formatMetric(limit.metric, limit.value)}`
    : measured
      ? ` with ${label} ${measured}`
      : "";
  const rule = `highest rate meeting the thresholds and achieved within ${ACHIEVED_WITHIN * 100} %`;
  const head = sustained
    ? `Sustains ${formatSweepValue(sustained.rate)} req/s${holding} (${rule}${limit && measured ? `; measured ${measured}` : ""})`
    : `No rate tried is sustained (none is the ${rule}, valid and not saturated)`;
  const tail = saturatesAt
    ? `saturates at ~${rateText(saturatesAt.achievedRps)} req/s`
    : highestTried !== null && sustained && sustained.rate >= highestTried
      ? `did not saturate up to ${formatSweepValue(highestTried)} req/s, the highest rate tried`
      : null;
  return { sustained, limit, saturatesAt, highestTried, statement: tail ? `${head}; ${tail}.` : `${head}.` };
}

export interface SweepPoint {
  value: SweepValue;
  /** Mean over the value's finished, not excluded runs (repetitions). */
  mean: number | null;
  runs: number;
  best: boolean;
  /** False when any of the value's runs misses a threshold. */
  meetsTargets: boolean | null;
  /** Runs of this value that are not valid measurements (still plotted, marked). */
  invalidRuns: number;
  /** Valid runs of this value whose target was the limit (plotted, marked apart from invalid ones). */
  saturatedRuns: number;
}

/** One chart point per swept value, in sweep order; excluded and unfinished runs left out. */
export function sweepPoints(rows: readonly SweepRow[], metric: string): SweepPoint[] {
  const points: SweepPoint[] = [];
  for (const row of rows) {
    if (row.value === null || row.excluded || row.status !== "succeeded") continue;
    let point = points.find((p) => p.value === row.value);
    if (!point) {
      point = {
        value: row.value,
        mean: null,
        runs: 0,
        best: false,
        meetsTargets: null,
        invalidRuns: 0,
        saturatedRuns: 0,
      };
      points.push(point);
    }
    const v = row.metrics[metric];
    if (v !== undefined) {
      point.mean = ((point.mean ?? 0) * point.runs + v) / (point.runs + 1);
      point.runs++;
    }
    point.best ||= row.best;
    if (row.valid === false) point.invalidRuns++;
    else if (row.saturationReasons?.length) point.saturatedRuns++;
    if (row.meetsTargets !== null) point.meetsTargets = (point.meetsTargets ?? true) && row.meetsTargets;
  }
  return points.sort((a, b) => compareSweepValues(a.value, b.value));
}
