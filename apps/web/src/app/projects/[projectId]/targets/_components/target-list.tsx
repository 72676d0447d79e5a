"use client";

import type { RouterOutputs } from "@benchboard/api";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ConfirmDialog } from "~/app/_components/confirm-dialog";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { ListCard, RowActions } from "../../_components/list-card";
import { useRefreshKind } from "../../_components/use-refresh-kind";

type Target = RouterOutputs["target"]["list"][number];

export const TARGET_KIND_LABEL: Record<Target["kind"], string> = {
  http: "HTTP",
  llm: "LLM (OpenAI-compatible)",
  ws_chat: "WebSocket chat",
};

export function TargetList({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const refresh = useRefreshKind(trpc.target.pathKey());
  const targets = useQuery(trpc.target.list.queryOptions({ projectId }));
  const canEdit = useCanEdit();
  const [doomed, setDoomed] = useState<Target | null>(null);
  const remove = useMutation(
    trpc.target.delete.mutationOptions({
      onSuccess: async () => {
        setDoomed(null);
        await refresh();
      },
    }),
  );
  const base = `/projects/${projectId}/targets`;

  return (
    <ListCard
      title="Targets"
      newHref={`${base}/new`}
      newLabel="New target"
      canEdit={canEdit}
      query={targets}
      loadingLabel="Loading targets"
      emptyTitle="No targets yet"
      empty={
        <>
          A target is the service endpoint you load: its base URL, headers and what to monitor on it.{" "}
          {canEdit && (
            <>
              <Link href={`${base}/new`} className="text-sky-700 hover:underline">
                Register one
              </Link>
              .
            </>
          )}
        </>
      }
      renderList={(items) => (
        <table className="w-full text-sm" aria-label="Targets">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="py-1">Name</th>
              <th>Kind</th>
              <th>Base URL</th>
              <th>Headers</th>
              <th>Monitors</th>
              <th>Load allowed</th>
              <th className="text-right">Runs</th>
              <th className="text-right">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((t) => {
              const secrets = t.headers.filter((h) => "secret" in h).length;
              return (
                <tr key={t.id} className="border-t border-slate-100 align-top">
                  <td className="py-2 font-medium">
                    <Link href={`${base}/${t.id}`} className="text-sky-700 hover:underline">
                      {t.name}
                    </Link>
                  </td>
                  <td className="py-2">{TARGET_KIND_LABEL[t.kind]}</td>
                  <td className="py-2 font-mono text-[13px] text-slate-700">{t.baseUrl}</td>
                  <td className="py-2 text-slate-600">
                    {t.headers.length === 0 ? "—" : `${t.headers.length}${secrets ? ` (${secrets} secret)` : ""}`}
                  </td>
                  <td className="py-2 text-slate-600">
                    {t.monitors.length === 0 ? "—" : t.monitors.map((m) => m.kind).join(", ")}
                  </td>
                  <td className="py-2">
                    <VerificationBadge verification={t.verification} />
                  </td>
                  <td className="py-2 text-right tabular-nums">{t.runCount}</td>
                  <td className="py-2 pl-6 text-right whitespace-nowrap">
                    <RowActions
                      href={`${base}/${t.id}`}
                      name={t.name}
                      canEdit={canEdit}
                      onDelete={() => {
                        remove.reset();
                        setDoomed(t);
                      }}
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    >
      <ConfirmDialog
        open={doomed !== null}
        title={`Delete target "${doomed?.name ?? ""}"?`}
        confirmLabel="Delete target"
        pending={remove.isPending}
        error={remove.error ? errorMessage(remove.error) : null}
        onCancel={() => setDoomed(null)}
        onConfirm={() => doomed && remove.mutate({ id: doomed.id })}
      >
        <p>
          Its {doomed?.runCount ?? 0} runs stay, with the snapshot of the target they ran against. Runs of it still
          queued are canceled. Its stored secrets are deleted.
        </p>
      </ConfirmDialog>
    </ListCard>
  );
}

type Verification =
  | { state: "trusted" }
  | { state: "verified"; method: "http" | "dns"; at: Date | string }
  | { state: "probe_only" };

/** Whether load may reach a target's origin, in words: the install's own, verified, or a probe only. */
export function VerificationBadge({ verification }: { verification: Verification }) {
  if (verification.state === "trusted") {
    return (
      <span className="text-xs text-slate-600" data-verification="trusted">
        install&apos;s own origin
      </span>
    );
  }
  if (verification.state === "verified") {
    return (
      <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-xs text-emerald-800" data-verification="verified">
        verified by {verification.method === "dns" ? "DNS" : "HTTP"} on{" "}
        {new Date(verification.at).toLocaleDateString("en-US", { dateStyle: "medium" })}
      </span>
    );
  }
  return (
    <span className="rounded bg-amber-50 px-1.5 py-0.5 text-xs text-amber-900" data-verification="probe_only">
      probe only — verify the origin on the target&apos;s page
    </span>
  );
}
