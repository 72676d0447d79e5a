import { TargetEditor } from "../_components/target-editor";

export const metadata = { title: "New target" };

export default async function NewTargetPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <TargetEditor projectId={projectId} />;
}
