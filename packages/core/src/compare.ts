import { isKnownMetric, METRICS, type MetricDirection, type MetricUnit, metricDef } from "./metrics";
import { MIN_INTERVAL_RUNS, mean, NOISE_ALPHA, ratioDeltaInterval, sampleVariance, welchTTest } from "./statistics";

/**
 * Comparing runs: one definition of the delta everywhere, `(b − a) / a` with `a` the baseline,
 * judged by each metric's direction, and "within noise" when both sides were repeated and the
 * repetitions do not differ significantly.
 */

/** `(value − base) / base` as a fraction; null when it is undefined (missing value, zero base). */
export function relativeDelta(base: number | null | undefined, value: number | null | undefined): number | null {
  if (base === null || base === undefined || value === null || value === undefined) return null;
  if (!Number.isFinite(base) || !Number.isFinite(value)) return null;
  if (base === 0) return value === 0 ? 0 : null;
  return (value - base) / base;
}

/** A fraction as a signed percentage, with a real minus sign: `+12.3%`, `−4.0%`. */
export function formatDeltaPct(delta: number | null | undefined, digits = 1): string {
  if (delta === null || delta === undefined || Number.isNaN(delta)) return "—";
  const pct = delta * 100;
  const text = Math.abs(pct).toFixed(digits);
  if (Number(text) === 0) return `${(0).toFixed(digits)}%`;
  return `${pct > 0 ? "+" : "−"}${text}%`;
}

export type DeltaVerdict = "better" | "worse" | "same" | "neutral" | "noise" | "none";

/** Whether a change is an improvement for this metric. */
export function deltaVerdict(key: string, delta: number | null): DeltaVerdict {
  if (delta === null) return "none";
  if (delta === 0) return "same";
  const { direction } = metricDef(key);
  if (direction === "neutral") return "neutral";
  return (direction === "higher") === delta > 0 ? "better" : "worse";
}

export interface CompareColumn {
  runId: string;
  metrics: Readonly<Record<string, number>>;
  /** Values of each metric over the run's repetition group (the run included), when repeated. */
  repetitions?: Readonly<Record<string, readonly number[]>>;
}

export interface CompareCell {
  value: number | null;
  /** Against the baseline column; null for the baseline itself. */
  delta: number | null;
  verdict: DeltaVerdict;
  /** Welch's t-test p-value over the repetition groups, when both sides were repeated. */
  pValue: number | null;
  /**
   * 95 % confidence interval on the relative delta, when both sides have MIN_INTERVAL_RUNS
   * repetitions: on the log scale for positive values (a change of the geometric means, never
   * below −100 %).
   */
  ci: { low: number; high: number } | null;
  /** Why there is no interval where both sides were repeated. */
  ciNote?: string;
  repetitions: number;
  /** Why the verdict is neutral where the metric has a direction (it only restates an input). */
  note?: string;
  /** With two or more repetitions, `value` is the group's mean and this its sample standard deviation. */
  spread: number | null;
}

export interface CompareRow {
  key: string;
  label: string;
  unit: MetricUnit;
  direction: MetricDirection;
  derived: boolean;
  cells: CompareCell[];
}

const REGISTRY_ORDER = new Map(METRICS.map((m, i) => [m.key, i]));

