import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { ConfigList } from "./_components/config-list";

export const metadata = { title: "Instance configs" };

export default async function ConfigsPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  await prefetch(serverTrpc.instanceConfig.list.queryOptions({ projectId }));
  return (
    <HydrateClient>
      <ConfigList projectId={projectId} />
    </HydrateClient>
  );
}
