"use client";

import { ErrorState, Skeleton } from "@benchboard/ui";
import type { UseMutationResult, UseQueryResult } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { ConfirmDialog } from "~/app/_components/confirm-dialog";
import { CopyButton } from "~/app/_components/copy-button";
import { LocalTime } from "~/app/_components/local-time";
import { errorMessage } from "~/trpc/errors";

/** What every token list shows of a token: never the token itself, only its first characters. */
export interface ListedToken {
  id: string;
  name: string;
  prefix: string;
  lastUsedAt: Date | string | null;
  revokedAt: Date | string | null;
}

export interface TokenColumn<T> {
  header: string;
  cell: (token: T) => ReactNode;
}

/**
 * A table of tokens (API tokens, agent tokens): name, prefix, the kind's own columns, last use, and
 * a revoke button that asks first. Loading, error and empty states included.
 */
export function TokenList<T extends ListedToken>({
  label,
  loadingLabel,
  query,
  empty,
  columns = [],
  canRevoke = () => true,
  revokeButtonLabel,
  revoke,
  confirmTitle,
  confirmLabel,
  consequence,
}: {
  /** The table's accessible name ("API tokens"). */
  label: string;
  /** The loading placeholder's accessible name ("Loading tokens"). */
  loadingLabel: string;
  query: UseQueryResult<T[], unknown>;
  empty: ReactNode;
  /** Columns between the token's prefix and its last use. */
  columns?: TokenColumn<T>[];
  canRevoke?: (token: T) => boolean;
  /** An accessible name for a row's revoke button, when "Revoke" alone is not enough. */
  revokeButtonLabel?: (token: T) => string;
  revoke: UseMutationResult<unknown, unknown, { id: string }, unknown>;
  confirmTitle: (token: T) => string;
  confirmLabel: string;
  /** What revoking breaks, said in the confirmation. */
  consequence: ReactNode;
}) {
  const [revoking, setRevoking] = useState<T | null>(null);
  return (
    <>
      {query.isPending ? (
        <Skeleton className="h-12" label={loadingLabel} />
      ) : query.isError ? (
        <ErrorState message={errorMessage(query.error)} onRetry={() => query.refetch()} />
      ) : query.data.length === 0 ? (
        empty
      ) : (
        <table className="w-full text-sm" aria-label={label}>
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="py-1 pr-3">Name</th>
              <th className="pr-3">Token</th>
              {columns.map((c) => (
                <th key={c.header} className="pr-3">
                  {c.header}
                </th>
              ))}
              <th className="pr-3">Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {query.data.map((t) => (
              <tr key={t.id} className={`border-t border-slate-100 ${t.revokedAt ? "text-slate-400" : ""}`}>
                <td className="py-1.5 pr-3 font-medium">{t.name}</td>
                <td className="pr-3 font-mono text-xs">{t.prefix}…</td>
                {columns.map((c) => (
                  <td key={c.header} className="pr-3 text-xs">
                    {c.cell(t)}
                  </td>
                ))}
                <td className="pr-3 text-xs">{t.lastUsedAt ? <LocalTime value={t.lastUsedAt} /> : "never"}</td>
                <td className="text-right">
                  {t.revokedAt ? (
                    <span className="text-xs">revoked</span>
                  ) : canRevoke(t) ? (
                    <button
                      type="button"
                      className="text-xs font-medium text-rose-700 hover:underline"
                      aria-label={revokeButtonLabel?.(t)}
                      onClick={() => {
                        revoke.reset();
                        setRevoking(t);
                      }}
                    >
                      Revoke
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title={revoking ? confirmTitle(revoking) : ""}
        confirmLabel={confirmLabel}
        pending={revoke.isPending}
        error={revoke.isError ? errorMessage(revoke.error) : null}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id }, { onSuccess: () => setRevoking(null) })}
        onCancel={() => setRevoking(null)}
      >
        <p>{consequence}</p>
      </ConfirmDialog>
    </>
  );
}

/** A token just made: shown this once, with a copy button. */
export function NewTokenNotice({ token, label, children }: { token: string; label: string; children: ReactNode }) {
  return (
    <div className="mt-3 rounded-md border border-emerald-200 bg-emerald-50 p-3 text-sm">
      <p className="font-medium text-emerald-900">{children}</p>
      <output className="mt-1 block break-all font-mono text-xs" aria-label={label}>
        {token}
      </output>
      <CopyButton text={token} label="Copy token" />
    </div>
  );
}
