"use client";

import type { RouterOutputs } from "@benchboard/api";
import { type Column, DataTable } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import { ListStates } from "~/app/_components/list-kit";
import { LocalTime } from "~/app/_components/local-time";
import { useTRPC } from "~/trpc/client";
import { DeliveryAttempts } from "./delivery-attempts";

type Delivery = RouterOutputs["notification"]["deliveries"][number];

const STATUS_STYLE: Record<string, string> = {
  delivered: "text-emerald-700",
  failed: "text-rose-700",
  pending: "text-amber-700",
  sending: "text-sky-700",
  skipped: "text-slate-500",
};

const COLUMNS: Column<Delivery>[] = [
  {
    key: "time",
    header: "Time",
    className: "whitespace-nowrap text-xs",
    cell: (d) => <LocalTime value={d.createdAt} />,
  },
  {
    key: "event",
    header: "Event",
    className: "text-xs",
    cell: (d) => (
      <>
        <span className="font-medium">{d.title}</span>
        <span className="block font-mono text-slate-500">{d.kind}</span>
      </>
    ),
  },
  {
    key: "endpoint",
    header: "Endpoint",
    className: "text-xs",
    cell: (d) => (
      <>
        {d.endpoint.name} <span className="text-slate-500">({d.endpoint.channel})</span>
      </>
    ),
  },
  {
    key: "status",
    header: "Status",
    className: "text-xs font-medium",
    cell: (d) => (
      <span className={STATUS_STYLE[d.status] ?? ""}>
        {d.status}
        {d.status === "pending" && d.nextAttemptAt && (
          <span className="block font-normal text-slate-500">
            next try <LocalTime value={d.nextAttemptAt} time />
          </span>
        )}
        {d.lastError && d.status !== "delivered" && (
          <span className="block font-normal text-slate-500">{d.lastError}</span>
        )}
      </span>
    ),
  },
  {
    key: "http",
    header: "HTTP",
    align: "right",
    className: "font-mono text-xs",
    cell: (d) => d.lastStatus ?? d.statusClass ?? "—",
  },
  {
    key: "attempts",
    header: "Attempts",
    align: "right",
    className: "text-xs",
    cell: (d) => <DeliveryAttempts count={d.attempts} attempts={d.attemptLog} />,
  },
];

/**
 * Time, event, endpoint, status and attempts (each one listed: open the count); never what the
 * receiver answered. The HTTP column is the exact status for the install's own organization and
 * the class ("4xx") for any other.
 */
export function DeliveryLog() {
  const trpc = useTRPC();
  const log = useQuery({ ...trpc.notification.deliveries.queryOptions({ take: 50 }), refetchInterval: 5_000 });
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-semibold text-slate-800">Delivery log</h3>
      <ListStates
        query={log}
        count={log.data?.length}
        loadingLabel="Loading deliveries"
        loadingClassName="h-12"
        emptyTitle="No deliveries yet"
        empty="Use “Send test” on an endpoint to try it."
      >
        <DataTable label="Delivery log" columns={COLUMNS} rows={log.data ?? []} rowKey={(d) => d.id} />
      </ListStates>
    </div>
  );
}
