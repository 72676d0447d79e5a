import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { ScenarioEditor } from "../_components/scenario-editor";

export const metadata = { title: "New scenario" };

export default async function NewScenarioPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  // A new scenario starts within the organization's caps.
  await prefetch(serverTrpc.project.caps.queryOptions());
  return (
    <HydrateClient>
      <ScenarioEditor projectId={projectId} />
    </HydrateClient>
  );
}
