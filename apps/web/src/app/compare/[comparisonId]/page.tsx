import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { SavedComparison } from "../_components/saved-comparison";

export const metadata = { title: "Comparison" };

export default async function SavedComparisonPage({ params }: { params: Promise<{ comparisonId: string }> }) {
  const { comparisonId } = await params;
  await prefetch(serverTrpc.comparison.byId.queryOptions({ id: comparisonId }));
  return (
    <HydrateClient>
      <SavedComparison id={comparisonId} />
    </HydrateClient>
  );
}
