import type { ReactNode } from "react";
import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { ProjectFrame } from "./_components/project-frame";

export default async function ProjectLayout({
  params,
  children,
}: {
  params: Promise<{ projectId: string }>;
  children: ReactNode;
}) {
  const { projectId } = await params;
  // The heading and the tabs' counts arrive with the page.
  await prefetch(serverTrpc.project.byId.queryOptions({ id: projectId }));
  return (
    <HydrateClient>
      <ProjectFrame projectId={projectId}>{children}</ProjectFrame>
    </HydrateClient>
  );
}
