import { Skeleton } from "@benchboard/ui";
import { Suspense } from "react";
import { SweepReport } from "../_components/sweep-report";

export const metadata = { title: "Sweep" };

export default async function SweepPage({ params }: { params: Promise<{ sweepId: string }> }) {
  const { sweepId } = await params;
  // The report reads its chart metric and capacity question from the URL's search params.
  return (
    <Suspense fallback={<Skeleton className="h-64" label="Loading sweep" />}>
      <SweepReport id={sweepId} />
    </Suspense>
  );
}
