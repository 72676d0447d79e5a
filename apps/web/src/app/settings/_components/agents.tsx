"use client";

import { Button, Card, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";
import { AgentList } from "../../_components/agent-list";

/** Agent tokens (shown once, revocable) and the organization's agents. */
export function Agents() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const canManage = me.data?.role === "owner" || me.data?.role === "member";
  const tokens = useQuery({ ...trpc.agent.tokens.queryOptions(), enabled: canManage });
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.agent.pathKey() });
  const [name, setName] = useState("");
  const [shown, setShown] = useState<string | null>(null);
  const create = useMutation(
    trpc.agent.createToken.mutationOptions({
      onSuccess: (r) => {
        setShown(r.token);
        setName("");
        return refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.agent.revokeToken.mutationOptions({ onSuccess: refresh }));
  const errors = fieldErrors(create.error);
  return (
    <Card title="Agents">
      <p className="mb-3 text-sm text-slate-600">
        Agents run load from inside your own network (<code>benchboard agent</code>); they connect out to this server
        and take only this organization's runs launched for their labels.
      </p>
      <AgentList />
      {canManage && (
        <>
          <form
            className="mt-4 flex flex-wrap items-end gap-3"
            aria-label="Create agent token"
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate({ name });
            }}
          >
            <div className="min-w-56 flex-1">
              <Field label="Agent token name" htmlFor="agent-token-name" error={errors.name}>
                <input
                  id="agent-token-name"
                  className={inputClass}
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                  placeholder="staging network"
                  aria-invalid={!!errors.name}
                />
              </Field>
            </div>
            <Button type="submit" disabled={create.isPending}>
              Create agent token
            </Button>
          </form>
          {create.isError && !Object.keys(errors).length && (
            <p role="alert" className="mt-2 text-sm text-rose-700">
              {errorMessage(create.error)}
            </p>
          )}
          {shown && (
            <div className="mt-3 rounded-md border border-emerald-200 bg-emerald-50 p-3 text-sm">
              <p className="font-medium text-emerald-900">
                Copy this agent token now: it won't be shown again. Give it to agents as BENCHBOARD_AGENT_TOKEN.
              </p>
              <output className="mt-1 block break-all font-mono text-xs" aria-label="New agent token">
                {shown}
              </output>
            </div>
          )}
          <div className="mt-4">
            {tokens.isPending ? (
              <Skeleton className="h-12" label="Loading agent tokens" />
            ) : tokens.isError ? (
              <ErrorState message={tokens.error.message} />
            ) : tokens.data.length === 0 ? (
              <p className="text-sm text-slate-500">No agent tokens yet.</p>
            ) : (
              <table className="w-full text-sm" aria-label="Agent tokens">
                <thead className="text-left text-xs uppercase text-slate-500">
                  <tr>
                    <th className="py-1">Name</th>
                    <th className="py-1">Token</th>
                    <th className="py-1">Last used</th>
                    <th className="py-1" />
                  </tr>
                </thead>
                <tbody>
                  {tokens.data.map((t) => (
                    <tr key={t.id} className="border-t border-slate-100">
                      <td className="py-1.5">{t.name}</td>
                      <td className="py-1.5 font-mono text-xs">{t.prefix}…</td>
                      <td className="py-1.5 text-xs text-slate-500">
                        {t.lastUsedAt ? new Date(t.lastUsedAt).toLocaleString() : "never"}
                      </td>
                      <td className="py-1.5 text-right">
                        {t.revokedAt ? (
                          <span className="text-xs text-slate-500">revoked</span>
                        ) : (
                          <Button
                            variant="secondary"
                            onClick={() => revoke.mutate({ id: t.id })}
                            disabled={revoke.isPending}
                            aria-label={`Revoke agent token ${t.name}`}
                          >
                            Revoke
                          </Button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {revoke.isError && (
              <p role="alert" className="mt-2 text-sm text-rose-700">
                {errorMessage(revoke.error)}
              </p>
            )}
          </div>
        </>
      )}
    </Card>
  );
}
