import { Skeleton } from "@benchboard/ui";
import { Suspense } from "react";
import { PageHeader } from "../_components/page-header";
import { RunList } from "./_components/run-list";

export const metadata = { title: "Runs" };

export default function RunsPage() {
  return (
    <>
      <PageHeader
        title="Runs"
        subtitle="Every launched, uploaded and imported run. Filter, search, sort, and pick runs to compare."
      />
      {/* The filters live in the URL; reading it on the client needs a suspense boundary. */}
      <Suspense fallback={<Skeleton className="h-40" label="Loading runs" />}>
        <RunList />
      </Suspense>
    </>
  );
}
