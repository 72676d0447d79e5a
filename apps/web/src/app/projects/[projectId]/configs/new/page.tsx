import { ConfigEditor } from "../_components/config-editor";

export const metadata = { title: "New instance config" };

export default async function NewConfigPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <ConfigEditor projectId={projectId} />;
}
