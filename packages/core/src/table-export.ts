import type { CompareRow } from "./compare";
import { metricOrder } from "./compare";
import { metricDef } from "./metrics";
import { runReading } from "./run-state";
import { toCsv } from "./series";
import type { SweepValue } from "./sweep";

/**
 * A comparison as a CSV a spreadsheet reads: one line per metric and run (long form, so any
 * number of runs fits), with the run's value, its delta against the baseline and the verdict.
 */
export function comparisonCsv(
  runs: readonly { id: string; label: string }[],
  baselineRunId: string | null,
  table: readonly CompareRow[],
): string {
  const lines: (string | number | boolean | null)[][] = [
    ["metric", "label", "unit", "run_id", "run", "baseline", "value", "delta_vs_baseline", "verdict"],
  ];
  for (const row of table) {
    row.cells.forEach((cell, i) => {
      const run = runs[i];
      if (!run) return;
      const isBaseline = run.id === baselineRunId;
      lines.push([
        row.key,
        row.label,
        row.unit,
        run.id,
        run.label,
        isBaseline,
        cell.value,
        isBaseline ? null : cell.delta,
        isBaseline ? null : cell.verdict,
      ]);
    });
  }
  return toCsv(lines);
}

export interface SweepExportRow {
  runId: string;
  label: string;
  value: SweepValue | null;
  status: string;
  valid?: boolean | null;
  saturationReasons?: readonly string[] | null;
  excluded: boolean;
  meetsTargets: boolean | null;
  best: boolean;
  metrics: Record<string, number>;
}

/** A sweep as a CSV: one line per run, the swept value first, then every metric any run measured. */
export function sweepCsv(parameter: string, rows: readonly SweepExportRow[]): string {
  const metrics = [...new Set(rows.flatMap((r) => Object.keys(r.metrics)))].sort(metricOrder);
  const header = [
    parameter,
    "run_id",
    "run",
    "status",
    "reading",
    "excluded",
    "meets_thresholds",
    "best",
    ...metrics.map((k) => `${k} (${metricDef(k).unit})`),
  ];
  return toCsv([
    header,
    ...rows.map((r) => [
      r.value === null ? null : String(r.value),
      r.runId,
      r.label,
      r.status,
      r.status === "succeeded" ? runReading(r) : null,
      r.excluded,
      r.meetsTargets,
      r.best,
      ...metrics.map((k) => r.metrics[k] ?? null),
    ]),
  ]);
}
