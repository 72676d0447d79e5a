"use client";

import { Card, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";

export function OrgSettings() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const org = useQuery(trpc.org.current.queryOptions());
  const me = useQuery(trpc.auth.me.queryOptions());
  const update = useMutation(
    trpc.org.update.mutationOptions({ onSuccess: () => qc.invalidateQueries({ queryKey: trpc.org.pathKey() }) }),
  );
  if (org.isPending) return <Skeleton className="h-24" label="Loading organization" />;
  if (org.isError) return null;
  const isOwner = me.data?.role === "owner";
  return (
    <Card title="Organization">
      <dl className="space-y-2 text-sm">
        <div className="flex justify-between">
          <dt className="text-slate-600">Name</dt>
          <dd className="font-medium">{org.data.name}</dd>
        </div>
      </dl>
      <label className="mt-4 flex items-start gap-2 text-sm">
        <input
          type="checkbox"
          className="mt-0.5"
          checked={org.data.allowPrivateTargets}
          disabled={!isOwner || update.isPending}
          onChange={(e) => update.mutate({ allowPrivateTargets: e.target.checked })}
        />
        <span>
          Allow targets on link-local and cloud-metadata addresses
          <span className="block text-xs text-slate-500">
            Off by default: a load tester pointed at 169.254.169.254 could read cloud credentials. Only owners can
            change this.
          </span>
        </span>
      </label>
      {update.isError && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {errorMessage(update.error)}
        </p>
      )}
    </Card>
  );
}
