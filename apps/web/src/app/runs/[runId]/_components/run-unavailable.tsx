"use client";

import { Button, Card, ErrorState, Skeleton } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import { openOrganization } from "~/lib/org-cookie";
import { useTRPC } from "~/trpc/client";

/**
 * A run the current organization does not have. When it belongs to another organization the
 * user is a member of (a teammate's link), offer to switch there instead of a dead end.
 */
export function RunUnavailable({ runId, message, onRetry }: { runId: string; message: string; onRetry: () => void }) {
  const trpc = useTRPC();
  const elsewhere = useQuery({ ...trpc.org.forRun.queryOptions({ runId }), retry: false });
  if (elsewhere.isPending) return <Skeleton className="h-24" label="Looking for the run in your organizations" />;
  const org = elsewhere.data;
  if (org) {
    return (
      <Card>
        <div role="status" className="space-y-3 p-2 text-sm text-slate-700">
          <h1 className="text-lg font-semibold text-slate-900">This run belongs to {org.name}</h1>
          <p>
            You are a member of <strong>{org.name}</strong>, but you are looking at another organization. Switch to{" "}
            {org.name} to see the run.
          </p>
          <Button
            onClick={() => {
              openOrganization(org.slug);
              window.location.reload();
            }}
          >
            Switch to {org.name}
          </Button>
        </div>
      </Card>
    );
  }
  // Not found here nor in any organization of the user's: say so without a field name.
  const notFound = /not found/i.test(message);
  return (
    <ErrorState
      title="Run not available"
      message={
        notFound
          ? "There is no such run in your organizations: it was deleted, or it belongs to an organization you are not a member of."
          : message
      }
      onRetry={onRetry}
    />
  );
}
