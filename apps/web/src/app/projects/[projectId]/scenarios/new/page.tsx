import { ScenarioEditor } from "../_components/scenario-editor";

export const metadata = { title: "New scenario" };

export default async function NewScenarioPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <ScenarioEditor projectId={projectId} />;
}
