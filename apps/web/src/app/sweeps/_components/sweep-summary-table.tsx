"use client";

import type { RouterOutputs } from "@benchboard/api";
import { formatDeltaPct, formatMetric, formatSweepValue, metricDef, relativeDelta, runReading } from "@benchboard/core";
import { cx, ReadingBadge, StatusBadge, WideTable } from "@benchboard/ui";
import { PublishedMark } from "@benchboard/ui/published-figures";
import Link from "next/link";

type View = RouterOutputs["sweep"]["byId"];
type Check = NonNullable<View["published"]>["checks"][number];
type Row = View["rows"][number];

/** Values carry their unit; counts have none, so their header says so. */
function HeaderUnit({ metric }: { metric: string }) {
  return metricDef(metric).unit === "count" ? <span className="normal-case"> (count)</span> : null;
}

/** Every run of the sweep: its value, the charted metric, its delta from the first run, the other measured columns and its verdict. */
export function SweepSummaryTable({
  view,
  rows,
  chosen,
  columns,
  firstRow,
  checks,
  showPublished,
  hasTargets,
}: {
  view: View;
  rows: readonly Row[];
  chosen: string;
  columns: readonly string[];
  firstRow: Row | undefined;
  checks: ReadonlyMap<string, Check>;
  showPublished: boolean;
  hasTargets: boolean;
}) {
  return (
    <WideTable>
      <table className="w-full text-sm" aria-label="Sweep summary">
        <thead className="text-left text-xs uppercase text-slate-500">
          <tr>
            <th className="min-w-20 py-1.5 pr-2">
              <BreakAtDots text={view.sweep.parameter} />
            </th>
            <th className="py-1.5 pr-2">Run</th>
            <th className="py-1.5 pr-2 text-right">
              {metricDef(chosen).label}
              <HeaderUnit metric={chosen} />
            </th>
            <th className="py-1.5 pr-2 text-right">Δ vs first</th>
            {columns.map((k) => (
              <th key={k} className="py-1.5 pr-2 text-right">
                {metricDef(k).label}
                <HeaderUnit metric={k} />
              </th>
            ))}
            <th className="min-w-32 py-1.5 pr-2">Meets thresholds</th>
            <th className="min-w-28 py-1.5">Best, or why not</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const value = row.metrics[chosen];
            const delta = row.runId === firstRow?.runId ? null : relativeDelta(firstRow?.metrics[chosen], value);
            return (
              <tr
                key={row.runId}
                className={cx(
                  "border-t border-slate-100 align-top",
                  row.excluded && "bg-slate-50 text-slate-400",
                  row.best && "bg-emerald-50",
                )}
                data-excluded={row.excluded || undefined}
              >
                <td
                  className={cx(
                    "py-1.5 pr-2 font-medium tabular-nums",
                    row.excluded ? "bg-slate-50" : row.best && "bg-emerald-50",
                  )}
                >
                  {formatSweepValue(row.value)}
                  <PublishedMark shown={showPublished} check={checks.get(`config:${row.runId}`)} />
                </td>
                <td className="py-1.5 pr-2">
                  <Link href={`/runs/${row.runId}`} className="whitespace-nowrap text-sky-700 hover:underline">
                    {row.label}
                  </Link>{" "}
                  {row.status !== "succeeded" && <StatusBadge status={row.status} />}
                  {row.status === "succeeded" && (
                    <ReadingBadge
                      reading={runReading(row)}
                      invalidReasons={row.invalidReasons}
                      saturationReasons={row.saturationReasons}
                    />
                  )}
                  {row.included && <div className="text-[11px] text-slate-500">shared with another sweep</div>}
                  {row.excluded && (
                    <div className="max-w-56 text-[11px] whitespace-normal">excluded: {row.excludedReason}</div>
                  )}
                </td>
                <td className="py-1.5 pr-2 text-right tabular-nums whitespace-nowrap">
                  {formatMetric(chosen, value)}
                  <PublishedMark shown={showPublished} check={checks.get(`value:${row.runId}:${chosen}`)} />
                </td>
                <td className="py-1.5 pr-2 text-right tabular-nums whitespace-nowrap">
                  {formatDeltaPct(delta)}
                  <PublishedMark shown={showPublished} check={checks.get(`delta:${row.runId}:${chosen}`)} />
                </td>
                {columns.map((k) => (
                  <td key={k} className="py-1.5 pr-2 text-right tabular-nums whitespace-nowrap">
                    {formatMetric(k, row.metrics[k])}
                    <PublishedMark shown={showPublished} check={checks.get(`value:${row.runId}:${k}`)} />
                  </td>
                ))}
                <td
                  className="min-w-32 py-1.5 pr-2"
                  title={row.failedTargets.join(", ") || undefined}
                  data-threshold-cell
                >
                  {row.thresholdsOutcome === "not_measured" ? (
                    <span className="font-semibold text-amber-700" data-threshold-outcome="not_measured">
                      ? not measured: <TargetList targets={row.notMeasuredTargets} />
                    </span>
                  ) : row.meetsTargets === null ? (
                    <span className="text-slate-400">{hasTargets ? "—" : "no thresholds"}</span>
                  ) : row.meetsTargets ? (
                    <span className="font-semibold text-emerald-700">✓ yes</span>
                  ) : (
                    <span className="font-semibold text-rose-700">
                      <TargetList targets={row.failedTargets} mark="✗ " />
                    </span>
                  )}
                  <PublishedMark shown={showPublished} check={checks.get(`verdict:${row.runId}`)} />
                </td>
                <td className="min-w-28 py-1.5">
                  {row.best ? (
                    <span className="whitespace-nowrap font-semibold text-emerald-700">★ best</span>
                  ) : (
                    row.passedOver && (
                      <span className="text-xs text-slate-500" data-passed-over>
                        {row.passedOver}
                      </span>
                    )
                  )}
                  <PublishedMark shown={showPublished} check={checks.get(`best:${row.runId}`)} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </WideTable>
  );
}

/** Thresholds listed so that none breaks between its value and unit ("< 250 ms" stays whole). */
function TargetList({ targets, mark = "" }: { targets: readonly string[]; mark?: string }) {
  return (
    <>
      {targets.map((t, i) => (
        <span key={t}>
          {i > 0 && ", "}
          <span className="whitespace-nowrap">
            {i === 0 && mark}
            {t}
          </span>
        </span>
      ))}
    </>
  );
}

/** A dotted name ("knobs.PUBLISH_WORKERS") that may wrap after its dots and underscores only. */
function BreakAtDots({ text }: { text: string }) {
  const parts = text.split(/(?<=[._])/);
  return (
    <>
      {parts.map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string
        <span key={i}>
          {p}
          {i < parts.length - 1 && <wbr />}
        </span>
      ))}
    </>
  );
}
