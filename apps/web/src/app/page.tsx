import { PageHeader } from "./_components/page-header";
import { ProjectsOverview } from "./_components/projects-overview";

export default function HomePage() {
  return (
    <>
      <PageHeader title="Projects" subtitle="Products under test: their targets, scenarios and runs." />
      <ProjectsOverview />
    </>
  );
}
