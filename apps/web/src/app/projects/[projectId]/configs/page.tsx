import { ConfigList } from "./_components/config-list";

export const metadata = { title: "Instance configs" };

export default async function ConfigsPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <ConfigList projectId={projectId} />;
}
