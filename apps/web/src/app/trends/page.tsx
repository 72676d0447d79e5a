import { Skeleton } from "@benchboard/ui";
import { Suspense } from "react";
import { HydrateClient, prefetch, prefetched, serverTrpc } from "~/trpc/server";
import { PageHeader } from "../_components/page-header";
import { paramReader, trendSelection } from "./_components/trend-selection";
import { TrendView } from "./_components/trend-view";

export const metadata = { title: "Trends" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function TrendsPage({ searchParams }: { searchParams: SearchParams }) {
  // The projects first (which trend does the URL mean?), then that trend and its thresholds at once.
  const projects = await prefetched(serverTrpc.trend.options.queryOptions());
  const { project, input } = trendSelection(projects ?? [], paramReader(await searchParams));
  await prefetch(
    ...(input ? [serverTrpc.trend.view.queryOptions(input)] : []),
    ...(project ? [serverTrpc.trend.thresholds.queryOptions({ projectId: project.id })] : []),
  );
  return (
    <>
      <PageHeader
        title="Trends"
        subtitle="A metric across a scenario's runs, one line per branch; excluded runs stay off the lines."
      />
      <HydrateClient>
        <Suspense fallback={<Skeleton className="h-40" label="Loading trends" />}>
          <TrendView />
        </Suspense>
      </HydrateClient>
    </>
  );
}
