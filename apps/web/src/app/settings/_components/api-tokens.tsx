"use client";

import { Button, Card, EmptyState, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

export function ApiTokens() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const canManage = me.data?.role === "owner" || me.data?.role === "member";
  const tokens = useQuery({ ...trpc.apiToken.list.queryOptions(), enabled: canManage });
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.apiToken.pathKey() });
  const [name, setName] = useState("");
  const [shown, setShown] = useState<string | null>(null);
  const create = useMutation(
    trpc.apiToken.create.mutationOptions({
      onSuccess: (r) => {
        setShown(r.token);
        setName("");
        return refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.apiToken.revoke.mutationOptions({ onSuccess: refresh }));
  const errors = fieldErrors(create.error);
  if (me.data && !canManage) {
    return (
      <Card title="API tokens">
        <p className="text-sm text-slate-600">Viewers can't create or see API tokens.</p>
      </Card>
    );
  }
  return (
    <Card title="API tokens">
      <form
        className="flex items-end gap-3"
        aria-label="Create API token"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ name, scopes: ["runs:read", "runs:write", "runs:launch"] });
        }}
      >
        <div className="flex-1">
          <Field label="Token name" htmlFor="token-name" error={errors.name}>
            <input
              id="token-name"
              className={inputClass}
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="GitHub Actions"
              aria-invalid={!!errors.name}
            />
          </Field>
        </div>
        <Button type="submit" disabled={create.isPending}>
          Create token
        </Button>
      </form>
      {create.isError && !Object.keys(errors).length && (
        <p role="alert" className="mt-2 text-sm text-rose-700">
          {errorMessage(create.error)}
        </p>
      )}
      {shown && (
        <div className="mt-3 rounded-md border border-emerald-200 bg-emerald-50 p-3 text-sm">
          <p className="font-medium text-emerald-900">Copy this token now: it won't be shown again.</p>
          <output className="mt-1 block break-all font-mono text-xs" aria-label="New API token">
            {shown}
          </output>
        </div>
      )}
      <div className="mt-4">
        {tokens.isPending ? (
          <Skeleton className="h-12" label="Loading tokens" />
        ) : tokens.isError ? (
          <ErrorState message={tokens.error.message} />
        ) : tokens.data.length === 0 ? (
          <EmptyState title="No API tokens">Create one for CI uploads with the benchboard CLI.</EmptyState>
        ) : (
          <table className="w-full text-sm" aria-label="API tokens">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1">Name</th>
                <th>Token</th>
                <th>Created by</th>
                <th>Last used</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((t) => (
                <tr key={t.id} className={`border-t border-slate-100 ${t.revokedAt ? "text-slate-400" : ""}`}>
                  <td className="py-1.5 font-medium">{t.name}</td>
                  <td className="font-mono text-xs">{t.prefix}…</td>
                  <td className="text-xs">{t.createdBy ? t.createdBy.name || t.createdBy.email : "—"}</td>
                  <td className="text-xs">{t.lastUsedAt ? new Date(t.lastUsedAt).toLocaleString() : "never"}</td>
                  <td className="text-right">
                    {t.revokedAt ? (
                      <span className="text-xs">revoked</span>
                    ) : me.data?.role !== "owner" && t.createdBy?.id !== me.data?.id ? null : (
                      <button
                        type="button"
                        className="text-xs font-medium text-rose-700 hover:underline"
                        onClick={() => revoke.mutate({ id: t.id })}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Card>
  );
}
