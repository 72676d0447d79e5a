"use client";

import type { RouterOutputs } from "@benchboard/api";
import type { Column } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { actionsColumn, ListCard, RowActions, useDeleteDialog } from "~/app/_components/list-kit";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
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
  const remove = useMutation(trpc.target.delete.mutationOptions({ onSuccess: refresh }));
  const deleting = useDeleteDialog<Target>({
    mutation: remove,
    kind: "target",
    confirmLabel: "Delete target",
    consequence: (t) => (
      <p>
        Its {t.runCount} runs stay, with the snapshot of the target they ran against. Runs of it still queued are
        canceled. Its stored secrets are deleted.
      </p>
    ),
  });
  const base = `/projects/${projectId}/targets`;

  const columns: Column<Target>[] = [
    {
      key: "name",
      header: "Name",
      className: "font-medium",
      cell: (t) => (
        <Link href={`${base}/${t.id}`} className="text-sky-700 hover:underline">
          {t.name}
        </Link>
      ),
    },
    { key: "kind", header: "Kind", cell: (t) => TARGET_KIND_LABEL[t.kind] },
    { key: "url", header: "Base URL", className: "font-mono text-[13px] text-slate-700", cell: (t) => t.baseUrl },
    {
      key: "headers",
      header: "Headers",
      className: "text-slate-600",
      cell: (t) => {
        const secrets = t.headers.filter((h) => "secret" in h).length;
        return t.headers.length === 0 ? "—" : `${t.headers.length}${secrets ? ` (${secrets} secret)` : ""}`;
      },
    },
    {
      key: "monitors",
      header: "Monitors",
      className: "text-slate-600",
      cell: (t) => (t.monitors.length === 0 ? "—" : t.monitors.map((m) => m.kind).join(", ")),
    },
    { key: "load", header: "Load allowed", cell: (t) => <VerificationBadge verification={t.verification} /> },
    { key: "runs", header: "Runs", align: "right", className: "tabular-nums", cell: (t) => t.runCount },
    actionsColumn((t) => (
      <RowActions href={`${base}/${t.id}`} name={t.name} canEdit={canEdit} onDelete={() => deleting.ask(t)} />
    )),
  ];

  return (
    <ListCard
      title="Targets"
      noun="targets"
      newHref={`${base}/new`}
      newLabel="New target"
      canEdit={canEdit}
      query={targets}
      data={targets.data}
      searchText={(t) => [t.name, t.baseUrl, TARGET_KIND_LABEL[t.kind]]}
      columns={columns}
      rowKey={(t) => t.id}
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
    >
      {deleting.dialog}
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
