import { ScenarioList } from "./_components/scenario-list";

export const metadata = { title: "Scenarios" };

export default async function ScenariosPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <ScenarioList projectId={projectId} />;
}
