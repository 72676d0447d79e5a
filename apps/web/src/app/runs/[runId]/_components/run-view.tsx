"use client";

import { formatMetric, parseLiveProgress } from "@benchboard/core";
import { Button, Card, ErrorState, Skeleton, StatusBadge } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useState } from "react";
import { ConfirmDialog } from "~/app/_components/confirm-dialog";
import { ExportLinks, exportFormats } from "~/app/_components/export-links";
import { LocalTime } from "~/app/_components/local-time";
import { PageHeader } from "~/app/_components/page-header";
import { SharePanel } from "~/app/_components/share-panel";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { useRunEvents } from "~/trpc/use-run-events";
import { LivePanel } from "./live-panel";
import { RunMetaEditor } from "./run-meta-editor";
import { RUN_CHART_POINTS, TERMINAL_STATUSES } from "./run-queries";
import { RunReport } from "./run-report";
import { Snapshots } from "./run-snapshots";
import { RunUnavailable } from "./run-unavailable";

// Only a capacity search's run draws this panel, and its chart library is the page's largest script:
// other runs never load it.
const CapacitySearchPanel = dynamic(() => import("./capacity-search-panel").then((m) => m.CapacitySearchPanel), {
  loading: () => <Skeleton className="h-64" label="Loading the capacity search" />,
});

export function RunView({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const canEdit = useCanEdit();
  // While the run is queued or running, its event stream updates the cached run each second;
  // a slow poll covers the moments the stream is reconnecting.
  const run = useQuery({
    ...trpc.run.byId.queryOptions({ id: runId }),
    refetchInterval: (q) => (q.state.data && TERMINAL_STATUSES.has(q.state.data.status) ? false : 5_000),
  });
  const ended = run.data ? TERMINAL_STATUSES.has(run.data.status) : false;
  const stream = useRunEvents(runId, Boolean(run.data) && !ended);
  // Results are read once the run has ended: the stored summary, histogram and series.
  const view = useQuery({ ...trpc.run.view.queryOptions({ id: runId }), enabled: ended });
  const chart = useQuery({
    ...trpc.run.chart.queryOptions({ id: runId, maxPoints: RUN_CHART_POINTS }),
    enabled: ended,
  });
  const [confirmCancel, setConfirmCancel] = useState(false);
  const cancel = useMutation(
    trpc.run.cancel.mutationOptions({
      onSuccess: () => {
        setConfirmCancel(false);
        return run.refetch();
      },
    }),
  );

  if (run.isPending) {
    return (
      <div className="space-y-4">
        <Skeleton className="h-8 w-64" label="Loading run" />
        <Skeleton className="h-24" />
      </div>
    );
  }
  // A failed refresh (the app restarting) keeps showing the run it has; only a run never loaded is an error.
  if (!run.data) {
    return (
      <RunUnavailable
        runId={runId}
        message={run.error ? errorMessage(run.error) : "not found"}
        onRetry={() => run.refetch()}
      />
    );
  }

  const r = run.data;
  const progress = parseLiveProgress(r.progress);
  const live = !ended;

  return (
    <div className="space-y-6">
      <PageHeader
        title={
          <span className="flex items-center gap-3">
            {r.title} <StatusBadge status={r.status} />
          </span>
        }
        subtitle={
          <>
            <Link href={`/projects/${r.project.id}`} className="text-sky-700 hover:underline">
              {r.project.name}
            </Link>
            {r.scenarioName && ` · scenario “${r.scenarioName}”`}
            {view.data?.target &&
              ` · ${view.data.target.name}${view.data.target.baseUrl ? ` (${view.data.target.baseUrl})` : ""}`}
            {r.source !== "launched" && ` · ${r.source}`}
            {r.branch && ` · ${r.branch}${r.commit ? `@${r.commit.slice(0, 8)}` : ""}`}
            {r.startedAt && (
              <>
                {" · started "}
                <LocalTime value={r.startedAt} />
              </>
            )}
            {r.endedAt &&
              r.startedAt &&
              ` · took ${formatMetric("runtime_ms", new Date(r.endedAt).getTime() - new Date(r.startedAt).getTime())}`}
            {view.data?.run.sweep && (
              <>
                {" · sweep "}
                <Link href={`/sweeps/${view.data.run.sweep.id}`} className="text-sky-700 hover:underline">
                  {view.data.run.sweep.name}
                </Link>
              </>
            )}
          </>
        }
        actions={
          live ? (
            canEdit && (
              <Button
                variant="danger"
                onClick={() => setConfirmCancel(true)}
                disabled={cancel.isPending || r.cancelRequested}
              >
                {r.cancelRequested || cancel.isPending ? "Canceling…" : "Cancel run"}
              </Button>
            )
          ) : (
            <div className="flex shrink-0 items-center gap-2 whitespace-nowrap text-sm">
              <Link
                href={`/compare?runs=${r.id}`}
                className="rounded-md border border-slate-300 bg-white px-3 py-1.5 font-medium text-slate-800 shadow-sm hover:bg-slate-50"
              >
                Compare…
              </Link>
              <ExportLinks
                links={[
                  ...exportFormats(`/runs/${r.id}/export`),
                  { label: "series CSV", href: `/runs/${r.id}/export?format=series-csv` },
                ]}
              />
            </div>
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
      {r.excluded && (
        <div className="rounded-lg border border-slate-300 bg-slate-100 px-4 py-3 text-sm text-slate-700">
          <span className="font-semibold">Excluded from sweeps and trends: </span>
          {r.excludedReason}
        </div>
      )}

      {live && (
        <LivePanel
          status={r.status}
          progress={progress}
          connected={stream.connected}
          opened={stream.opened}
          waitingFor={r.waitingFor}
        />
      )}

      {ended && view.isPending && <Skeleton className="h-64" label="Loading results" />}
      {view.isError && (
        <ErrorState title="Results not available" message={errorMessage(view.error)} onRetry={() => view.refetch()} />
      )}
      {view.data?.result?.capacitySearch && <CapacitySearchPanel search={view.data.result.capacitySearch} />}
      {view.data && <RunReport view={view.data} chart={chart.data} chartLoading={chart.isLoading} />}

      {view.data && (
        <div className="grid gap-6 lg:grid-cols-2">
          <Card title="Notes, tags and exclusion">
            <RunMetaEditor
              key={`${view.data.run.notes}|${view.data.run.tags.join(",")}|${view.data.run.excluded}`}
              runId={r.id}
              notes={view.data.run.notes}
              tags={view.data.run.tags}
              excluded={view.data.run.excluded}
              excludedReason={view.data.run.excludedReason}
              canEdit={canEdit}
            />
          </Card>
          <Card title="Share">
            <SharePanel runId={r.id} canEdit={canEdit} />
          </Card>
        </div>
      )}
      {view.data && <Snapshots view={view.data} />}
      <ConfirmDialog
        open={confirmCancel}
        title={`Cancel run #${r.number}?`}
        confirmLabel="Cancel run"
        dismissLabel="Keep running"
        pending={cancel.isPending}
        error={cancel.isError ? errorMessage(cancel.error) : null}
        onConfirm={() => cancel.mutate({ id: r.id })}
        onCancel={() => setConfirmCancel(false)}
      >
        <p>The load stops within a second. What was measured so far is kept, and the run ends canceled.</p>
      </ConfirmDialog>
    </div>
  );
}
