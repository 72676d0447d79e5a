import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { TargetList } from "./_components/target-list";

export const metadata = { title: "Targets" };

export default async function TargetsPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  await prefetch(serverTrpc.target.list.queryOptions({ projectId }));
  return (
    <HydrateClient>
      <TargetList projectId={projectId} />
    </HydrateClient>
  );
}
