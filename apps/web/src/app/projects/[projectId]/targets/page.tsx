import { TargetList } from "./_components/target-list";

export const metadata = { title: "Targets" };

export default async function TargetsPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <TargetList projectId={projectId} />;
}
