"use client";

import { formatMetric } from "@benchboard/core";
import { Card, EmptyState, ErrorState, Skeleton, StatCard } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { LocalTime } from "~/app/_components/local-time";
import { RunStatus } from "~/app/_components/run-status";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { GettingStarted, gettingStartedSteps } from "../../../_components/getting-started";
import { useCanEdit } from "../../../_components/use-can-edit";
import { StatusBadges } from "./status-badges";

/** What a project has and what happened last, with the next step when something is missing. */
export function ProjectOverview({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const project = useQuery(trpc.project.byId.queryOptions({ id: projectId }));
  const runs = useQuery(trpc.run.list.queryOptions({ projectId, limit: 8 }));
  const base = `/projects/${projectId}`;
  const counts = project.data?._count;

  const canEdit = useCanEdit();
  const steps = counts ? gettingStartedSteps({ id: projectId, counts }) : [];

  return (
    <div className="space-y-6">
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {counts ? (
          <>
            <StatCard label="Targets" value={counts.targets} />
            <StatCard label="Instance configs" value={counts.instanceConfigs} />
            <StatCard label="Scenarios" value={counts.scenarios} />
            <StatCard label="Runs" value={counts.runs} />
          </>
        ) : (
          [0, 1, 2, 3].map((i) => <Skeleton key={i} className="h-20" label={i === 0 ? "Loading counts" : undefined} />)
        )}
      </div>
      {canEdit && <GettingStarted steps={steps} withProjectStep={false} />}
      <Card
        title="Recent runs"
        actions={
          <div className="flex gap-3 text-sm">
            {canEdit && (
              <Link href={`${base}/launch`} className="font-medium text-sky-700 hover:underline">
                Launch a run
              </Link>
            )}
            <Link href={`/runs?projectId=${projectId}`} className="text-sky-700 hover:underline">
              All runs →
            </Link>
          </div>
        }
      >
        {runs.isPending ? (
          <Skeleton className="h-24" label="Loading recent runs" />
        ) : runs.isError ? (
          <ErrorState message={errorMessage(runs.error)} onRetry={() => runs.refetch()} />
        ) : runs.data.items.length === 0 ? (
          <EmptyState title="No runs yet">
            {canEdit
              ? "Launch one once the project has a target and a scenario."
              : "Runs appear here once a member launches or uploads one."}
          </EmptyState>
        ) : (
          <table className="w-full text-sm" aria-label="Recent runs">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1">Run</th>
                <th>Status</th>
                <th>Scenario</th>
                <th>Target</th>
                <th className="text-right">Rate</th>
                <th className="text-right">p99</th>
                <th className="pl-4">Started</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.items.map((r) => {
                const m = (r.result?.metrics ?? {}) as Record<string, number>;
                return (
                  <tr key={r.id} className="border-t border-slate-100">
                    <td className="py-1.5">
                      <Link href={`/runs/${r.id}`} className="font-medium text-sky-700 hover:underline">
                        {r.title}
                      </Link>
                    </td>
                    <td>
                      <RunStatus status={r.status} result={r.result} />
                    </td>
                    <td>{r.scenarioName}</td>
                    <td>{r.target?.name ?? "—"}</td>
                    <td className="text-right tabular-nums">
                      {r.result?.rate ? formatMetric(r.result.rate.metric, r.result.rate.value) : "—"}
                    </td>
                    <td className="text-right tabular-nums">{formatMetric("latency_p99", m.latency_p99)}</td>
                    <td className="pl-4 text-slate-600">
                      <LocalTime value={r.startedAt ?? r.createdAt} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </Card>
      <StatusBadges projectId={projectId} />
    </div>
  );
}
