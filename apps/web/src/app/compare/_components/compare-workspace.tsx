"use client";

import { Button, Card, EmptyState, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { ExportLinks, exportFormats } from "~/app/_components/export-links";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";
import { compareSelection, MAX_RUNS } from "./compare-params";
import { RunPicker } from "./run-picker";
import { SavedComparisons } from "./saved-comparisons";

function url(runIds: readonly string[], baseline: string | null) {
  const params = new URLSearchParams();
  if (runIds.length) params.set("runs", runIds.join(","));
  if (baseline && runIds.includes(baseline) && baseline !== runIds[0]) params.set("baseline", baseline);
  const q = params.toString().replace(/%2C/g, ",");
  return q ? `/compare?${q}` : "/compare";
}

/**
 * Build a comparison: pick 2–10 runs, order them, choose the baseline. The URL
 * (`/compare?runs=a,b,c&baseline=b`) holds the choice, so it can be linked to and bookmarked.
 */
// The report and its charts load only once two runs are picked: the bare page (saved comparisons
// and the picker) stays free of the chart library.
const ComparisonReport = dynamic(() => import("./comparison-report").then((m) => m.ComparisonReport), {
  loading: () => <Skeleton className="h-64" label="Loading comparison" />,
});

export function CompareWorkspace() {
  const trpc = useTRPC();
  const router = useRouter();
  const canEdit = useCanEdit();
  const search = useSearchParams();
  const { runIds, baseline } = compareSelection((name) => search.get(name));
  const [title, setTitle] = useState("");
  const enough = runIds.length >= 2;
  const view = useQuery({
    ...trpc.comparison.view.queryOptions({ runIds, baselineRunId: baseline }),
    enabled: enough,
    placeholderData: (prev) => prev,
  });
  const save = useMutation(
    trpc.comparison.create.mutationOptions({ onSuccess: (c) => router.push(`/compare/${c.id}`) }),
  );
  const errors = fieldErrors(save.error);

  const update = (next: string[], nextBaseline = baseline) => {
    const b = nextBaseline && next.includes(nextBaseline) ? nextBaseline : (next[0] ?? null);
    router.replace(url(next, b), { scroll: false });
  };
  const move = (i: number, by: number) => {
    const next = [...runIds];
    const [id] = next.splice(i, 1);
    next.splice(i + by, 0, id!);
    update(next);
  };
  const labels = new Map(
    (view.data?.runs ?? []).map((r) => [r.id, `${r.title} · ${r.project.name} · ${r.scenarioName}`]),
  );

  return (
    <div className="space-y-6">
      <div className="grid gap-6 lg:grid-cols-2">
        <Card title={`Runs in this comparison (${runIds.length} of at most ${MAX_RUNS})`}>
          {runIds.length === 0 ? (
            <p className="text-sm text-slate-500">Add at least two runs, or select them on the Runs page.</p>
          ) : (
            <ol className="space-y-1.5" aria-label="Chosen runs">
              {runIds.map((id, i) => (
                <li key={id} className="flex items-center gap-2 rounded border border-slate-200 px-2 py-1.5 text-sm">
                  <input
                    type="radio"
                    name="baseline"
                    aria-label={`Use ${labels.get(id) ?? id} as the baseline`}
                    checked={baseline === id}
                    onChange={() => update(runIds, id)}
                  />
                  <span className="min-w-0 flex-1 truncate">{labels.get(id) ?? (view.isPending ? "…" : id)}</span>
                  {baseline === id && <span className="rounded bg-slate-800 px-1.5 text-xs text-white">baseline</span>}
                  <Button
                    variant="secondary"
                    className="px-1.5 py-0 text-xs"
                    disabled={i === 0}
                    aria-label="Move up"
                    onClick={() => move(i, -1)}
                  >
                    ↑
                  </Button>
                  <Button
                    variant="secondary"
                    className="px-1.5 py-0 text-xs"
                    disabled={i === runIds.length - 1}
                    aria-label="Move down"
                    onClick={() => move(i, 1)}
                  >
                    ↓
                  </Button>
                  <Button
                    variant="secondary"
                    className="px-1.5 py-0 text-xs"
                    aria-label={`Remove ${labels.get(id) ?? id}`}
                    onClick={() => update(runIds.filter((x) => x !== id))}
                  >
                    ✕
                  </Button>
                </li>
              ))}
            </ol>
          )}
          {enough && canEdit && (
            <form
              className="mt-4 flex items-end gap-2"
              onSubmit={(e) => {
                e.preventDefault();
                save.mutate({ title, runIds, baselineRunId: baseline ?? runIds[0]! });
              }}
            >
              <div className="flex-1">
                <Field
                  label="Save as"
                  htmlFor="comparison-title"
                  error={errors.title ?? errors.runIds ?? errors.baselineRunId}
                >
                  <input
                    id="comparison-title"
                    className={inputClass}
                    placeholder="e.g. pool 64 vs 16"
                    value={title}
                    onChange={(e) => setTitle(e.target.value)}
                  />
                </Field>
              </div>
              <Button type="submit" disabled={save.isPending}>
                {save.isPending ? "Saving…" : "Save comparison"}
              </Button>
            </form>
          )}
          {save.isError && Object.keys(errors).length === 0 && (
            <p className="mt-2 text-sm text-rose-700">{errorMessage(save.error)}</p>
          )}
        </Card>
        <Card title="Find runs">
          <RunPicker
            chosen={runIds}
            chosenProjectId={view.data?.runs.find((r) => r.id === runIds[0])?.project.id ?? null}
            full={runIds.length >= MAX_RUNS}
            onAdd={(id) => update([...runIds, id])}
          />
        </Card>
      </div>

      {!enough ? (
        <>
          <EmptyState title="Pick at least two runs to compare">
            Or open a saved comparison below.{" "}
            <Link href="/runs" className="text-sky-700 hover:underline">
              Select runs on the Runs page
            </Link>
            .
          </EmptyState>
          <SavedComparisons />
        </>
      ) : view.isPending ? (
        <Skeleton className="h-64" label="Loading comparison" />
      ) : view.isError ? (
        <ErrorState
          title="Comparison not available"
          message={errorMessage(view.error)}
          onRetry={() => view.refetch()}
        />
      ) : (
        <>
          <div className="flex justify-end">
            <ExportLinks
              links={exportFormats(
                `/compare/export?runs=${runIds.join(",")}${baseline ? `&baseline=${baseline}` : ""}`,
              )}
            />
          </div>
          <ComparisonReport view={view.data} runHref={(id) => `/runs/${id}`} />
        </>
      )}
    </div>
  );
}
