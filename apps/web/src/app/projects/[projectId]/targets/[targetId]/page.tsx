import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { OriginVerification } from "../_components/origin-verification";
import { TargetEditor } from "../_components/target-editor";

export const metadata = { title: "Edit target" };

export default async function EditTargetPage({ params }: { params: Promise<{ projectId: string; targetId: string }> }) {
  const { projectId, targetId } = await params;
  await prefetch(
    serverTrpc.target.byId.queryOptions({ id: targetId }),
    serverTrpc.install.role.queryOptions(),
    serverTrpc.target.verification.queryOptions({ targetId }),
  );
  return (
    <HydrateClient>
      <div className="space-y-6">
        <TargetEditor projectId={projectId} targetId={targetId} />
        <OriginVerification targetId={targetId} />
      </div>
    </HydrateClient>
  );
}