/** Sort order for metric keys: the registry's order, then stages, then anything custom. */
export function metricOrder(a: string, b: string): number {
  const rank = (k: string) => REGISTRY_ORDER.get(k) ?? (k.startsWith("stage.") ? 10_000 : 20_000);
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** Every metric any column has, in display order. */
export function compareMetricKeys(columns: readonly CompareColumn[]): string[] {
  const keys = new Set<string>();
  for (const c of columns) for (const k of Object.keys(c.metrics)) if (isKnownMetric(k)) keys.add(k);
  return [...keys].sort(metricOrder);
}

export function buildCompareTable(
  columns: readonly CompareColumn[],
  baselineIndex: number,
  keys: readonly string[] = compareMetricKeys(columns),
): CompareRow[] {
  const baseline = columns[baselineIndex];
  return keys.map((key) => {
    const def = metricDef(key);
    const baseReps = baseline?.repetitions?.[key] ?? [];
    // A repeated run stands for its group: the columns show the group's mean (and spread), the same
    // figures the p-value and confidence interval are computed from.
    const base = baseReps.length >= 2 ? mean(baseReps) : baseline?.metrics[key];
    const cells = columns.map((column, i): CompareCell => {
      const reps = column.repetitions?.[key] ?? [];
      const grouped = reps.length >= 2;
      const value = grouped ? mean(reps) : (column.metrics[key] ?? null);
      const spread = grouped ? Math.sqrt(sampleVariance(reps)) : null;
      if (i === baselineIndex) {
        return { value, delta: null, verdict: "none", pValue: null, ci: null, repetitions: reps.length, spread };
      }
      const delta = relativeDelta(base, value);
      const test = welchTTest(baseReps, reps);
      let verdict = deltaVerdict(key, delta);
      if (test && test.pValue >= NOISE_ALPHA && (verdict === "better" || verdict === "worse")) verdict = "noise";
      const interval = ratioDeltaInterval(baseReps, reps);
      const repeated = baseReps.length >= 2 && reps.length >= 2;
      const ciNote =
        repeated && !interval
          ? `no confidence interval: fewer than ${MIN_INTERVAL_RUNS} runs a side (${baseReps.length} and ${reps.length})`
          : undefined;
      const restated = restatesFixedRate(key, baseline?.metrics, column.metrics);
      if (restated && delta !== null && delta !== 0) verdict = "neutral";
      return {
        ...(restated && delta !== null && delta !== 0 ? { note: restated } : {}),
        ...(ciNote ? { ciNote } : {}),
        value,
        delta,
        verdict,
        pValue: test?.pValue ?? null,
        ci: interval ? { low: interval.low, high: interval.high } : null,
        repetitions: reps.length,
        spread,
      };
    });
    return { key, label: def.label, unit: def.unit, direction: def.direction, derived: def.derived === true, cells };
  });
}

/** Metrics that are the achieved rate over something else: at a fixed rate they restate it. */
const RATE_RATIOS = new Set(["rps_per_vcpu"]);
/** Within this relative difference, two rates are the same fixed rate. */
const SAME_RATE = 0.01;

/**
 * At a fixed arrival rate that both runs achieved, "req/s per vCPU" only restates the chosen
 * rate over each config's vCPUs: a bigger machine reads "worse" though nothing was measured.
 * Returns the note to show instead of a better/worse verdict, or null.
 */
export function restatesFixedRate(
  key: string,
  base: Readonly<Record<string, number>> | undefined,
  value: Readonly<Record<string, number>>,
): string | null {
  if (!RATE_RATIOS.has(key) || !base) return null;
  const close = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined && b > 0 && Math.abs(a - b) / b <= SAME_RATE;
  const fixed = (m: Readonly<Record<string, number>>) => close(m.rps, m.target_rps);
  if (!fixed(base) || !fixed(value) || !close(value.target_rps, base.target_rps)) return null;
  return `both ran at a fixed ${Math.round(base.target_rps!).toLocaleString("en-US")} req/s: this only restates the rate over each config's vCPUs`;
}

export interface SnapshotDiffRow {
  /** Dotted path, e.g. `config.knobs.PUBLISH_WORKERS` or `scenario.spec.poolSize`. */
  path: string;
  /** Display value per run; null where the run does not have the field. */
  values: (string | null)[];
}

/** Flatten nested objects into dotted paths; arrays and scalars are leaves shown as text. */
export function flattenForDiff(value: unknown, prefix: string, out: Map<string, string>): Map<string, string> {
  if (value === null || value === undefined) return out;
  if (typeof value === "object" && !Array.isArray(value) && !(value instanceof Date)) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      flattenForDiff(v, prefix ? `${prefix}.${k}` : k, out);
    return out;
  }
  out.set(
    prefix,
    typeof value === "string" ? value : value instanceof Date ? value.toISOString() : JSON.stringify(value),
  );
  return out;
}

/** The fields whose values are not the same for every run, in path order. */
export function diffSnapshots(snapshots: readonly Record<string, unknown>[]): SnapshotDiffRow[] {
  const flat = snapshots.map((s) => flattenForDiff(s, "", new Map()));
  const paths = new Set<string>();
  for (const f of flat) for (const p of f.keys()) paths.add(p);
  const rows: SnapshotDiffRow[] = [];
  for (const path of [...paths].sort()) {
    const values = flat.map((f) => f.get(path) ?? null);
    if (values.some((v) => v !== values[0])) rows.push({ path, values });
  }
  return rows;
}
