"use client";

import { Button, Card, ErrorState, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { ExportLinks, exportFormats } from "~/app/_components/export-links";
import { LocalTime } from "~/app/_components/local-time";
import { PageHeader } from "~/app/_components/page-header";
import { SharePanel } from "~/app/_components/share-panel";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { ComparisonReport } from "./comparison-report";

export function SavedComparison({ id }: { id: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const canEdit = useCanEdit();
  const saved = useQuery(trpc.comparison.byId.queryOptions({ id }));
  const update = useMutation(
    trpc.comparison.update.mutationOptions({
      onSuccess: () => qc.invalidateQueries(trpc.comparison.byId.queryFilter({ id })),
    }),
  );
  const remove = useMutation(trpc.comparison.delete.mutationOptions({ onSuccess: () => router.push("/compare") }));

  if (saved.isPending) return <Skeleton className="h-64" label="Loading comparison" />;
  if (saved.isError)
    return (
      <ErrorState
        title="Comparison not available"
        message={errorMessage(saved.error)}
        onRetry={() => saved.refetch()}
      />
    );
  const { comparison, view } = saved.data;
  const runIds = view.runs.map((r) => r.id);
  return (
    <div className="space-y-6">
      <PageHeader
        title={comparison.title}
        subtitle={
          <>
            {comparison.project?.name ?? "Runs from several projects"} · {view.runs.length} runs · saved{" "}
            <LocalTime value={comparison.createdAt} date />
          </>
        }
        actions={
          <div className="flex items-center gap-3">
            <ExportLinks links={exportFormats(`/compare/export?comparison=${id}`)} />
            <Link
              href={`/compare?runs=${runIds.join(",")}&baseline=${view.baselineRunId ?? ""}`}
              className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-sm hover:bg-slate-50"
            >
              Edit as new
            </Link>
            {canEdit && (
              <Button variant="danger" onClick={() => remove.mutate({ id })} disabled={remove.isPending}>
                Delete
              </Button>
            )}
          </div>
        }
      />
      {comparison.notes && <p className="max-w-4xl text-sm text-slate-700">{comparison.notes}</p>}
      {canEdit && (
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <label htmlFor="saved-baseline" className="text-slate-600">
            Baseline
          </label>
          <select
            id="saved-baseline"
            className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
            value={view.baselineRunId ?? ""}
            onChange={(e) => update.mutate({ id, baselineRunId: e.target.value })}
          >
            {view.runs.map((r) => (
              <option key={r.id} value={r.id}>
                {r.title}
              </option>
            ))}
          </select>
          {update.isError && <span className="text-rose-700">{errorMessage(update.error)}</span>}
        </div>
      )}
      <ComparisonReport view={view} runHref={(runId) => `/runs/${runId}`} />
      <Card title="Share">
        <SharePanel comparisonId={id} canEdit={canEdit} />
      </Card>
    </div>
  );
}
