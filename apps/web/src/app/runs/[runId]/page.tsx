import { HydrateClient, prefetch, prefetched, serverTrpc } from "~/trpc/server";
import { RUN_CHART_POINTS, TERMINAL_STATUSES } from "./_components/run-queries";
import { RunView } from "./_components/run-view";

export default async function RunPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  // The run first (is it over?), then its results and charts together: the page arrives drawn.
  const run = await prefetched(serverTrpc.run.byId.queryOptions({ id: runId }));
  if (run && TERMINAL_STATUSES.has(run.status)) {
    await prefetch(
      serverTrpc.run.view.queryOptions({ id: runId }),
      serverTrpc.run.chart.queryOptions({ id: runId, maxPoints: RUN_CHART_POINTS }),
    );
  }
  return (
    <HydrateClient>
      <RunView runId={runId} />
    </HydrateClient>
  );
}
