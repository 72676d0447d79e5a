"use client";

import type { RouterOutputs } from "@benchboard/api";
import {
  formatMetric,
  formatSweepValue,
  isKnownMetric,
  metricDef,
  metricOrder,
  runReading,
  sweepPoints,
} from "@benchboard/core";
import { Card, cx, ErrorState, Skeleton, StatusBadge } from "@benchboard/ui";
import { MetricByValueChart } from "@benchboard/ui/charts/metric-by-value-chart";
import { SourceCheckToggle } from "@benchboard/ui/published-figures";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useSearchParams } from "next/navigation";
import { useState } from "react";
import { ExportLinks, exportFormats } from "~/app/_components/export-links";
import { PageHeader } from "~/app/_components/page-header";
import { PublishedFiguresCard } from "~/app/_components/published-figures-card";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { CapacityQuestion } from "./capacity-question";
import { capacityFromUrl } from "./sweep-params";
import { SweepProgress } from "./sweep-progress";
import { SweepSummaryTable } from "./sweep-summary-table";

type View = RouterOutputs["sweep"]["byId"];
type Check = NonNullable<View["published"]>["checks"][number];

/** Columns shown beside the charted metric when any run has them. */
const COLUMNS = [
  "rps",
  "rps_per_vcpu",
  "throughput",
  "runtime_ms",
  "latency_mean",
  "latency_p50",
  "latency_p99",
  "mem_peak_bytes",
  "queue_depth_peak",
  "failed",
  "failed_connections",
];

