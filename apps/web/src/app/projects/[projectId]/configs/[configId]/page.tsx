import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { ConfigEditor } from "../_components/config-editor";

export const metadata = { title: "Edit instance config" };

export default async function EditConfigPage({ params }: { params: Promise<{ projectId: string; configId: string }> }) {
  const { projectId, configId } = await params;
  await prefetch(serverTrpc.instanceConfig.byId.queryOptions({ id: configId }));
  return (
    <HydrateClient>
      <ConfigEditor projectId={projectId} configId={configId} />
    </HydrateClient>
  );
}
