import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { AgentList } from "../_components/agent-list";
import { PageHeader } from "../_components/page-header";
import { WorkerList } from "./worker-list";

export const metadata = { title: "Workers" };

export default async function WorkersPage() {
  await prefetch(serverTrpc.worker.list.queryOptions(), serverTrpc.agent.list.queryOptions());
  return (
    <>
      <PageHeader
        title="Workers"
        subtitle="Processes that execute runs. Each announces its host, labels and capacity every few seconds."
      />
      <HydrateClient>
        <WorkerList />
        <h2 className="mt-8 mb-2 text-lg font-semibold text-slate-900">Your agents</h2>
        <p className="mb-3 text-sm text-slate-600">
          This organization's <code>benchboard agent</code> processes, inside its own network; no other organization
          sees them.
        </p>
        <AgentList />
      </HydrateClient>
    </>
  );
}
