import { HydrateClient, prefetch, prefetched, serverTrpc } from "~/trpc/server";
import { PageHeader } from "../_components/page-header";
import { SweepList } from "./_components/sweep-list";

export const metadata = { title: "Sweeps" };

export default async function SweepsPage() {
  const [me] = await Promise.all([
    prefetched(serverTrpc.auth.me.queryOptions()),
    prefetch(serverTrpc.sweep.list.queryOptions()),
  ]);
  if (me?.role === "owner" || me?.role === "member") await prefetchSweepForm();
  return (
    <>
      <PageHeader
        title="Sweeps"
        subtitle="One scenario across values of a parameter: which value meets the thresholds best."
      />
      <HydrateClient>
        <SweepList />
      </HydrateClient>
    </>
  );
}

/** The new-sweep form as it first shows: the first project's choices and its first scenario's parameters. */
async function prefetchSweepForm() {
  const [projects] = await Promise.all([
    prefetched(serverTrpc.project.list.queryOptions()),
    prefetch(serverTrpc.worker.labels.queryOptions(), serverTrpc.agent.labels.queryOptions()),
  ]);
  const projectId = projects?.[0]?.id;
  if (!projectId) return;
  const [scenarios] = await Promise.all([
    prefetched(serverTrpc.scenario.list.queryOptions({ projectId })),
    prefetch(
      serverTrpc.target.list.queryOptions({ projectId }),
      serverTrpc.instanceConfig.list.queryOptions({ projectId }),
    ),
  ]);
  const scenarioId = scenarios?.[0]?.id;
  if (scenarioId) await prefetch(serverTrpc.sweep.parameters.queryOptions({ scenarioId, instanceConfigId: null }));
}
