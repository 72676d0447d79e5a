"use client";

import type { RouterOutputs } from "@benchboard/api";
import { formatDeltaPct, formatMetric, STAGE_PREFIX, stageName } from "@benchboard/core";
import { Card, cx, WideTable } from "@benchboard/ui";
import { PublishedMark } from "@benchboard/ui/published-figures";
import type { ReactNode } from "react";
import { VERDICT_STYLE } from "./verdict-style";

type View = RouterOutputs["comparison"]["view"];
type Check = NonNullable<View["published"]>["checks"][number];
type Row = View["table"][number];

/** Server-timing stages side by side, with the gateway overhead (the stages marked in it) as a total. */
export function StageComparison({
  rows,
  overheadRow,
  overheadStages,
  runs,
  baselineRunId,
  checks,
}: {
  rows: readonly Row[];
  overheadRow: Row | undefined;
  overheadStages: readonly string[];
  runs: View["runs"];
  baselineRunId: string | null;
  checks: Map<string, Check>;
}) {
  const stageRows = rows;
  const inOverhead = new Set(overheadStages.map((s) => `${STAGE_PREFIX}${s}`));
  return (
    <Card title="Stage breakdown (server timing, mean per request)">
      <WideTable>
        <table className="w-full text-sm" aria-label="Stage breakdown">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="py-1.5 pr-4">Stage</th>
              {runs.map((run) => (
                <th key={run.id} className="py-1.5 pr-4 text-right" scope="col">
                  {run.label}
                  {run.id === baselineRunId && " (baseline)"}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {stageRows.map((row) => (
              <StageRow
                key={row.key}
                row={row}
                label={
                  <>
                    {stageName(row.key.slice(STAGE_PREFIX.length))}
                    {inOverhead.has(row.key) && <span className="ml-1 text-xs text-slate-500">· in overhead</span>}
                  </>
                }
                runs={runs}
                baselineRunId={baselineRunId}
                checks={checks}
              />
            ))}
            {overheadRow && (
              <StageRow
                row={overheadRow}
                label={
                  <span className="font-semibold">
                    Overhead: sum of {overheadStages.length} stages marked “in overhead”
                  </span>
                }
                runs={runs}
                baselineRunId={baselineRunId}
                checks={checks}
                total
              />
            )}
          </tbody>
        </table>
      </WideTable>
      <p className="mt-3 text-xs text-slate-500">
        Stages along a request's path: in the order the write-up printed them, else the overhead's stages first. Δ% is
        (run − baseline) ÷ baseline. Where a document published a figure, it stands beside the computed one: ✓ agrees
        within its rounding, ⚠ does not.
      </p>
    </Card>
  );
}

function StageRow({
  row,
  label,
  runs,
  baselineRunId,
  checks,
  total = false,
}: {
  row: View["table"][number];
  label: ReactNode;
  runs: View["runs"];
  baselineRunId: string | null;
  checks: Map<string, Check>;
  total?: boolean;
}) {
  return (
    <tr className={cx("border-t align-top", total ? "border-slate-300" : "border-slate-100")} data-stage={row.key}>
      <th scope="row" className="py-1.5 pr-4 text-left font-normal text-slate-800">
        {label}
      </th>
      {row.cells.map((cell, i) => {
        const runId = runs[i]!.id;
        return (
          <td key={runId} className="py-1.5 pr-4 text-right tabular-nums">
            <div className={cx("text-slate-900", total && "font-semibold")}>{formatMetric(row.key, cell.value)}</div>
            {runId !== baselineRunId && cell.delta !== null && (
              <div className={cx("text-xs", VERDICT_STYLE[cell.verdict])} data-verdict={cell.verdict}>
                Δ {formatDeltaPct(cell.delta)}
              </div>
            )}
            {/* The write-up's own stage figures always stand beside the computed ones here. */}
            <PublishedMark check={checks.get(`value:${runId}:${row.key}`)} shown />
            <PublishedMark check={checks.get(`delta:${runId}:${row.key}`)} shown />
          </td>
        );
      })}
    </tr>
  );
}
