"use client";

import { countOf, formatDurationMs, stageName, type TStageStat } from "@benchboard/core";
import { EmptyState, WideTable } from "@benchboard/ui";
import { useState } from "react";

/**
 * Server-timing stages of a run. The gateway overhead is the sum of the stages ticked: the
 * stages the run's scenario snapshot names, else those its target declares, to start with;
 * changeable here to see what a different choice gives.
 */
export function StageBreakdown({
  stages,
  overheadStages,
  emptyReason,
  readOnly = false,
}: {
  stages: Record<string, TStageStat>;
  overheadStages: readonly string[] | null;
  /** A shared page: the overhead choice cannot be changed there. */
  readOnly?: boolean;
  /** Why a run has no stages, said only where it is true. */
  emptyReason: string;
}) {
  // Slowest first: where the time goes.
  const names = Object.keys(stages).sort((a, b) => (stages[b]?.meanMs ?? 0) - (stages[a]?.meanMs ?? 0));
  const [chosen, setChosen] = useState<string[]>(() => (overheadStages ?? []).filter((s) => s in stages));
  if (names.length === 0) {
    return <EmptyState title="No stage timings">{emptyReason}</EmptyState>;
  }
  const total = names.reduce((sum, n) => sum + (stages[n]?.meanMs ?? 0), 0);
  const overhead = chosen.reduce((sum, n) => sum + (stages[n]?.meanMs ?? 0), 0);
  const hasPercentiles = names.some((n) => stages[n]?.p99Ms !== undefined);
  return (
    <div>
      <WideTable>
        <table className="w-full text-sm" aria-label="Stage breakdown">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="py-1.5 pr-4">Stage</th>
              <th className="px-3 py-1.5 text-right">Mean</th>
              {hasPercentiles && <th className="px-3 py-1.5 text-right">p50</th>}
              {hasPercentiles && <th className="px-3 py-1.5 text-right">p99</th>}
              <th className="px-3 py-1.5">Share of mean</th>
              <th className="py-1.5 pl-3 text-center">In overhead</th>
            </tr>
          </thead>
          <tbody>
            {names.map((name) => {
              const s = stages[name]!;
              const share = total > 0 ? s.meanMs / total : 0;
              return (
                <tr key={name} className="border-t border-slate-100">
                  <th scope="row" className="py-1.5 pr-4 text-left font-normal whitespace-nowrap">
                    {stageName(name)}
                  </th>
                  <td className="px-3 py-1.5 text-right tabular-nums whitespace-nowrap">
                    {formatDurationMs(s.meanMs)}
                  </td>
                  {hasPercentiles && (
                    <td className="px-3 py-1.5 text-right tabular-nums whitespace-nowrap">
                      {s.p50Ms === undefined ? "—" : formatDurationMs(s.p50Ms)}
                    </td>
                  )}
                  {hasPercentiles && (
                    <td className="px-3 py-1.5 text-right tabular-nums whitespace-nowrap">
                      {s.p99Ms === undefined ? "—" : formatDurationMs(s.p99Ms)}
                    </td>
                  )}
                  <td className="px-3 py-1.5">
                    <div className="h-2 w-24 rounded bg-slate-100" title={`${(share * 100).toFixed(2)}%`}>
                      <div
                        className="h-2 rounded bg-sky-500"
                        style={{ width: `${Math.max(share * 100, share > 0 ? 1 : 0)}%` }}
                      />
                    </div>
                  </td>
                  <td className="py-1.5 pl-3 text-center">
                    <input
                      type="checkbox"
                      aria-label={`Count ${stageName(name)} in the gateway overhead`}
                      checked={chosen.includes(name)}
                      disabled={readOnly}
                      onChange={(e) =>
                        setChosen((c) => (e.target.checked ? [...c, name] : c.filter((x) => x !== name)))
                      }
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </WideTable>
      <p className="mt-3 text-sm" aria-live="polite">
        {chosen.length ? (
          <>
            Gateway overhead (sum of the {countOf(chosen.length, "ticked stage")}):{" "}
            <span className="font-semibold tabular-nums" data-testid="overhead-sum">
              {formatDurationMs(overhead)}
            </span>
          </>
        ) : (
          <span className="text-slate-500">
            Tick the stages that make up the gateway's own overhead to add them up.
          </span>
        )}
      </p>
    </div>
  );
}
