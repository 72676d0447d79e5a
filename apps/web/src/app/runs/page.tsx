import { PageHeader } from "../_components/page-header";
import { RunList } from "./_components/run-list";

export const metadata = { title: "Runs" };

export default async function RunsPage({ searchParams }: { searchParams: Promise<{ projectId?: string }> }) {
  const { projectId } = await searchParams;
  return (
    <>
      <PageHeader title="Runs" subtitle="Every launched, uploaded and imported run, newest first." />
      <RunList projectId={projectId} />
    </>
  );
}
