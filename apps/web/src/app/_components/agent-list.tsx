"use client";

import { EmptyState, ErrorState, Skeleton } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/client";

const STATE_STYLE = {
  online: { text: "text-emerald-700", dot: "bg-emerald-500" },
  busy: { text: "text-sky-700", dot: "bg-sky-500" },
  offline: { text: "text-slate-500", dot: "bg-slate-300" },
} as const;

function ago(at: Date | string): string {
  const s = Math.max(0, Math.round((Date.now() - new Date(at).getTime()) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return new Date(at).toLocaleString();
}

/** The organization's own agents (`benchboard agent` in its network): state, labels, version, last seen. */
export function AgentList() {
  const trpc = useTRPC();
  const agents = useQuery({ ...trpc.agent.list.queryOptions(), refetchInterval: 5_000 });
  if (agents.isPending) return <Skeleton className="h-24" label="Loading agents" />;
  if (agents.isError) return <ErrorState message={agents.error.message} onRetry={() => agents.refetch()} />;
  if (agents.data.length === 0) {
    return (
      <EmptyState title="No agents yet">
        Run load from inside your network: create an agent token in Settings, then{" "}
        <code>benchboard agent --label lab</code> with it in <code>BENCHBOARD_AGENT_TOKEN</code>.
      </EmptyState>
    );
  }
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
      <table className="w-full text-sm" aria-label="Agents">
        <thead className="bg-slate-50 text-left text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">Agent</th>
            <th className="px-3 py-2">State</th>
            <th className="px-3 py-2">Labels</th>
            <th className="px-3 py-2 text-right">Busy / capacity</th>
            <th className="px-3 py-2">Version</th>
            <th className="px-3 py-2 text-right">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {agents.data.map((a) => (
            <tr key={a.id} className="border-t border-slate-100">
              <td className="px-3 py-2 font-mono text-xs">
                {a.name}
                {a.tokenRevoked && <span className="ml-2 text-rose-700">token revoked</span>}
              </td>
              <td className="px-3 py-2">
                <span className={`inline-flex items-center gap-1.5 text-xs font-medium ${STATE_STYLE[a.state].text}`}>
                  <span aria-hidden className={`h-2 w-2 rounded-full ${STATE_STYLE[a.state].dot}`} />
                  {a.state === "offline" && a.offlineSince ? `offline since ${ago(a.offlineSince)}` : a.state}
                </span>
              </td>
              <td className="px-3 py-2">
                {a.labels.map((l) => (
                  <span key={l} className="mr-1 rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs">
                    {l}
                  </span>
                ))}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">
                {a.activeRuns} / {a.capacity}
              </td>
              <td className="px-3 py-2 font-mono text-xs">{a.version || "—"}</td>
              <td className="px-3 py-2 text-right text-xs text-slate-500">{ago(a.lastSeenAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
