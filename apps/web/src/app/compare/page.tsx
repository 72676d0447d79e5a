import { Skeleton } from "@benchboard/ui";
import { Suspense } from "react";
import { PageHeader } from "../_components/page-header";
import { CompareWorkspace } from "./_components/compare-workspace";

export const metadata = { title: "Compare" };

/** `/compare?runs=a,b,c&baseline=b`: the URL holds the runs, their order and the baseline. */
export default function ComparePage() {
  return (
    <>
      <PageHeader
        title="Compare runs"
        subtitle="Side by side against a baseline: absolute values, deltas, configuration differences and timelines."
      />
      <Suspense fallback={<Skeleton className="h-40" label="Loading comparison" />}>
        <CompareWorkspace />
      </Suspense>
    </>
  );
}
