import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { TargetEditor } from "../_components/target-editor";

export const metadata = { title: "New target" };

export default async function NewTargetPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  await prefetch(serverTrpc.install.role.queryOptions());
  return (
    <HydrateClient>
      <TargetEditor projectId={projectId} />
    </HydrateClient>
  );
}
