import { Skeleton } from "@benchboard/ui";
import { Suspense } from "react";
import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { sweepQueryInput } from "../_components/sweep-params";
import { SweepReport } from "../_components/sweep-report";

export const metadata = { title: "Sweep" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function SweepPage({
  params,
  searchParams,
}: {
  params: Promise<{ sweepId: string }>;
  searchParams: SearchParams;
}) {
  const { sweepId } = await params;
  const search = await searchParams;
  const get = (name: string) => {
    const v = search[name];
    return (Array.isArray(v) ? v[0] : v) ?? null;
  };
  // The report reads its chart metric and capacity question from the URL's search params; the
  // server fetches the same sweep so the page arrives drawn.
  await prefetch(serverTrpc.sweep.byId.queryOptions(sweepQueryInput(sweepId, get)));
  return (
    <HydrateClient>
      <Suspense fallback={<Skeleton className="h-64" label="Loading sweep" />}>
        <SweepReport id={sweepId} />
      </Suspense>
    </HydrateClient>
  );
}
