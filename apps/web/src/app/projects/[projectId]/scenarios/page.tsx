import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { ScenarioList } from "./_components/scenario-list";

export const metadata = { title: "Scenarios" };

export default async function ScenariosPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  await prefetch(serverTrpc.scenario.list.queryOptions({ projectId }));
  return (
    <HydrateClient>
      <ScenarioList projectId={projectId} />
    </HydrateClient>
  );
}
