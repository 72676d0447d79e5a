import { ConfigEditor } from "../_components/config-editor";

export const metadata = { title: "Edit instance config" };

export default async function EditConfigPage({ params }: { params: Promise<{ projectId: string; configId: string }> }) {
  const { projectId, configId } = await params;
  return <ConfigEditor projectId={projectId} configId={configId} />;
}
