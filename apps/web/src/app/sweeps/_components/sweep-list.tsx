"use client";

import { formatSweepValue, type SweepValue } from "@benchboard/core";
import { Card, EmptyState, ErrorState, Skeleton, StatusBadge } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { SweepForm } from "./sweep-form";

export function SweepList() {
  const trpc = useTRPC();
  const canEdit = useCanEdit();
  const sweeps = useQuery({
    ...trpc.sweep.list.queryOptions(),
    refetchInterval: (q) => (q.state.data?.some((s) => s.status === "running") ? 2_000 : false),
  });
  return (
    <div className="space-y-6">
      {canEdit && (
        <Card title="New sweep">
          <SweepForm />
        </Card>
      )}
      <Card title="Sweeps">
        {sweeps.isPending ? (
          <Skeleton className="h-24" label="Loading sweeps" />
        ) : sweeps.isError ? (
          <ErrorState message={errorMessage(sweeps.error)} onRetry={() => sweeps.refetch()} />
        ) : sweeps.data.length === 0 ? (
          <EmptyState title="No sweeps yet">Launch one above: one scenario across values of a parameter.</EmptyState>
        ) : (
          <table className="w-full text-sm" aria-label="Sweeps">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1.5">Name</th>
                <th className="py-1.5">Project</th>
                <th className="py-1.5">Parameter</th>
                <th className="py-1.5">Values</th>
                <th className="py-1.5">Status</th>
                <th className="py-1.5 text-right">Runs</th>
              </tr>
            </thead>
            <tbody>
              {sweeps.data.map((s) => (
                <tr key={s.id} className="border-t border-slate-100">
                  <td className="py-1.5">
                    <Link href={`/sweeps/${s.id}`} className="font-medium text-sky-700 hover:underline">
                      {s.name}
                    </Link>
                    {s.hasPublishedFigures && <span className="ml-2 text-xs text-slate-500">published figures</span>}
                  </td>
                  <td className="py-1.5 text-slate-600">{s.project.name}</td>
                  <td className="py-1.5 font-mono text-xs">{s.parameter}</td>
                  <td className="py-1.5 text-slate-600">
                    {(Array.isArray(s.values) ? (s.values as SweepValue[]) : []).map(formatSweepValue).join(", ")}
                  </td>
                  <td className="py-1.5">
                    <StatusBadge status={s.status} />
                  </td>
                  <td className="py-1.5 text-right tabular-nums">{s.runCount}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </div>
  );
}
