import { HydrateClient, prefetch, prefetched, serverTrpc } from "~/trpc/server";
import { LaunchForm } from "./_components/launch-form";
import { capacityEngineFor } from "./_components/launch-spec";

export const metadata = { title: "Launch a run" };

export default async function LaunchPage({
  params,
  searchParams,
}: {
  params: Promise<{ projectId: string }>;
  searchParams: Promise<{ targetId?: string; scenarioId?: string; configId?: string }>;
}) {
  const { projectId } = await params;
  const preselect = await searchParams;
  // The form's choices together, then what one worker sends with the scenario it starts on.
  const [scenarios] = await Promise.all([
    prefetched(serverTrpc.scenario.list.queryOptions({ projectId })),
    prefetch(
      serverTrpc.target.list.queryOptions({ projectId }),
      serverTrpc.instanceConfig.list.queryOptions({ projectId }),
      serverTrpc.project.caps.queryOptions(),
      serverTrpc.worker.labels.queryOptions(),
      serverTrpc.agent.labels.queryOptions(),
    ),
  ]);
  const engine = capacityEngineFor(scenarios, preselect.scenarioId ?? "");
  if (engine) await prefetch(serverTrpc.run.workerCapacity.queryOptions({ engine }));
  return (
    <HydrateClient>
      <LaunchForm projectId={projectId} preselect={preselect} />
    </HydrateClient>
  );
}
