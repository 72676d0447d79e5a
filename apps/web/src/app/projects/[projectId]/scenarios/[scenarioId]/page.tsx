import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { ScenarioEditor } from "../_components/scenario-editor";

export const metadata = { title: "Edit scenario" };

export default async function EditScenarioPage({
  params,
}: {
  params: Promise<{ projectId: string; scenarioId: string }>;
}) {
  const { projectId, scenarioId } = await params;
  await prefetch(serverTrpc.scenario.byId.queryOptions({ id: scenarioId }), serverTrpc.project.caps.queryOptions());
  return (
    <HydrateClient>
      <ScenarioEditor projectId={projectId} scenarioId={scenarioId} />
    </HydrateClient>
  );
}
