"use client";

import { EmptyState, ErrorState, Skeleton } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";

export function WorkerList() {
  const trpc = useTRPC();
  const workers = useQuery({ ...trpc.worker.list.queryOptions(), refetchInterval: 5_000 });
  if (workers.isPending) return <Skeleton className="h-32" label="Loading workers" />;
  if (workers.isError) return <ErrorState message={errorMessage(workers.error)} onRetry={() => workers.refetch()} />;
  if (workers.data.length === 0) {
    return (
      <EmptyState title="No workers are running">
        Runs wait in the queue until a worker starts: <code>pnpm --filter @benchboard/runner start</code>
      </EmptyState>
    );
  }
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
      <table className="w-full text-sm" aria-label="Workers">
        <thead className="bg-slate-50 text-left text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">Worker</th>
            <th className="px-3 py-2">State</th>
            <th className="px-3 py-2">Host</th>
            <th className="px-3 py-2">Labels</th>
            <th className="px-3 py-2 text-right">Busy / capacity</th>
            <th className="px-3 py-2 text-right">Last heartbeat</th>
            <th className="px-3 py-2">Started</th>
          </tr>
        </thead>
        <tbody>
          {workers.data.map((w) => (
            <tr key={w.id} className="border-t border-slate-100">
              <td className="px-3 py-2 font-mono text-xs">{w.id}</td>
              <td className="px-3 py-2">
                <span
                  className={`inline-flex items-center gap-1.5 text-xs font-medium ${w.online ? "text-emerald-700" : "text-slate-500"}`}
                >
                  <span
                    aria-hidden
                    className={`h-2 w-2 rounded-full ${w.online ? "bg-emerald-500" : "bg-slate-300"}`}
                  />
                  {w.online ? "online" : "offline"}
                </span>
              </td>
              <td className="px-3 py-2">
                {w.host === null ? (
                  <span className="text-xs text-slate-400" title="Shown to the install's own organization">
                    not shown
                  </span>
                ) : (
                  <>
                    {w.host} <span className="text-xs text-slate-500">pid {w.pid}</span>
                  </>
                )}
              </td>
              <td className="px-3 py-2">
                {w.labels.length ? (
                  w.labels.map((l) => (
                    <span key={l} className="mr-1 rounded bg-slate-100 px-1.5 py-0.5 text-xs">
                      {l}
                    </span>
                  ))
                ) : (
                  <span className="text-xs text-slate-400">none</span>
                )}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">
                {w.activeJobs} / {w.capacity}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{(w.heartbeatAgeMs / 1000).toFixed(0)} s ago</td>
              <td className="px-3 py-2 text-slate-600">{new Date(w.startedAt).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
