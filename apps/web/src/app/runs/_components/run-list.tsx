"use client";

import { formatMetric } from "@benchboard/core";
import { EmptyState, ErrorState, Skeleton, StatusBadge } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "~/trpc/client";

export function RunList({ projectId }: { projectId?: string }) {
  const trpc = useTRPC();
  const runs = useQuery({
    ...trpc.run.list.queryOptions({ projectId, limit: 50 }),
    refetchInterval: (q) =>
      q.state.data?.items.some((r) => r.status === "running" || r.status === "queued") ? 2_000 : false,
  });
  if (runs.isPending) return <Skeleton className="h-40" label="Loading runs" />;
  if (runs.isError) return <ErrorState message={runs.error.message} onRetry={() => runs.refetch()} />;
  if (runs.data.items.length === 0) return <EmptyState title="No runs yet">Launch one from a project page.</EmptyState>;
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
      <table className="w-full text-sm" aria-label="Runs">
        <thead className="bg-slate-50 text-left text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">Run</th>
            <th className="px-3 py-2">Status</th>
            <th className="px-3 py-2">Project</th>
            <th className="px-3 py-2">Scenario</th>
            <th className="px-3 py-2">Target</th>
            <th className="px-3 py-2 text-right">Req/s</th>
            <th className="px-3 py-2 text-right">p99</th>
            <th className="px-3 py-2">Started</th>
          </tr>
        </thead>
        <tbody>
          {runs.data.items.map((r) => {
            const m = (r.result?.metrics ?? {}) as Record<string, number>;
            return (
              <tr key={r.id} className="border-t border-slate-100 hover:bg-slate-50">
                <td className="px-3 py-2">
                  <Link href={`/runs/${r.id}`} className="font-medium text-sky-700 hover:underline">
                    #{r.number}
                  </Link>
                </td>
                <td className="px-3 py-2">
                  <StatusBadge status={r.status} />
                </td>
                <td className="px-3 py-2">{r.project.name}</td>
                <td className="px-3 py-2">{r.scenarioName}</td>
                <td className="px-3 py-2">{r.target?.name ?? "—"}</td>
                <td className="px-3 py-2 text-right tabular-nums">{m.rps !== undefined ? m.rps.toFixed(1) : "—"}</td>
                <td className="px-3 py-2 text-right tabular-nums">{formatMetric("latency_p99", m.latency_p99)}</td>
                <td className="px-3 py-2 text-slate-600">{new Date(r.startedAt ?? r.createdAt).toLocaleString()}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
