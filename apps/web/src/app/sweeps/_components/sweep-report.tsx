"use client";

import type { RouterOutputs } from "@benchboard/api";
import {
  formatDeltaPct,
  formatMetric,
  formatSweepValue,
  isKnownMetric,
  metricDef,
  metricOrder,
  relativeDelta,
  runReading,
  sweepPoints,
} from "@benchboard/core";
import {
  Button,
  Card,
  cx,
  ErrorState,
  ProgressBar,
  ReadingBadge,
  Skeleton,
  StatusBadge,
  WideTable,
} from "@benchboard/ui";
import { MetricByValueChart } from "@benchboard/ui/charts/metric-by-value-chart";
import { PublishedFigures, PublishedMark, SourceCheckToggle } from "@benchboard/ui/published-figures";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "~/app/_components/confirm-dialog";
import { PageHeader } from "~/app/_components/page-header";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";

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

/** Values carry their unit; counts have none, so their header says so. */
function HeaderUnit({ metric }: { metric: string }) {
  return metricDef(metric).unit === "count" ? <span className="normal-case"> (count)</span> : null;
}

/**
 * The capacity question from the URL (`?capacity=latency_p99&below=50`): a known metric and a
 * bound above 0, else none (a link with a mistyped question shows the sweep's own answer).
 */
function capacityFromUrl(params: URLSearchParams): { metric: string; below: number } | null {
  const metric = params.get("capacity");
  const below = Number(params.get("below"));
  if (!metric || !isKnownMetric(metric) || !Number.isFinite(below) || below <= 0) return null;
  return { metric, below };
}

export function SweepReport({ id }: { id: string }) {
  const trpc = useTRPC();
  const pathname = usePathname();
  const params = useSearchParams();
  // The question and the chart's metric live in the URL, so a link shows the same answer.
  const capacity = capacityFromUrl(new URLSearchParams(params));
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
        <WideTable>
          <table className="w-full text-sm" aria-label="Sweep summary">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="min-w-24 py-1.5 pr-3">
                  <BreakAtDots text={view.sweep.parameter} />
                </th>
                <th className="py-1.5 pr-3">Run</th>
                <th className="py-1.5 pr-3 text-right">
                  {metricDef(chosen).label}
                  <HeaderUnit metric={chosen} />
                </th>
                <th className="py-1.5 pr-3 text-right">Δ vs first</th>
                {columns.map((k) => (
                  <th key={k} className="py-1.5 pr-3 text-right">
                    {metricDef(k).label}
                    <HeaderUnit metric={k} />
                  </th>
                ))}
                <th className="min-w-40 py-1.5 pr-3">Meets thresholds</th>
                <th className="min-w-48 py-1.5">Best, or why not</th>
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
                        "py-1.5 pr-3 font-medium tabular-nums",
                        row.excluded ? "bg-slate-50" : row.best && "bg-emerald-50",
                      )}
                    >
                      {formatSweepValue(row.value)}
                      <PublishedMark shown={showPublished} check={checks.get(`config:${row.runId}`)} />
                    </td>
                    <td className="py-1.5 pr-3 whitespace-nowrap">
                      <Link href={`/runs/${row.runId}`} className="text-sky-700 hover:underline">
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
                    <td className="py-1.5 pr-3 text-right tabular-nums whitespace-nowrap">
                      {formatMetric(chosen, value)}
                      <PublishedMark shown={showPublished} check={checks.get(`value:${row.runId}:${chosen}`)} />
                    </td>
                    <td className="py-1.5 pr-3 text-right tabular-nums whitespace-nowrap">
                      {formatDeltaPct(delta)}
                      <PublishedMark shown={showPublished} check={checks.get(`delta:${row.runId}:${chosen}`)} />
                    </td>
                    {columns.map((k) => (
                      <td key={k} className="py-1.5 pr-3 text-right tabular-nums whitespace-nowrap">
                        {formatMetric(k, row.metrics[k])}
                        <PublishedMark shown={showPublished} check={checks.get(`value:${row.runId}:${k}`)} />
                      </td>
                    ))}
                    <td
                      className="min-w-40 py-1.5 pr-3"
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
                    <td className="min-w-48 py-1.5">
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

      {view.published && (
        <Card title="Published figures">
          <PublishedFigures
            source={view.published.reference.source}
            url={view.published.reference.url}
            table={view.published.reference.table}
            date={view.published.reference.date}
            note={view.published.reference.note}
            checks={view.published.checks}
            runLabel={labelOf}
          />
        </Card>
      )}
    </div>
  );
}

