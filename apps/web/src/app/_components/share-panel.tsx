"use client";

import { Button, Field, inputClass } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

/**
 * Public read-only links to a run or a saved comparison: unguessable, revocable, optionally
 * expiring. Anyone with the link sees the results and nothing else.
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
  const [days, setDays] = useState("");
  const create = useMutation(trpc.share.create.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.share.revoke.mutationOptions({ onSuccess: refresh }));
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
      {links.isError && <p className="text-rose-700">{links.error.message}</p>}
      {active.length === 0 && !links.isPending && <p className="text-slate-500">No active links.</p>}
      <ul className="space-y-2" aria-label="Share links">
        {active.map((l) => {
          const url = `${origin}/share/${l.token}`;
          return (
            <li key={l.id} className="rounded border border-slate-200 p-2">
              <input
                readOnly
                aria-label="Share link URL"
                value={url}
                className="w-full rounded bg-slate-50 px-2 py-1 font-mono text-xs"
                onFocus={(e) => e.currentTarget.select()}
              />
              <div className="mt-1 flex items-center justify-between text-xs text-slate-500">
                <span>
                  {l.expiresAt ? `expires ${new Date(l.expiresAt).toLocaleDateString()}` : "no expiry"}
                  {l.lastViewedAt ? ` · last viewed ${new Date(l.lastViewedAt).toLocaleString()}` : " · not viewed yet"}
                </span>
                <button
                  type="button"
                  className="font-medium text-rose-700 hover:underline disabled:opacity-50"
                  disabled={revoke.isPending}
                  onClick={() => revoke.mutate({ id: l.id })}
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
      <form
        className="flex items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ ...target, expiresInDays: days ? Number(days) : null });
        }}
      >
        <Field label="Expires after (days, optional)" htmlFor="share-days" error={errors.expiresInDays}>
          <input
            id="share-days"
            type="number"
            min={1}
            max={365}
            className={`${inputClass} w-28`}
            value={days}
            onChange={(e) => setDays(e.target.value)}
          />
        </Field>
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create share link"}
        </Button>
      </form>

      {create.isError && !errors.expiresInDays && <p className="text-rose-700">{errorMessage(create.error)}</p>}
    </div>
  );
}
