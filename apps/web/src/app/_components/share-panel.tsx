"use client";

import { Button, Field, inputClass } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "~/app/_components/confirm-dialog";
import { CopyButton } from "~/app/_components/copy-button";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

/** Expiry choices; 30 days unless the sharer picks another (or never). */
const EXPIRY_CHOICES = [
  ["1", "1 day"],
  ["7", "7 days"],
  ["30", "30 days"],
  ["90", "90 days"],
  ["365", "1 year"],
  ["never", "Never"],
] as const;

/**
 * Public read-only links to a run or a saved comparison: unguessable, revocable, expiring after
 * 30 days unless the sharer chooses otherwise. Only the token's hash is stored, so a link's
 * address is shown once, when it is made. Anyone with the link sees the results without the
 * target's address or scenario details, unless the sharer includes them.
 */
export function SharePanel({
  runId,
  comparisonId,
  canEdit,
}: {
  runId?: string;
  comparisonId?: string;
  canEdit: boolean;
}) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const target = runId ? { runId } : { comparisonId: comparisonId! };
  // Links carry their public token: viewers neither list nor make them.
  const links = useQuery({ ...trpc.share.list.queryOptions(target), enabled: canEdit });
  const refresh = () => qc.invalidateQueries(trpc.share.list.queryFilter());
  const [days, setDays] = useState("30");
  const [includeTarget, setIncludeTarget] = useState(false);
  const [made, setMade] = useState<string | null>(null);
  const create = useMutation(
    trpc.share.create.mutationOptions({
      onSuccess: (link) => {
        setMade(link.token);
        void refresh();
      },
    }),
  );
  const [revoking, setRevoking] = useState<string | null>(null);
  const revoke = useMutation(
    trpc.share.revoke.mutationOptions({
      onSuccess: () => {
        setRevoking(null);
        return refresh();
      },
    }),
  );
  const origin = typeof window === "undefined" ? "" : window.location.origin;
  const errors = fieldErrors(create.error);
  const now = Date.now();
  const active = (links.data ?? []).filter(
    (l) => !l.revokedAt && !(l.expiresAt && new Date(l.expiresAt).getTime() <= now),
  );
  const ended = (links.data ?? []).filter((l) => !active.includes(l));

  if (!canEdit) {
    return <p className="text-sm text-slate-500">Share links are made and listed by members and owners.</p>;
  }

  return (
    <div className="space-y-3 text-sm">
      {links.isError && <p className="text-rose-700">{errorMessage(links.error)}</p>}
      {active.length === 0 && !links.isPending && <p className="text-slate-500">No active links.</p>}
      <ul className="space-y-2" aria-label="Share links">
        {active.map((l) => {
          return (
            <li key={l.id} className="rounded border border-slate-200 p-2">
              <div className="flex items-center justify-between text-xs text-slate-500">
                <span>
                  made {new Date(l.createdAt).toLocaleDateString()}
                  {l.includeTarget ? " · with target details" : " · target details hidden"} ·{" "}
                  {l.expiresAt ? `expires ${new Date(l.expiresAt).toLocaleDateString()}` : "no expiry"}
                  {l.lastViewedAt ? ` · last viewed ${new Date(l.lastViewedAt).toLocaleString()}` : " · not viewed yet"}
                </span>
                <button
                  type="button"
                  className="font-medium text-rose-700 hover:underline disabled:opacity-50"
                  disabled={revoke.isPending}
                  onClick={() => setRevoking(l.id)}
                >
                  Revoke
                </button>
              </div>
            </li>
          );
        })}
      </ul>
      {ended.length > 0 && (
        <p className="text-xs text-slate-500">
          {ended.length} revoked or expired link{ended.length === 1 ? "" : "s"} no longer work.
        </p>
      )}
      {made && (
        <div className="rounded border border-emerald-300 bg-emerald-50 p-2">
          <p className="text-xs text-emerald-800">Copy the link now: it is not shown again.</p>
          <div className="mt-1 flex items-center gap-2">
            <input
              readOnly
              aria-label="Share link URL"
              value={`${origin}/share/${made}`}
              className="min-w-0 flex-1 rounded bg-white px-2 py-1 font-mono text-xs"
              onFocus={(e) => e.currentTarget.select()}
            />
            <CopyButton text={`${origin}/share/${made}`} label="Copy link" />
          </div>
        </div>
      )}
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ ...target, expiresInDays: days === "never" ? null : Number(days), includeTarget });
        }}
      >
        <Field label="Expires after" htmlFor="share-days" error={errors.expiresInDays}>
          <select
            id="share-days"
            className={`${inputClass} w-32`}
            value={days}
            onChange={(e) => setDays(e.target.value)}
          >
            {EXPIRY_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <label className="flex items-center gap-2 pb-2 text-sm text-slate-700">
          <input type="checkbox" checked={includeTarget} onChange={(e) => setIncludeTarget(e.target.checked)} />
          Include target details (URL, hostnames, full scenario)
        </label>
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create share link"}
        </Button>
      </form>

      {create.isError && !errors.expiresInDays && <p className="text-rose-700">{errorMessage(create.error)}</p>}
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this share link?"
        confirmLabel="Revoke link"
        pending={revoke.isPending}
        error={revoke.isError ? errorMessage(revoke.error) : null}
        onConfirm={() => revoking && revoke.mutate({ id: revoking })}
        onCancel={() => setRevoking(null)}
      >
        <p>Anyone opening it sees "not found" from now on. Make a new link to share again.</p>
      </ConfirmDialog>
    </div>
  );
}
