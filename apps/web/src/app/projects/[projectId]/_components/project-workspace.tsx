"use client";

import { Card, EmptyState, ErrorState, Skeleton } from "@benchboard/ui";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { PageHeader } from "~/app/_components/page-header";
import { useTRPC } from "~/trpc/client";
import { LaunchForm } from "./launch-form";
import { ScenarioForm } from "./scenario-form";
import { TargetForm } from "./target-form";

export function ProjectWorkspace({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const project = useQuery(trpc.project.byId.queryOptions({ id: projectId }));
  const targets = useQuery(trpc.target.list.queryOptions({ projectId }));
  const scenarios = useQuery(trpc.scenario.list.queryOptions({ projectId }));

  if (project.isError) return <ErrorState title="Project not available" message={project.error.message} />;
  return (
    <>
      <PageHeader
        title={project.data?.name ?? <Skeleton className="h-7 w-48" label="Loading project" />}
        subtitle={
          <Link className="text-sky-700 hover:underline" href={`/runs?projectId=${projectId}`}>
            View this project's runs →
          </Link>
        }
      />
      <div className="grid gap-6 xl:grid-cols-3">
        <div className="space-y-6 xl:col-span-2">
          <Card title="Targets">
            {targets.isPending ? (
              <Skeleton className="h-10" label="Loading targets" />
            ) : targets.isError ? (
              <ErrorState message={targets.error.message} />
            ) : targets.data.length === 0 ? (
              <EmptyState title="No targets yet">Register the service endpoint you want to load.</EmptyState>
            ) : (
              <table className="w-full text-sm" aria-label="Targets">
                <thead className="text-left text-xs uppercase text-slate-500">
                  <tr>
                    <th className="py-1">Name</th>
                    <th>Kind</th>
                    <th>Base URL</th>
                  </tr>
                </thead>
                <tbody>
                  {targets.data.map((t) => (
                    <tr key={t.id} className="border-t border-slate-100">
                      <td className="py-1.5 font-medium">{t.name}</td>
                      <td>{t.kind.replace("_", "-")}</td>
                      <td className="font-mono text-xs">{t.baseUrl}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Card>
          <Card title="Scenarios">
            {scenarios.isPending ? (
              <Skeleton className="h-10" label="Loading scenarios" />
            ) : scenarios.isError ? (
              <ErrorState message={scenarios.error.message} />
            ) : scenarios.data.length === 0 ? (
              <EmptyState title="No scenarios yet">Describe the load: engine, concurrency, requests.</EmptyState>
            ) : (
              <table className="w-full text-sm" aria-label="Scenarios">
                <thead className="text-left text-xs uppercase text-slate-500">
                  <tr>
                    <th className="py-1">Name</th>
                    <th>Engine</th>
                    <th>Load</th>
                  </tr>
                </thead>
                <tbody>
                  {scenarios.data.map((s) => (
                    <tr key={s.id} className="border-t border-slate-100">
                      <td className="py-1.5 font-medium">{s.name}</td>
                      <td>{s.engine}</td>
                      <td className="text-xs text-slate-600">{describeSpec(s.spec)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Card>
          <div className="grid gap-6 lg:grid-cols-2">
            <TargetForm projectId={projectId} />
            <ScenarioForm projectId={projectId} />
          </div>
        </div>
        <LaunchForm projectId={projectId} targets={targets.data ?? []} scenarios={scenarios.data ?? []} />
      </div>
    </>
  );
}

function describeSpec(spec: unknown): string {
  const s = spec as Record<string, unknown>;
  const parts: string[] = [];
  if (s.concurrency) parts.push(`${s.concurrency} concurrent`);
  if (s.requests) parts.push(`${s.requests} requests`);
  if (s.rate) parts.push(`${s.rate} req/s`);
  if (s.durationS) parts.push(`${s.durationS} s`);
  if (s.users) parts.push(`${s.users} users`);
  return parts.join(" · ");
}