/** How far a running sweep got, which value is being measured, and a way to stop it. */
function SweepProgress({
  rows,
  canCancel,
  canceling,
  error,
  onCancel,
}: {
  rows: View["rows"];
  canCancel: boolean;
  canceling: boolean;
  error: string | null;
  onCancel: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const finished = rows.filter((r) => r.status !== "queued" && r.status !== "running").length;
  const current = rows.find((r) => r.status === "running");
  // The value being measured counts by how far it has got.
  const done = finished + (current?.fraction ?? 0);
  return (
    <Card title="Progress">
      <div className="space-y-3">
        <ProgressBar
          label={`${finished} of ${rows.length} runs finished`}
          value={rows.length ? done / rows.length : null}
        />
        <div className="flex items-center justify-between gap-4 text-sm text-slate-600">
          <span>
            {current ? (
              <>
                Measuring <span className="font-mono text-xs">{formatSweepValue(current.value)}</span>
                {current.fraction !== null && ` (${Math.round(current.fraction * 100)}% of this run)`}
              </>
            ) : (
              "Waiting for a worker…"
            )}
          </span>
          {canCancel && (
            <Button variant="danger" disabled={canceling} onClick={() => setConfirming(true)}>
              {canceling ? "Canceling…" : "Cancel sweep"}
            </Button>
          )}
        </div>
        {error && !confirming && <p className="text-sm text-rose-700">{error}</p>}
      </div>
      <ConfirmDialog
        open={confirming}
        title="Cancel this sweep?"
        confirmLabel="Cancel sweep"
        dismissLabel="Keep running"
        pending={canceling}
        error={error}
        onConfirm={() => {
          onCancel();
          setConfirming(false);
        }}
        onCancel={() => setConfirming(false)}
      >
        <p>
          The value being measured stops within a second and keeps what it measured; the values not yet run never start.
          Every run of the sweep ends canceled.
        </p>
      </ConfirmDialog>
    </Card>
  );
}

/**
 * "Highest rate whose p99 stays at or under X": best by a limit instead of by the metric alone
 * (which, for latency over a rate sweep, trivially picks the lowest rate). Kept in the URL.
 */
function CapacityQuestion({
  metrics,
  current,
  objectiveText,
  onAsk,
}: {
  metrics: string[];
  current: { metric: string; below: number } | null;
  objectiveText: string;
  onAsk: (q: { metric: string; below: number } | null) => void;
}) {
  const [picked, setMetric] = useState(current?.metric ?? null);
  const [below, setBelow] = useState(current ? String(current.below) : "");
  if (metrics.length === 0) return null;
  // The form may first render before any run has finished: the choice follows the metrics measured.
  const metric =
    picked && metrics.includes(picked) ? picked : (metrics.find((k) => k === "latency_p99") ?? metrics[0]!);
  const value = Number(below);
  const valid = below.trim() !== "" && Number.isFinite(value) && value > 0;
  return (
    <Card title="Capacity question">
      <form
        className="flex flex-wrap items-end gap-3 text-sm"
        aria-label="Capacity question"
        onSubmit={(e) => {
          e.preventDefault();
          if (valid) onAsk({ metric, below: value });
        }}
      >
        <span className="pb-1.5 text-slate-600">Highest value whose</span>
        <label className="flex flex-col gap-1 text-xs text-slate-600">
          Metric
          <select
            className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
            value={metric}
            onChange={(e) => setMetric(e.target.value)}
          >
            {metrics.map((k) => (
              <option key={k} value={k}>
                {metricDef(k).label}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs text-slate-600">
          stays at or under ({metricDef(metric).unit})
          <input
            className="w-28 rounded-md border border-slate-300 px-2 py-1.5 text-sm"
            inputMode="decimal"
            value={below}
            onChange={(e) => setBelow(e.target.value)}
            aria-invalid={below !== "" && !valid}
          />
        </label>
        <button
          type="submit"
          disabled={!valid}
          className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50"
        >
          Ask
        </button>
        {current && (
          <button type="button" className="px-2 py-1.5 text-sm text-slate-600 underline" onClick={() => onAsk(null)}>
            Back to the sweep's own answer
          </button>
        )}
      </form>
      <p className="mt-2 text-xs text-slate-500">
        The best value now answers: {objectiveText}. {below !== "" && !valid && "Enter a number above 0."}
      </p>
    </Card>
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
