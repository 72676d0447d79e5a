"use client";

import { Card, Skeleton } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/client";

const n = (v: number) => v.toLocaleString("en-US");

/** The organization and the caps its load runs within (set by the operator of this install). */
export function OrgSettings() {
  const trpc = useTRPC();
  const org = useQuery(trpc.org.current.queryOptions());
  const caps = useQuery(trpc.project.caps.queryOptions());
  if (org.isPending) return <Skeleton className="h-24" label="Loading organization" />;
  if (org.isError) return null;
  return (
    <Card title="Organization">
      <dl className="space-y-2 text-sm" aria-label="Organization caps">
        <div className="flex justify-between">
          <dt className="text-slate-600">Name</dt>
          <dd className="font-medium">{org.data.name}</dd>
        </div>
        {caps.data && (
          <>
            <div className="flex justify-between">
              <dt className="text-slate-600">Rate</dt>
              <dd>{n(caps.data.caps.maxRate)} req/s</dd>
            </div>
            <div className="flex justify-between">
              <dt className="text-slate-600">Connections</dt>
              <dd>{n(caps.data.caps.maxConnections)}</dd>
            </div>
            <div className="flex justify-between">
              <dt className="text-slate-600">Duration</dt>
              <dd>{n(caps.data.caps.maxDurationS)} s</dd>
            </div>
            <div className="flex justify-between">
              <dt className="text-slate-600">Runs at a time</dt>
              <dd>{n(caps.data.caps.maxConcurrentRuns)}</dd>
            </div>
            <div className="flex justify-between">
              <dt className="text-slate-600">Worker slots (one per shard)</dt>
              <dd>{n(caps.data.caps.maxWorkerSlots)}</dd>
            </div>
          </>
        )}
      </dl>
      <p className="mt-3 text-xs text-slate-500">
        Caps and which addresses may be targets are set by the operator of this install. Load reaches a target only once
        its origin is verified (see the target&apos;s page); cloud metadata and link-local addresses are never targets.
      </p>
    </Card>
  );
}
