"use client";

import type { RouterOutputs } from "@benchboard/api";
import { formatDeltaPct, formatMetric } from "@benchboard/core";
import { Card, cx, EmptyState, ReadingBadge, StatusBadge, WideTable } from "@benchboard/ui";
import { colorAt } from "@benchboard/ui/charts/palette";
import { PublishedMark, SourceCheckToggle } from "@benchboard/ui/published-figures";
import Link from "next/link";
import { type ReactNode, useState } from "react";
import { PublishedFiguresCard } from "~/app/_components/published-figures-card";
import { ComparisonCharts } from "./comparison-charts";
import { ConfigDifferences } from "./config-differences";
import { StageComparison } from "./stage-comparison";
import { VERDICT_STYLE } from "./verdict-style";

type View = RouterOutputs["comparison"]["view"];
type Check = NonNullable<View["published"]>["checks"][number];

/**
 * Runs side by side: absolute values, deltas `(b − a) / a` against the baseline colored by each
 * metric's direction, configuration differences, overlaid timelines and published figures.
 * `runHref` links runs into the app; a share page passes none so nothing links out.
 */
export function ComparisonReport({ view, runHref }: { view: View; runHref?: (runId: string) => string }) {
  const { runs, baselineRunId } = view;
  const [showPublished, setShowPublished] = useState(false);
  if (runs.length === 0) return <EmptyState title="None of these runs can be shown" />;
  const checks = new Map<string, Check>();
  for (const c of view.published?.checks ?? []) {
    const f = c.figure;
    if (f.kind === "value") checks.set(`value:${f.runId}:${f.metric}`, c);
    if ((f.kind === "delta" || f.kind === "ratio") && f.baseRunId === baselineRunId)
      checks.set(`delta:${f.runId}:${f.metric}`, c);
  }
  // A run's own document fills in what the comparison's reference does not cover (a live comparison
  // has none), so a printed figure that disagrees carries its ⚠ here as on the run's page.
  for (const c of view.runChecks ?? []) {
    const f = c.figure;
    if (f.kind === "value" && !checks.has(`value:${f.runId}:${f.metric}`))
      checks.set(`value:${f.runId}:${f.metric}`, c);
  }
  /** Agreement hides behind the toggle; a disagreement is always in view. */
  const markShown = (check: Check | undefined) => showPublished || check?.status === "mismatch";
  const stageKeys = new Set(view.stageKeys);
  const generalRows = view.table.filter((r) => !stageKeys.has(r.key));
  const rowByKey = new Map(view.table.map((r) => [r.key, r]));
  const stageRows = view.stageKeys.flatMap((k) => {
    const row = rowByKey.get(k);
    return row ? [row] : [];
  });
  const overheadRow = rowByKey.get("gateway_overhead");
  const label = (runId: string): ReactNode => {
    const run = runs.find((r) => r.id === runId);
    if (!run) return runId;
    return runHref ? (
      <Link href={runHref(run.id)} className="text-sky-700 hover:underline">
        {run.label}
      </Link>
    ) : (
      run.label
    );
  };

  return (
    <div className="space-y-6">
      {view.missing.length > 0 && (
        <div role="alert" className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          {view.missing.length} run{view.missing.length === 1 ? " was" : "s were"} not found in this organization and
          {view.missing.length === 1 ? " is" : " are"} left out.
        </div>
      )}
      <Card
        title="Metrics"
        actions={
          view.published && (
            <SourceCheckToggle checks={view.published.checks} shown={showPublished} onChange={setShowPublished} />
          )
        }
      >
        <WideTable>
          <table className="w-full text-sm" aria-label="Comparison">
            <thead>
              <tr className="text-left align-bottom">
                <th className="py-2 pr-4 text-xs font-medium uppercase text-slate-500">Metric</th>
                {runs.map((run, i) => (
                  <th key={run.id} className="min-w-36 py-2 pr-4 text-right font-normal" scope="col">
                    <div className="flex items-center justify-end gap-1.5 font-semibold text-slate-900">
                      <span
                        className="inline-block h-2.5 w-2.5 rounded-full"
                        style={{ background: colorAt(i) }}
                        aria-hidden
                      />
                      {label(run.id)}
                    </div>
                    <div className="text-xs text-slate-500">{run.identity ?? run.configName ?? run.scenarioName}</div>
                    <div className="mt-0.5 flex items-center justify-end gap-1 text-xs">
                      {run.id === baselineRunId ? (
                        <span className="rounded bg-slate-800 px-1.5 py-0.5 font-medium text-white">baseline</span>
                      ) : null}
                      {run.status !== "succeeded" && <StatusBadge status={run.status} />}
                      {run.status === "succeeded" && <ReadingBadge reading={run.reading} headline={run.saturation} />}
                      {run.excluded && (
                        <span className="rounded bg-slate-200 px-1.5 py-0.5 text-slate-700">excluded</span>
                      )}
                      {run.thresholdsOutcome === "not_measured" ? (
                        <span className="text-amber-700">a threshold not measured</span>
                      ) : (
                        run.meetsTargets !== null && (
                          <span className={run.meetsTargets ? "text-emerald-700" : "text-rose-700"}>
                            {run.meetsTargets ? "meets thresholds" : "misses a threshold"}
                          </span>
                        )
                      )}
                    </div>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {generalRows.map((row) => (
                <tr key={row.key} className="border-t border-slate-100 align-top" data-metric={row.key}>
                  <th scope="row" className="py-1.5 pr-4 text-left font-normal">
                    <span className="text-slate-800">{row.label}</span>{" "}
                    {/* Values carry their unit; counts have none, so it is named here. */}
                    <span className="text-xs text-slate-500">
                      {[row.unit === "count" ? "count" : null, row.derived ? "derived" : null]
                        .filter(Boolean)
                        .join(" · ")}
                    </span>
                  </th>
                  {row.cells.map((cell, i) => {
                    const runId = runs[i]!.id;
                    return (
                      <td key={runId} className="py-1.5 pr-4 text-right tabular-nums">
                        <div className="text-slate-900">{formatMetric(row.key, cell.value)}</div>
                        {cell.spread !== null && (
                          <div className="text-[11px] text-slate-500" data-group-mean>
                            mean of {cell.repetitions} runs · ± {formatMetric(row.key, cell.spread)}
                          </div>
                        )}
                        {runId !== baselineRunId && cell.delta !== null && (
                          <div className={cx("text-xs", VERDICT_STYLE[cell.verdict])} data-verdict={cell.verdict}>
                            {formatDeltaPct(cell.delta)}
                            {cell.verdict === "noise" && " · within noise"}
                            {cell.pValue !== null && cell.verdict !== "noise" && ` · p=${cell.pValue.toFixed(3)}`}
                          </div>
                        )}
                        {runId !== baselineRunId && cell.note && (
                          <div className="max-w-48 text-[11px] whitespace-normal text-slate-500" data-note>
                            {cell.note}
                          </div>
                        )}
                        {runId !== baselineRunId && cell.ci && (
                          <div className="text-[11px] text-slate-500" data-ci>
                            95% CI {formatDeltaPct(cell.ci.low)} … {formatDeltaPct(cell.ci.high)}
                          </div>
                        )}
                        {runId !== baselineRunId && cell.ciNote && (
                          <div className="max-w-48 text-[11px] whitespace-normal text-slate-500" data-ci-note>
                            {cell.ciNote}
                          </div>
                        )}
                        <PublishedMark
                          check={checks.get(`value:${runId}:${row.key}`)}
                          shown={markShown(checks.get(`value:${runId}:${row.key}`))}
                        />
                        <PublishedMark check={checks.get(`delta:${runId}:${row.key}`)} shown={showPublished} />
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
        <p className="mt-3 text-xs text-slate-500">
          Deltas are (run − baseline) ÷ baseline; green is better and red worse for that metric's direction. "Within
          noise" means both runs were repeated and Welch's t-test finds no significant difference (p ≥ 0.05); repeated
          runs show their group&apos;s mean and standard deviation, with a 95% confidence interval on the delta once
          each side has three runs or more (for positive figures, on the ratio of the groups&apos; geometric means, so
          it never reaches below −100%); the charts plot a repeated run&apos;s group mean at each moment.
        </p>
      </Card>

      {stageRows.length > 0 && (
        <StageComparison
          rows={stageRows}
          overheadRow={overheadRow}
          overheadStages={view.overheadStages ?? []}
          runs={runs}
          baselineRunId={baselineRunId}
          checks={checks}
        />
      )}

      <ConfigDifferences runs={runs} diff={view.configDiff} />

      <ComparisonCharts runs={runs} charts={view.charts} />

      {view.published && <PublishedFiguresCard published={view.published} runLabel={label} />}
    </div>
  );
}