export function SweepReport({ id }: { id: string }) {
  const trpc = useTRPC();
  const pathname = usePathname();
  const params = useSearchParams();
  // The question and the chart's metric live in the URL, so a link shows the same answer.
  const capacity = capacityFromUrl((name) => params.get(name));
  const go = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(patch)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    const query = next.toString();
    // The page itself does not change, only what it shows: no server round trip (Next keeps
    // useSearchParams in step with the history API).
    window.history.replaceState(null, "", query ? `${pathname}?${query}` : pathname);
  };
  const setCapacity = (q: { metric: string; below: number } | null) =>
    go({ capacity: q?.metric ?? null, below: q ? String(q.below) : null });
  const sweep = useQuery({
    ...trpc.sweep.byId.queryOptions({ id, capacity }),
    placeholderData: (prev) => prev,
    refetchInterval: (q) => (q.state.data?.sweep.status === "running" ? 1_000 : false),
  });
  const metricParam = params.get("metric");
  const metric = metricParam && isKnownMetric(metricParam) ? metricParam : null;
  const setMetric = (k: string) => go({ metric: k });
  const [showPublished, setShowPublished] = useState(false);
  const me = useQuery(trpc.auth.me.queryOptions());
  const qc = useQueryClient();
  const cancel = useMutation(
    trpc.sweep.cancel.mutationOptions({ onSuccess: () => qc.invalidateQueries(trpc.sweep.byId.queryFilter({ id })) }),
  );
  if (sweep.isPending) return <Skeleton className="h-64" label="Loading sweep" />;
  if (sweep.isError)
    return (
      <ErrorState title="Sweep not available" message={errorMessage(sweep.error)} onRetry={() => sweep.refetch()} />
    );
  const view = sweep.data;
  const chosen = metric ?? view.sweep.metric;
  const rows = view.rows;
  const present = new Set(rows.flatMap((r) => Object.keys(r.metrics)));
  const metricOptions = [...new Set([view.sweep.metric, ...COLUMNS.filter((k) => present.has(k))])].sort(metricOrder);
  const columns = COLUMNS.filter((k) => present.has(k) && k !== chosen);
  const points = sweepPoints(rows, chosen);
  const thresholds = view.thresholds
    .filter((t) => t.metric === chosen)
    .map((t) => ({ label: `threshold ${t.op} ${formatMetric(t.metric, t.value)}`, value: t.value }));
  const firstRow = rows.find((r) => r.status === "succeeded" && !r.excluded);
  const checks = new Map<string, Check>();
  for (const c of view.published?.checks ?? []) {
    const f = c.figure;
    if (f.kind === "value") checks.set(`value:${f.runId}:${f.metric}`, c);
    if (f.kind === "delta" && f.baseRunId === firstRow?.runId) checks.set(`delta:${f.runId}:${f.metric}`, c);
    if (f.kind === "verdict") checks.set(`verdict:${f.runId}`, c);
    if (f.kind === "best") checks.set(`best:${f.runId}`, c);
    if (f.kind === "config") checks.set(`config:${f.runId}`, c);
  }
  const labelOf = (runId: string) => rows.find((r) => r.runId === runId)?.label ?? runId;
  const hasTargets = view.thresholds.length > 0;
  const best = rows.find((r) => r.best);
  const counted = rows.filter((r) => r.status === "succeeded" && !r.excluded);
  const invalidCount = counted.filter((r) => runReading(r) === "invalid").length;
  const saturatedCount = counted.filter((r) => runReading(r) === "saturated").length;
  const capacityAnswer = view.capacity;
  const sustainedLabel =
    capacityAnswer?.sustained && points.some((p) => p.value === capacityAnswer.sustained!.rate)
      ? formatSweepValue(capacityAnswer.sustained.rate)
      : null;

  return (
    <div className="space-y-6">
      <PageHeader
        title={
          <span className="flex items-center gap-3">
            {view.sweep.name} <StatusBadge status={view.sweep.status} />
          </span>
        }
        subtitle={
          <>
            {view.sweep.project.name}
            {view.sweep.targetName && ` · target ${view.sweep.targetName}`} · varies{" "}
            <span className="font-mono text-xs">{view.sweep.parameter}</span> · {rows.length} runs
            {view.sweep.repetitions > 1 && ` (${view.sweep.repetitions} per value)`}
          </>
        }
        actions={<ExportLinks links={exportFormats(`/sweeps/${id}/export`)} />}
      />

      {view.sweep.status === "running" && (
        <SweepProgress
          rows={rows.filter((r) => !r.included)}
          canCancel={me.data?.role === "owner" || me.data?.role === "member"}
          canceling={cancel.isPending || cancel.isSuccess}
          error={cancel.isError ? errorMessage(cancel.error) : null}
          onCancel={() => cancel.mutate({ id })}
        />
      )}

      {capacityAnswer && (
        <section
          aria-label="Capacity"
          data-capacity
          className={cx(
            "rounded-lg border px-4 py-3 text-sm",
            capacityAnswer.sustained
              ? "border-emerald-200 bg-emerald-50 text-emerald-950"
              : "border-amber-200 bg-amber-50 text-amber-950",
          )}
        >
          <p className="text-base font-semibold">{capacityAnswer.statement}</p>
          <p className="mt-1 text-xs text-slate-600">
            {capacity
              ? `Answering the question asked: ${view.objectiveText}.`
              : hasTargets
                ? `Thresholds: ${view.thresholds.map((t) => `${metricDef(t.metric).label} ${t.op} ${formatMetric(t.metric, t.value)}`).join(", ")}.`
                : "No thresholds are set: a rate counts when at least 99% of its requests succeed."}{" "}
            Saturated runs are valid measurements of the target at its limit; invalid ones (the load generator&apos;s
            doing) answer nothing.
          </p>
        </section>
      )}

      <Card
        title={`${metricDef(chosen).label} (${metricDef(chosen).unit}) by ${view.sweep.parameter}`}
        actions={
          <label className="flex items-center gap-2 text-xs text-slate-600">
            Metric
            <select
              aria-label="Chart metric"
              className="rounded border border-slate-300 bg-white px-1.5 py-0.5 text-xs"
              value={chosen}
              onChange={(e) => setMetric(e.target.value)}
            >
              {metricOptions.map((k) => (
                <option key={k} value={k}>
                  {metricDef(k).label}
                </option>
              ))}
            </select>
          </label>
        }
      >
        {points.length === 0 ? (
          <p className="text-sm text-slate-500">
            {view.sweep.status === "running"
              ? "Waiting for the first run to finish…"
              : "No finished run has this metric."}
          </p>
        ) : (
          <MetricByValueChart
            title={metricDef(chosen).label}
            xLabel={view.sweep.parameter}
            data={points.map((p) => ({
              label: formatSweepValue(p.value),
              value: p.mean,
              best: p.best,
              meetsTargets: p.meetsTargets,
              invalid: p.invalidRuns > 0,
              saturated: p.saturatedRuns > 0 && p.invalidRuns === 0,
            }))}
            format={(v) => formatMetric(chosen, v)}
            thresholds={thresholds}
            markers={sustainedLabel ? [{ at: sustainedLabel, label: `sustains ${sustainedLabel} req/s` }] : []}
          />
        )}
        <p className="mt-2 text-xs text-slate-500">
          {best
            ? `Best: ${view.sweep.parameter} = ${formatSweepValue(best.value)} (${best.label}), the ${view.objectiveText} among runs that ${hasTargets ? "meet every threshold" : "succeeded with at least 99% success and a valid measurement"}.`
            : "No value qualifies as best yet."}{" "}
          Green marks the best value, red the values that miss a threshold; dashed lines are thresholds on this metric.
          {saturatedCount > 0 &&
            ` Ringed points saturated the target (${saturatedCount} run${saturatedCount === 1 ? "" : "s"}): valid measurements of the target at its limit.`}
          {invalidCount > 0 &&
            ` Hollow amber points are not valid measurements (${invalidCount} run${invalidCount === 1 ? "" : "s"}): their figures may be the load generator's rather than the target's, so they are never the best value or a capacity answer — the table says why.`}
        </p>
      </Card>

      <Card
        title="Summary"
        actions={
          view.published && (
            <SourceCheckToggle checks={view.published.checks} shown={showPublished} onChange={setShowPublished} />
          )
        }
      >
        <SweepSummaryTable
          view={view}
          rows={rows}
          chosen={chosen}
          columns={columns}
          firstRow={firstRow}
          checks={checks}
          showPublished={showPublished}
          hasTargets={hasTargets}
        />
        <p className="mt-3 text-xs text-slate-500">
          {hasTargets
            ? `Thresholds: ${view.thresholds.map((t) => `${metricDef(t.metric).label} ${t.op} ${formatMetric(t.metric, t.value)}`).join(", ")} (the project's and scenario's current thresholds).`
            : "The project has no thresholds; set them on the Trends page. Without them, the best value needs at least 99% success and a valid measurement."}{" "}
          Excluded runs stay listed but leave the chart and the best value.
        </p>
      </Card>

      <CapacityQuestion
        metrics={[...present].filter((k) => metricDef(k).direction === "lower").sort(metricOrder)}
        current={capacity}
        objectiveText={view.objectiveText}
        onAsk={setCapacity}
      />

      {view.published && <PublishedFiguresCard published={view.published} runLabel={labelOf} />}
    </div>
  );
}
