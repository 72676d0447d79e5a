"use client";

import { countOf } from "@benchboard/core";
import { EmptyState, ErrorState, Skeleton } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { ReadOnlyNotice } from "../_components/read-only-notice";
import { useRole } from "../_components/use-can-edit";

export function LaunchProjectPicker() {
  const trpc = useTRPC();
  const projects = useQuery(trpc.project.list.queryOptions());
  const role = useRole();
  if (role === "viewer") {
    return <ReadOnlyNotice>You are a viewer in this organization: members and owners launch runs.</ReadOnlyNotice>;
  }
  if (projects.isPending) return <Skeleton className="h-24" label="Loading projects" />;
  if (projects.isError) return <ErrorState message={errorMessage(projects.error)} onRetry={() => projects.refetch()} />;
  if (projects.data.length === 0) {
    return (
      <EmptyState title="No projects yet">
        <Link href="/" className="text-sky-700 hover:underline">
          Create a project
        </Link>{" "}
        with a target and a scenario first.
      </EmptyState>
    );
  }
  return (
    <ul className="grid gap-3 md:grid-cols-2 xl:grid-cols-3" aria-label="Projects to launch in">
      {projects.data.map((p) => {
        const ready = p._count.targets > 0 && p._count.scenarios > 0;
        return (
          <li key={p.id}>
            <Link
              href={ready ? `/projects/${p.id}/launch` : `/projects/${p.id}`}
              className="block rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm hover:border-sky-300"
            >
              <div className="font-medium text-slate-900">{p.name}</div>
              <div className="mt-0.5 text-xs text-slate-500">
                {ready
                  ? [
                      countOf(p._count.targets, "target"),
                      countOf(p._count.scenarios, "scenario"),
                      countOf(p._count.instanceConfigs, "config"),
                    ].join(" · ")
                  : "needs a target and a scenario first"}
              </div>
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
