import { OriginVerification } from "../_components/origin-verification";
import { TargetEditor } from "../_components/target-editor";

export const metadata = { title: "Edit target" };

export default async function EditTargetPage({ params }: { params: Promise<{ projectId: string; targetId: string }> }) {
  const { projectId, targetId } = await params;
  return (
    <div className="space-y-6">
      <TargetEditor projectId={projectId} targetId={targetId} />
      <OriginVerification targetId={targetId} />
    </div>
  );
}
