import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { ProjectOverview } from "./_components/project-overview";

export default async function ProjectPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  await prefetch(
    serverTrpc.project.byId.queryOptions({ id: projectId }),
    serverTrpc.run.list.queryOptions({ projectId, limit: 8 }),
  );
  return (
    <HydrateClient>
      <ProjectOverview projectId={projectId} />
    </HydrateClient>
  );
}
