"use client";

import { Card, EmptyState, ErrorState, Skeleton } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { LocalTime } from "~/app/_components/local-time";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";

export function SavedComparisons() {
  const trpc = useTRPC();
  const list = useQuery(trpc.comparison.list.queryOptions());
  return (
    <Card title="Saved comparisons">
      {list.isPending ? (
        <Skeleton className="h-24" label="Loading comparisons" />
      ) : list.isError ? (
        <ErrorState message={errorMessage(list.error)} onRetry={() => list.refetch()} />
      ) : list.data.length === 0 ? (
        <EmptyState title="No saved comparisons yet" />
      ) : (
        <table className="w-full text-sm" aria-label="Saved comparisons">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="py-1.5">Title</th>
              <th className="py-1.5">Project</th>
              <th className="py-1.5 text-right">Runs</th>
              <th className="py-1.5">Published figures</th>
              <th className="py-1.5">Saved</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((c) => (
              <tr key={c.id} className="border-t border-slate-100">
                <td className="py-1.5">
                  <Link href={`/compare/${c.id}`} className="font-medium text-sky-700 hover:underline">
                    {c.title}
                  </Link>
                  {c.activeShareLinks > 0 && <span className="ml-2 text-xs text-slate-500">shared</span>}
                </td>
                <td className="py-1.5 text-slate-600">{c.project?.name ?? "several"}</td>
                <td className="py-1.5 text-right tabular-nums">{c.runCount}</td>
                <td className="py-1.5 text-slate-600">{c.hasPublishedFigures ? "checked" : "—"}</td>
                <td className="py-1.5 text-slate-600">
                  <LocalTime value={c.createdAt} date />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
