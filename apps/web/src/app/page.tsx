import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { PageHeader } from "./_components/page-header";
import { ProjectsOverview } from "./_components/projects-overview";

export default async function HomePage() {
  await prefetch(serverTrpc.project.list.queryOptions());
  return (
    <>
      <PageHeader title="Projects" subtitle="Products under test: their targets, scenarios and runs." />
      <HydrateClient>
        <ProjectsOverview />
      </HydrateClient>
    </>
  );
}
