import { Skeleton } from "@benchboard/ui";
import { Suspense } from "react";
import { HydrateClient, prefetch, prefetched, serverTrpc } from "~/trpc/server";
import { PageHeader } from "../_components/page-header";
import { compareSelection, pickerRunsInput } from "./_components/compare-params";
import { CompareWorkspace } from "./_components/compare-workspace";

export const metadata = { title: "Compare" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** `/compare?runs=a,b,c&baseline=b`: the URL holds the runs, their order and the baseline. */
export default async function ComparePage({ searchParams }: { searchParams: SearchParams }) {
  const search = await searchParams;
  const { runIds, baseline } = compareSelection((name) => {
    const v = search[name];
    return (Array.isArray(v) ? v[0] : v) ?? null;
  });
  // What the workspace shows first, fetched together; the picker lists the first run's project.
  const view =
    runIds.length >= 2
      ? await prefetched(serverTrpc.comparison.view.queryOptions({ runIds, baselineRunId: baseline }))
      : undefined;
  const projectId = view?.runs.find((r) => r.id === runIds[0])?.project.id ?? "";
  await prefetch(
    serverTrpc.comparison.list.queryOptions(),
    serverTrpc.project.list.queryOptions(),
    serverTrpc.run.list.queryOptions(pickerRunsInput(projectId)),
  );
  return (
    <>
      <PageHeader
        title="Compare runs"
        subtitle="Side by side against a baseline: absolute values, deltas, configuration differences and timelines."
      />
      <HydrateClient>
        <Suspense fallback={<Skeleton className="h-40" label="Loading comparison" />}>
          <CompareWorkspace />
        </Suspense>
      </HydrateClient>
    </>
  );
}
