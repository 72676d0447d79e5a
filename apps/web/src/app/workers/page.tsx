import { PageHeader } from "../_components/page-header";
import { WorkerList } from "./worker-list";

export const metadata = { title: "Workers" };

export default function WorkersPage() {
  return (
    <>
      <PageHeader
        title="Workers"
        subtitle="Processes that execute runs. Each announces its host, labels and capacity every few seconds."
      />
      <WorkerList />
    </>
  );
}
