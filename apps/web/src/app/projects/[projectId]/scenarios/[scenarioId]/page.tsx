import { ScenarioEditor } from "../_components/scenario-editor";

export const metadata = { title: "Edit scenario" };

export default async function EditScenarioPage({
  params,
}: {
  params: Promise<{ projectId: string; scenarioId: string }>;
}) {
  const { projectId, scenarioId } = await params;
  return <ScenarioEditor projectId={projectId} scenarioId={scenarioId} />;
}
