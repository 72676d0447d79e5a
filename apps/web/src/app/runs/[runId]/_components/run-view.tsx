"use client";

import { type EngineProgress, formatMetric, metricDef, type TErrorEntry } from "@benchboard/core";
import { Button, Card, ErrorState, ProgressBar, Skeleton, StatCard, StatusBadge } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { PageHeader } from "~/app/_components/page-header";
import { useTRPC } from "~/trpc/client";

const TERMINAL = new Set(["succeeded", "failed", "canceled"]);
const PERCENTILES = [
  "latency_min",
  "latency_mean",
  "latency_p50",
  "latency_p90",
  "latency_p95",
  "latency_p99",
  "latency_p999",
  "latency_max",
  "latency_stddev",
];

export function RunView({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const run = useQuery({
    ...trpc.run.byId.queryOptions({ id: runId }),
    refetchInterval: (q) => (q.state.data && TERMINAL.has(q.state.data.status) ? false : 1_000),
  });
  const cancel = useMutation(trpc.run.cancel.mutationOptions({ onSuccess: () => run.refetch() }));

  if (run.isPending) {
    return (
      <div className="space-y-4">
        <Skeleton className="h-8 w-64" label="Loading run" />
        <Skeleton className="h-24" />
      </div>
    );
  }
  if (run.isError)
    return <ErrorState title="Run not available" message={run.error.message} onRetry={() => run.refetch()} />;

  const r = run.data;
  const m = (r.result?.metrics ?? {}) as Record<string, number>;
  const progress = r.progress as EngineProgress | null;
  const live = !TERMINAL.has(r.status);
  const spec = (r.scenarioSnapshot as { spec?: Record<string, unknown> } | null)?.spec;
  const target = r.targetSnapshot as { name?: string; baseUrl?: string } | null;
  const errors = (r.result?.errors ?? []) as TErrorEntry[];
  const statusCounts = (r.result?.statusCounts ?? {}) as Record<string, number>;

  return (
    <div className="space-y-6">
      <PageHeader
        title={
          <span className="flex items-center gap-3">
            Run #{r.number} · {r.scenarioName || "run"} <StatusBadge status={r.status} />
          </span>
        }
        subtitle={
          <>
            <Link href={`/projects/${r.project.id}`} className="text-sky-700 hover:underline">
              {r.project.name}
            </Link>
            {target?.name && ` · ${target.name} (${target.baseUrl})`}
            {r.startedAt && ` · started ${new Date(r.startedAt).toLocaleString()}`}
            {r.endedAt &&
              r.startedAt &&
              ` · took ${formatMetric("runtime_ms", new Date(r.endedAt).getTime() - new Date(r.startedAt).getTime())}`}
          </>
        }
        actions={
          live && (
            <Button
              variant="danger"
              onClick={() => cancel.mutate({ id: r.id })}
              disabled={cancel.isPending || r.cancelRequested}
            >
              {r.cancelRequested || cancel.isPending ? "Canceling…" : "Cancel run"}
            </Button>
          )
        }
      />

      {r.error && (
        <div
          role="alert"
          className={`rounded-lg border px-4 py-3 text-sm ${r.status === "failed" ? "border-rose-200 bg-rose-50 text-rose-800" : "border-amber-200 bg-amber-50 text-amber-900"}`}
        >
          <span className="font-semibold">{r.status === "failed" ? "Failed: " : "Note: "}</span>
          {r.error}
        </div>
      )}

      {live && (
        <Card title={r.status === "queued" ? "Waiting for a worker" : "Running"}>
          <ProgressBar
            label={r.status === "queued" ? "Queued" : "Progress"}
            value={r.status === "queued" ? 0 : (progress?.fraction ?? null)}
          />
          {progress && (
            <dl className="mt-4 grid grid-cols-2 gap-4 text-sm sm:grid-cols-5" aria-label="Live figures">
              <Live label="Elapsed" value={formatMetric("runtime_ms", progress.elapsedMs)} />
              <Live label="Requests" value={progress.requests.toLocaleString("en-US")} />
              <Live label="Achieved rate" value={`${progress.rps.toFixed(1)} req/s`} />
              <Live
                label="p50 / p99"
                value={`${formatMetric("latency_p50", progress.latencyP50Ms)} / ${formatMetric("latency_p99", progress.latencyP99Ms)}`}
              />
              <Live label="Errors" value={progress.errors.toLocaleString("en-US")} />
            </dl>
          )}
        </Card>
      )}

      {r.result && (
        <>
          <section className="grid grid-cols-2 gap-4 md:grid-cols-3 xl:grid-cols-6" aria-label="Summary">
            <StatCard label="Requests" value={formatMetric("requests", m.requests)} />
            <StatCard
              label="Success rate"
              value={formatMetric("success_rate", m.success_rate)}
              tone={m.failed ? "bad" : "good"}
            />
            <StatCard label="Failed" value={formatMetric("failed", m.failed)} tone={m.failed ? "bad" : "neutral"} />
            <StatCard label="Achieved rate" value={formatMetric("rps", m.rps)} />
            <StatCard label="Latency p50" value={formatMetric("latency_p50", m.latency_p50)} />
            <StatCard label="Latency p99" value={formatMetric("latency_p99", m.latency_p99)} />
          </section>
          <div className="grid gap-6 lg:grid-cols-2">
            <Card title="Latency percentiles">
              <table className="w-full text-sm" aria-label="Latency percentiles">
                <tbody>
                  {PERCENTILES.map((key) => (
                    <tr key={key} className="border-t border-slate-100 first:border-0">
                      <th scope="row" className="py-1.5 text-left font-normal text-slate-600">
                        {metricDef(key).label}
                      </th>
                      <td className="py-1.5 text-right font-medium tabular-nums">{formatMetric(key, m[key])}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Card>
            <Card title="Responses and errors">
              <table className="w-full text-sm" aria-label="Status codes">
                <thead className="text-left text-xs uppercase text-slate-500">
                  <tr>
                    <th className="py-1">Status</th>
                    <th className="py-1 text-right">Count</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(statusCounts).map(([code, count]) => (
                    <tr key={code} className="border-t border-slate-100">
                      <td className="py-1.5">{code}</td>
                      <td className="py-1.5 text-right tabular-nums">{count.toLocaleString("en-US")}</td>
                    </tr>
                  ))}
                  {errors
                    .filter((e) => e.kind !== "status")
                    .map((e) => (
                      <tr key={`${e.kind}-${e.message}`} className="border-t border-slate-100 text-rose-700">
                        <td className="py-1.5">
                          {e.kind}: {e.message}
                        </td>
                        <td className="py-1.5 text-right tabular-nums">{e.count.toLocaleString("en-US")}</td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </Card>
          </div>
        </>
      )}

      <Card title="Scenario snapshot">
        <pre className="overflow-x-auto rounded bg-slate-50 p-3 text-xs text-slate-700">
          {JSON.stringify(spec ?? {}, null, 2)}
        </pre>
      </Card>
    </div>
  );
}

function Live({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <dt className="text-xs uppercase text-slate-500">{label}</dt>
      <dd className="mt-0.5 font-semibold tabular-nums">{value}</dd>
    </div>
  );
}
