"use client";

import type { RouterOutputs } from "@benchboard/api";
import { describeInstanceSize } from "@benchboard/core";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ConfirmDialog } from "~/app/_components/confirm-dialog";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { ListCard, RowActions } from "../../_components/list-card";
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
  const [doomed, setDoomed] = useState<Config | null>(null);
  const [cloning, setCloning] = useState<Config | null>(null);
  const remove = useMutation(
    trpc.instanceConfig.delete.mutationOptions({
      onSuccess: async () => {
        setDoomed(null);
        await refresh();
      },
    }),
  );
  const base = `/projects/${projectId}/configs`;

  return (
    <ListCard
      title="Instance configs"
      newHref={`${base}/new`}
      newLabel="New config"
      canEdit={canEdit}
      query={configs}
      loadingLabel="Loading instance configs"
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
      renderList={(items) => (
        <table className="w-full text-sm" aria-label="Instance configs">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="py-1">Name</th>
              <th>Instance</th>
              <th>CPU limit</th>
              <th>Replicas</th>
              <th>Knobs</th>
              <th className="text-right">Runs</th>
              <th className="text-right">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((c) => (
              <tr key={c.id} className="border-t border-slate-100 align-top">
                <td className="py-2">
                  <Link href={`${base}/${c.id}`} className="font-medium text-sky-700 hover:underline">
                    {c.name}
                  </Link>
                  {c.clonedFrom && <div className="text-xs text-slate-500">variant of {c.clonedFrom.name}</div>}
                </td>
                <td className="py-2">
                  <div>{c.instanceType ?? "—"}</div>
                  <div className="text-xs text-slate-500">{describeInstanceSize(c)}</div>
                </td>
                <td className="py-2 tabular-nums">{c.cpuLimit ?? "—"}</td>
                <td className="py-2 tabular-nums">{c.replicas}</td>
                <td className="py-2">
                  {Object.keys(c.knobs).length === 0 ? (
                    "—"
                  ) : (
                    <ul className="font-mono text-xs text-slate-700">
                      {Object.entries(c.knobs)
                        .sort(([a], [b]) => a.localeCompare(b))
                        .map(([k, v]) => (
                          <li key={k}>
                            {k} = {formatKnob(v)}
                          </li>
                        ))}
                    </ul>
                  )}
                </td>
                <td className="py-2 text-right tabular-nums">{c.runCount}</td>
                <td className="py-2 pl-6 text-right whitespace-nowrap">
                  <RowActions
                    href={`${base}/${c.id}`}
                    name={c.name}
                    canEdit={canEdit}
                    onDelete={() => {
                      remove.reset();
                      setDoomed(c);
                    }}
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
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    >
      <CloneDialog projectId={projectId} source={cloning} onClose={() => setCloning(null)} />
      <ConfirmDialog
        open={doomed !== null}
        title={`Delete instance config "${doomed?.name ?? ""}"?`}
        confirmLabel="Delete config"
        pending={remove.isPending}
        error={remove.error ? errorMessage(remove.error) : null}
        onCancel={() => setDoomed(null)}
        onConfirm={() => doomed && remove.mutate({ id: doomed.id })}
      >
        <p>Its {doomed?.runCount ?? 0} runs keep the snapshot of the config they ran with.</p>
      </ConfirmDialog>
    </ListCard>
  );
}
