"use client";

import { formatBytes } from "@benchboard/core";
import { ErrorState, Skeleton } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/client";

/**
 * Detail retention as the environment sets it (BENCHBOARD_RETAIN_DETAIL_DAYS), with the runs it
 * would trim now and the bytes that frees; when it is off, what 90 days would free.
 */
export function RetentionSummary() {
  const trpc = useTRPC();
  const retention = useQuery(trpc.install.retention.queryOptions());
  if (retention.isPending) return <Skeleton className="h-12" label="Loading detail retention" />;
  if (retention.isError) return <ErrorState message={retention.error.message} onRetry={() => retention.refetch()} />;
  const { days, previewDays, runs, bytes } = retention.data;
  const runsText = `${runs.toLocaleString("en-US")} run${runs === 1 ? "" : "s"}`;
  return (
    <section aria-labelledby="retention-heading" className="mt-6 border-t border-slate-200 pt-4">
      <h3 id="retention-heading" className="text-sm font-medium">
        Detail retention
      </h3>
      {days === null ? (
        <p className="mt-1 text-sm text-slate-600">
          Off: every run keeps its per-second series. Setting{" "}
          <code className="font-mono text-xs">BENCHBOARD_RETAIN_DETAIL_DAYS={previewDays}</code> would downsample{" "}
          {runsText} to 10 s now and free about <strong>{formatBytes(bytes)}</strong>.
        </p>
      ) : (
        <p className="mt-1 text-sm text-slate-600">
          Runs that ended more than {days} days ago keep their metrics and merged histogram, with series downsampled to
          10 s. Waiting now: {runsText}, about <strong>{formatBytes(bytes)}</strong> to free.
        </p>
      )}
      <p className="mt-1 text-xs text-slate-500">
        Never trimmed: runs in a comparison or its baseline, runs with a share link, pinned runs and published
        benchmarks.
      </p>
    </section>
  );
}
