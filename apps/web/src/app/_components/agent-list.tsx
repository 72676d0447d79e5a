"use client";

import type { RouterOutputs } from "@benchboard/api";
import { type Column, DataTable } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "~/trpc/client";
import { actionsColumn, LabelChips, ListStates, StateDot, useDeleteDialog } from "./list-kit";
import { useCanEdit } from "./use-can-edit";

type Agent = RouterOutputs["agent"]["list"][number];

const TONE = { online: "good", busy: "active", offline: "idle" } as const;

function agoText(at: Date | string): string {
  const s = Math.max(0, Math.round((Date.now() - new Date(at).getTime()) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return new Date(at).toLocaleString();
}

/**
 * How long ago, by the clock of whoever draws it: the server's text can be a second behind the
 * browser's (or in another time zone), which is no reason to redraw the page while hydrating; the
 * list refreshes every few seconds anyway.
 */
function Ago({ at }: { at: Date | string }) {
  return <span suppressHydrationWarning>{agoText(at)}</span>;
}

const COLUMNS: Column<Agent>[] = [
  {
    key: "agent",
    header: "Agent",
    className: "font-mono text-xs",
    cell: (a) => (
      <>
        {a.name}
        {a.tokenRevoked && <span className="ml-2 text-rose-700">token revoked</span>}
      </>
    ),
  },
  {
    key: "state",
    header: "State",
    cell: (a) => (
      <StateDot tone={TONE[a.state]}>
        {a.state === "offline" && a.offlineSince ? (
          <>
            offline since <Ago at={a.offlineSince} />
          </>
        ) : (
          a.state
        )}
      </StateDot>
    ),
  },
  { key: "labels", header: "Labels", cell: (a) => <LabelChips labels={a.labels} mono /> },
  {
    key: "busy",
    header: "Busy / capacity",
    align: "right",
    className: "tabular-nums",
    cell: (a) => `${a.activeRuns} / ${a.capacity}`,
  },
  {
    key: "limits",
    header: "Limits",
    className: "text-xs text-slate-600",
    cell: (a) => limitsText(a.limits),
  },
  { key: "version", header: "Version", className: "font-mono text-xs", cell: (a) => a.version || "—" },
  {
    key: "seen",
    header: "Last seen",
    align: "right",
    className: "text-xs text-slate-500",
    cell: (a) => <Ago at={a.lastSeenAt} />,
  },
];

/** What an agent announced it takes (`--max-rate`, `--max-connections`, `--engine`): runs beyond it go to others. */
function limitsText(limits: Agent["limits"]): string {
  const parts = [
    limits.maxRate !== null ? `≤ ${limits.maxRate.toLocaleString("en-US")} req/s` : null,
    limits.maxConnections !== null ? `≤ ${limits.maxConnections.toLocaleString("en-US")} connections` : null,
    limits.engines.length ? limits.engines.join(", ") : null,
  ].filter(Boolean);
  return parts.length ? parts.join(" · ") : "—";
}

/**
 * The organization's own agents (`benchboard agent` in its network): state, labels, limits,
 * version, last seen. An offline agent can be removed (a new process with its name adds it again).
 */
export function AgentList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canEdit = useCanEdit();
  const agents = useQuery({ ...trpc.agent.list.queryOptions(), refetchInterval: 5_000 });
  const remove = useMutation(
    trpc.agent.remove.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.agent.list.queryKey() }),
    }),
  );
  const removing = useDeleteDialog<Agent>({
    mutation: {
      ...remove,
      mutate: ({ id }, options) => {
        const agent = agents.data?.find((a) => a.id === id);
        if (agent) remove.mutate({ name: agent.name }, options);
      },
    },
    kind: "agent",
    confirmLabel: "Remove agent",
    consequence: (a) => (
      <p>
        Its runs keep saying they ran on {a.name}. A process started again with this name and a valid token adds it
        back.
      </p>
    ),
  });
  const columns: Column<Agent>[] = canEdit
    ? [
        ...COLUMNS,
        actionsColumn((a) =>
          a.state === "offline" ? (
            <button
              type="button"
              className="text-rose-700 hover:underline"
              aria-label={`Remove ${a.name}`}
              onClick={() => removing.ask(a)}
            >
              Remove
            </button>
          ) : null,
        ),
      ]
    : COLUMNS;
  return (
    <ListStates
      query={agents}
      count={agents.data?.length}
      loadingLabel="Loading agents"
      emptyTitle="No agents yet"
      empty={
        <>
          Run load from inside your network: create an agent token in{" "}
          <Link href="/settings/agents" className="text-sky-700 hover:underline">
            Settings → Agents
          </Link>
          , then <code>benchboard agent --label lab</code> with it in <code>BENCHBOARD_AGENT_TOKEN</code>.
        </>
      }
    >
      <DataTable label="Agents" variant="panel" columns={columns} rows={agents.data ?? []} rowKey={(a) => a.id} />
      {removing.dialog}
    </ListStates>
  );
}
