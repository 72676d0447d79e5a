import { LaunchForm } from "./_components/launch-form";

export const metadata = { title: "Launch a run" };

export default async function LaunchPage({
  params,
  searchParams,
}: {
  params: Promise<{ projectId: string }>;
  searchParams: Promise<{ targetId?: string; scenarioId?: string; configId?: string }>;
}) {
  const { projectId } = await params;
  const preselect = await searchParams;
  return <LaunchForm projectId={projectId} preselect={preselect} />;
}
