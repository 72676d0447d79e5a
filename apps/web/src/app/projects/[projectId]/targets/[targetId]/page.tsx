import { TargetEditor } from "../_components/target-editor";

export const metadata = { title: "Edit target" };

export default async function EditTargetPage({ params }: { params: Promise<{ projectId: string; targetId: string }> }) {
  const { projectId, targetId } = await params;
  return <TargetEditor projectId={projectId} targetId={targetId} />;
}
