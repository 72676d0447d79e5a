"use client";

import type { RouterOutputs } from "@benchboard/api";
import { describeScenarioSpec, describeThreshold, ENGINE_LABEL, ZScenarioSpec } from "@benchboard/core";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ConfirmDialog } from "~/app/_components/confirm-dialog";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { ListCard, RowActions } from "../../_components/list-card";
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
  const [doomed, setDoomed] = useState<Scenario | null>(null);
  const remove = useMutation(
    trpc.scenario.delete.mutationOptions({
      onSuccess: async () => {
        setDoomed(null);
        await refresh();
      },
    }),
  );
  const base = `/projects/${projectId}/scenarios`;

  return (
    <ListCard
      title="Scenarios"
      newHref={`${base}/new`}
      newLabel="New scenario"
      canEdit={canEdit}
      query={scenarios}
      loadingLabel="Loading scenarios"
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
      renderList={(items) => (
        <table className="w-full text-sm" aria-label="Scenarios">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="py-1">Name</th>
              <th>Engine</th>
              <th>Load</th>
              <th>Thresholds</th>
              <th className="text-right">Runs</th>
              <th className="text-right">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((s) => (
              <tr key={s.id} className="border-t border-slate-100 align-top">
                <td className="py-2">
                  <Link href={`${base}/${s.id}`} className="font-medium text-sky-700 hover:underline">
                    {s.name}
                  </Link>
                  {s.description && <div className="text-xs text-slate-500">{s.description}</div>}
                </td>
                <td className="py-2">{ENGINE_LABEL[s.spec.engine] ?? s.engine}</td>
                <td className="py-2 text-slate-700">{describeStoredSpec(s.spec)}</td>
                <td className="py-2 text-xs text-slate-600">
                  {s.thresholds.length === 0 ? "—" : s.thresholds.map((t) => describeThreshold(t)).join(", ")}
                </td>
                <td className="py-2 text-right tabular-nums">{s.runCount}</td>
                <td className="py-2 pl-6 text-right whitespace-nowrap">
                  <RowActions
                    href={`${base}/${s.id}`}
                    name={s.name}
                    canEdit={canEdit}
                    onDelete={() => {
                      remove.reset();
                      setDoomed(s);
                    }}
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
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    >
      <ConfirmDialog
        open={doomed !== null}
        title={`Delete scenario "${doomed?.name ?? ""}"?`}
        confirmLabel="Delete scenario"
        pending={remove.isPending}
        error={remove.error ? errorMessage(remove.error) : null}
        onCancel={() => setDoomed(null)}
        onConfirm={() => doomed && remove.mutate({ id: doomed.id })}
      >
        <p>Its {doomed?.runCount ?? 0} runs keep the snapshot of the scenario they ran.</p>
      </ConfirmDialog>
    </ListCard>
  );
}
