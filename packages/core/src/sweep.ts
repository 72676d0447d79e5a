import { metricDef } from "./metrics";
import type { TThreshold } from "./scenario";
import { describeThreshold, evaluateThresholds } from "./thresholds";

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
}

export interface SweepRow extends SweepRowInput {
  /** Whether every threshold passes on the current targets; null when there are none. */
  meetsTargets: boolean | null;
  failedTargets: string[];
  best: boolean;
}

/**
 * Judge each run against the targets and mark the best value: among finished, not excluded runs
 * that meet every target (all of them when there are none), the best by the metric's direction.
 */
export function summarizeSweep(
  rows: readonly SweepRowInput[],
  metric: string,
  thresholds: readonly TThreshold[],
): { rows: SweepRow[]; bestRunId: string | null } {
  const judged = rows.map((row): SweepRow => {
    if (thresholds.length === 0 || row.status !== "succeeded") {
      return { ...row, meetsTargets: null, failedTargets: [], best: false };
    }
    const verdicts = evaluateThresholds(
      { ...row.metrics },
      thresholds.map((threshold) => ({ threshold, source: "project" })),
    );
    const failed = verdicts.filter((v) => !v.passed).map(describeThreshold);
    return { ...row, meetsTargets: failed.length === 0, failedTargets: failed, best: false };
  });
  const direction = metricDef(metric).direction;
  let best: SweepRow | null = null;
  if (direction !== "neutral") {
    for (const row of judged) {
      const v = row.metrics[metric];
      if (row.status !== "succeeded" || row.excluded || v === undefined || row.meetsTargets === false) continue;
      const current = best?.metrics[metric];
      if (current === undefined || (direction === "higher" ? v > current : v < current)) best = row;
    }
  }
  if (best) best.best = true;
  return { rows: judged, bestRunId: best?.runId ?? null };
}

export interface SweepPoint {
  value: SweepValue;
  /** Mean over the value's finished, not excluded runs (repetitions). */
  mean: number | null;
  runs: number;
  best: boolean;
  /** False when any of the value's runs misses a threshold. */
  meetsTargets: boolean | null;
}

/** One chart point per swept value, in sweep order; excluded and unfinished runs left out. */
export function sweepPoints(rows: readonly SweepRow[], metric: string): SweepPoint[] {
  const points: SweepPoint[] = [];
  for (const row of rows) {
    if (row.value === null || row.excluded || row.status !== "succeeded") continue;
    let point = points.find((p) => p.value === row.value);
    if (!point) {
      point = { value: row.value, mean: null, runs: 0, best: false, meetsTargets: null };
      points.push(point);
    }
    const v = row.metrics[metric];
    if (v !== undefined) {
      point.mean = ((point.mean ?? 0) * point.runs + v) / (point.runs + 1);
      point.runs++;
    }
    point.best ||= row.best;
    if (row.meetsTargets !== null) point.meetsTargets = (point.meetsTargets ?? true) && row.meetsTargets;
  }
  return points.sort((a, b) => compareSweepValues(a.value, b.value));
}
