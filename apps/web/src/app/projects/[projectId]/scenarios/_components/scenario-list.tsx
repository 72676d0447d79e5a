"use client";

import type { RouterOutputs } from "@benchboard/api";
import { describeScenarioSpec, describeThreshold, ENGINE_LABEL, ZScenarioSpec } from "@benchboard/core";
import type { Column } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { actionsColumn, ListCard, RowActions, useDeleteDialog } from "~/app/_components/list-kit";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { useRefreshKind } from "../../_components/use-refresh-kind";

type Scenario = RouterOutputs["scenario"]["list"][number];

export function describeStoredSpec(spec: unknown): string {
  const parsed = ZScenarioSpec.safeParse(spec);
  return parsed.success ? describeScenarioSpec(parsed.data) : "invalid spec";
}

export function ScenarioList({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const refresh = useRefreshKind(trpc.scenario.pathKey());
  const scenarios = useQuery(trpc.scenario.list.queryOptions({ projectId }));
  const canEdit = useCanEdit();
  const remove = useMutation(trpc.scenario.delete.mutationOptions({ onSuccess: refresh }));
  const deleting = useDeleteDialog<Scenario>({
    mutation: remove,
    kind: "scenario",
    confirmLabel: "Delete scenario",
    consequence: (s) => <p>Its {s.runCount} runs keep the snapshot of the scenario they ran.</p>,
  });
  const base = `/projects/${projectId}/scenarios`;

  const columns: Column<Scenario>[] = [
    {
      key: "name",
      header: "Name",
      cell: (s) => (
        <>
          <Link href={`${base}/${s.id}`} className="font-medium text-sky-700 hover:underline">
            {s.name}
          </Link>
          {s.description && <div className="text-xs text-slate-500">{s.description}</div>}
        </>
      ),
    },
    { key: "engine", header: "Engine", cell: (s) => ENGINE_LABEL[s.spec.engine] ?? s.engine },
    { key: "load", header: "Load", className: "text-slate-700", cell: (s) => describeStoredSpec(s.spec) },
    {
      key: "thresholds",
      header: "Thresholds",
      className: "text-xs text-slate-600",
      cell: (s) => (s.thresholds.length === 0 ? "—" : s.thresholds.map((t) => describeThreshold(t)).join(", ")),
    },
    { key: "runs", header: "Runs", align: "right", className: "tabular-nums", cell: (s) => s.runCount },
    actionsColumn((s) => (
      <RowActions
        href={`${base}/${s.id}`}
        name={s.name}
        canEdit={canEdit}
        onDelete={() => deleting.ask(s)}
        lead={
          canEdit && (
            <Link
              href={`/projects/${projectId}/launch?scenarioId=${s.id}`}
              className="font-medium text-sky-700 hover:underline"
              aria-label={`Launch ${s.name}`}
            >
              Launch
            </Link>
          )
        }
      />
    )),
  ];

  return (
    <ListCard
      title="Scenarios"
      noun="scenarios"
      newHref={`${base}/new`}
      newLabel="New scenario"
      canEdit={canEdit}
      query={scenarios}
      data={scenarios.data}
      searchText={(s) => [s.name, s.description, ENGINE_LABEL[s.spec.engine] ?? s.engine]}
      columns={columns}
      rowKey={(s) => s.id}
      emptyTitle="No scenarios yet"
      empty={
        <>
          A scenario is the load: an engine with its rate or concurrency, duration and thresholds.{" "}
          {canEdit && (
            <>
              <Link href={`${base}/new`} className="text-sky-700 hover:underline">
                Define one
              </Link>{" "}
              or import a drill plan.
            </>
          )}
        </>
      }
    >
      {deleting.dialog}
    </ListCard>
  );
}
