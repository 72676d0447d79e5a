"use client";

import type { RouterOutputs } from "@benchboard/api";
import { describeInstanceSize } from "@benchboard/core";
import type { Column } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { actionsColumn, ListCard, RowActions, useDeleteDialog } from "~/app/_components/list-kit";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { useRefreshKind } from "../../_components/use-refresh-kind";
import { CloneDialog } from "./clone-dialog";

type Config = RouterOutputs["instanceConfig"]["list"][number];

export function formatKnob(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

export function ConfigList({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const refresh = useRefreshKind(trpc.instanceConfig.pathKey());
  const configs = useQuery(trpc.instanceConfig.list.queryOptions({ projectId }));
  const canEdit = useCanEdit();
  const [cloning, setCloning] = useState<Config | null>(null);
  const remove = useMutation(trpc.instanceConfig.delete.mutationOptions({ onSuccess: refresh }));
  const deleting = useDeleteDialog<Config>({
    mutation: remove,
    kind: "instance config",
    confirmLabel: "Delete config",
    consequence: (c) => <p>Its {c.runCount} runs keep the snapshot of the config they ran with.</p>,
  });
  const base = `/projects/${projectId}/configs`;

  const columns: Column<Config>[] = [
    {
      key: "name",
      header: "Name",
      cell: (c) => (
        <>
          <Link href={`${base}/${c.id}`} className="font-medium text-sky-700 hover:underline">
            {c.name}
          </Link>
          {c.clonedFrom && <div className="text-xs text-slate-500">variant of {c.clonedFrom.name}</div>}
        </>
      ),
    },
    {
      key: "instance",
      header: "Instance",
      cell: (c) => (
        <>
          <div>{c.instanceType ?? "—"}</div>
          <div className="text-xs text-slate-500">{describeInstanceSize(c)}</div>
        </>
      ),
    },
    { key: "cpu", header: "CPU limit", className: "tabular-nums", cell: (c) => c.cpuLimit ?? "—" },
    { key: "replicas", header: "Replicas", className: "tabular-nums", cell: (c) => c.replicas },
    { key: "knobs", header: "Knobs", cell: (c) => <KnobList knobs={c.knobs} /> },
    { key: "runs", header: "Runs", align: "right", className: "tabular-nums", cell: (c) => c.runCount },
    actionsColumn((c) => (
      <RowActions
        href={`${base}/${c.id}`}
        name={c.name}
        canEdit={canEdit}
        onDelete={() => deleting.ask(c)}
        extra={
          canEdit && (
            <button
              type="button"
              className="text-sky-700 hover:underline"
              aria-label={`Clone ${c.name}`}
              onClick={() => setCloning(c)}
            >
              Clone
            </button>
          )
        }
      />
    )),
  ];

  return (
    <ListCard
      title="Instance configs"
      noun="instance configs"
      newHref={`${base}/new`}
      newLabel="New config"
      canEdit={canEdit}
      query={configs}
      data={configs.data}
      searchText={(c) => [c.name, c.instanceType, c.clonedFrom?.name, ...Object.keys(c.knobs)]}
      columns={columns}
      rowKey={(c) => c.id}
      emptyTitle="No instance configs yet"
      empty={
        <>
          Where and how the target runs: instance type, size, CPU limit, replicas and service knobs.{" "}
          {canEdit && (
            <>
              <Link href={`${base}/new`} className="text-sky-700 hover:underline">
                Describe one
              </Link>
              .
            </>
          )}
        </>
      }
    >
      <CloneDialog projectId={projectId} source={cloning} onClose={() => setCloning(null)} />
      {deleting.dialog}
    </ListCard>
  );
}

function KnobList({ knobs }: { knobs: Record<string, unknown> }) {
  const entries = Object.entries(knobs).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return "—";
  return (
    <ul className="font-mono text-xs text-slate-700">
      {entries.map(([k, v]) => (
        <li key={k}>
          {k} = {formatKnob(v)}
        </li>
      ))}
    </ul>
  );
}
