import { Skeleton } from "@benchboard/ui";
import { Suspense } from "react";
import { HydrateClient, prefetch, prefetchInfinite, serverTrpc } from "~/trpc/server";
import { PageHeader } from "../_components/page-header";
import { listInput, RUN_PAGE_SIZE, readFilters } from "./_components/run-filters";
import { RunList } from "./_components/run-list";

export const metadata = { title: "Runs" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function RunsPage({ searchParams }: { searchParams: SearchParams }) {
  // The filters as the list reads them from the address.
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(await searchParams)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.append(key, v);
  }
  const filters = readFilters(params);
  const scope = filters.projectId ? { projectId: filters.projectId } : undefined;
  await Promise.all([
    // A date filter starts at midnight in the viewer's time zone, which the server does not know:
    // that list is left to the browser.
    filters.from || filters.to
      ? undefined
      : prefetchInfinite(
          serverTrpc.run.list.infiniteQueryOptions(listInput(filters, RUN_PAGE_SIZE), {
            getNextPageParam: (last) => last.nextCursor ?? null,
          }),
        ),
    prefetch(
      serverTrpc.project.list.queryOptions(),
      serverTrpc.target.list.queryOptions(scope),
      serverTrpc.scenario.list.queryOptions(scope),
      serverTrpc.instanceConfig.list.queryOptions(scope),
    ),
  ]);
  return (
    <>
      <PageHeader
        title="Runs"
        subtitle="Every launched, uploaded and imported run. Filter, search, sort, and pick runs to compare."
      />
      <HydrateClient>
        {/* The filters live in the URL; reading it on the client needs a suspense boundary. */}
        <Suspense fallback={<Skeleton className="h-40" label="Loading runs" />}>
          <RunList />
        </Suspense>
      </HydrateClient>
    </>
  );
}
