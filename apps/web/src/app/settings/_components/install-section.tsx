"use client";

import { Skeleton } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import { ReadOnlyNotice } from "~/app/_components/read-only-notice";
import { useTRPC } from "~/trpc/client";
import { OperatorOrganizations } from "./operator-organizations";
import { OperatorSettings } from "./operator-settings";

/** The install's settings and every organization on it: the operator's alone. */
export function InstallSection() {
  const trpc = useTRPC();
  const role = useQuery(trpc.install.role.queryOptions());
  if (role.isPending) return <Skeleton className="h-40" label="Loading install settings" />;
  if (!role.data?.operator) {
    return (
      <ReadOnlyNotice>
        Install settings belong to the operator of this install: which addresses may be targets, sign-up, and the caps
        of every organization.
      </ReadOnlyNotice>
    );
  }
  return (
    <div className="space-y-6">
      <OperatorSettings />
      <OperatorOrganizations />
    </div>
  );
}
