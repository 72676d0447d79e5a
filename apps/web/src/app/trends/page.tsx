import { Skeleton } from "@benchboard/ui";
import { Suspense } from "react";
import { PageHeader } from "../_components/page-header";
import { TrendView } from "./_components/trend-view";

export const metadata = { title: "Trends" };

export default function TrendsPage() {
  return (
    <>
      <PageHeader
        title="Trends"
        subtitle="A metric across a scenario's runs, one line per branch; excluded runs stay off the lines."
      />
      <Suspense fallback={<Skeleton className="h-40" label="Loading trends" />}>
        <TrendView />
      </Suspense>
    </>
  );
}
