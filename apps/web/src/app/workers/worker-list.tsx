"use client";

import type { RouterOutputs } from "@benchboard/api";
import { type Column, DataTable } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import { LabelChips, ListStates, StateDot } from "~/app/_components/list-kit";
import { LocalTime } from "~/app/_components/local-time";
import { useTRPC } from "~/trpc/client";

type Worker = RouterOutputs["worker"]["list"][number];

const COLUMNS: Column<Worker>[] = [
  { key: "worker", header: "Worker", className: "font-mono text-xs", cell: (w) => w.id },
  {
    key: "state",
    header: "State",
    cell: (w) => <StateDot tone={w.online ? "good" : "idle"}>{w.online ? "online" : "offline"}</StateDot>,
  },
  {
    key: "host",
    header: "Host",
    cell: (w) =>
      w.host === null ? (
        <span className="text-xs text-slate-400" title="Shown to the install's own organization">
          not shown
        </span>
      ) : (
        <>
          {w.host} <span className="text-xs text-slate-500">pid {w.pid}</span>
        </>
      ),
  },
  { key: "labels", header: "Labels", cell: (w) => <LabelChips labels={w.labels} /> },
  {
    key: "busy",
    header: "Busy / capacity",
    align: "right",
    className: "tabular-nums",
    cell: (w) => `${w.activeJobs} / ${w.capacity}`,
  },
  {
    key: "heartbeat",
    header: "Last heartbeat",
    align: "right",
    className: "tabular-nums",
    cell: (w) => `${(w.heartbeatAgeMs / 1000).toFixed(0)} s ago`,
  },
  {
    key: "started",
    header: "Started",
    className: "text-slate-600",
    cell: (w) => <LocalTime value={w.startedAt} />,
  },
];

export function WorkerList() {
  const trpc = useTRPC();
  const workers = useQuery({ ...trpc.worker.list.queryOptions(), refetchInterval: 5_000 });
  return (
    <ListStates
      query={workers}
      count={workers.data?.length}
      loadingLabel="Loading workers"
      loadingClassName="h-32"
      emptyTitle="No workers are running"
      empty={
        <>
          Runs wait in the queue until a worker starts: <code>pnpm --filter @benchboard/runner start</code>
        </>
      }
    >
      <DataTable label="Workers" variant="panel" columns={COLUMNS} rows={workers.data ?? []} rowKey={(w) => w.id} />
    </ListStates>
  );
}
