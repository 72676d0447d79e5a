"use client";

import { Button, Card, EmptyState, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "~/app/_components/confirm-dialog";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

/** The scopes a token may get, as the form offers them (REST checks each route's scope). */
const SCOPES = [
  { scope: "runs:read", label: "Read runs", hint: "run status and results, compare" },
  { scope: "runs:write", label: "Upload runs", hint: "upload results, report runs with exec" },
  { scope: "runs:launch", label: "Launch runs", hint: "launch stored scenarios" },
  { scope: "config:read", label: "Read configuration", hint: "targets, configs, scenarios, thresholds; export" },
  { scope: "config:write", label: "Change configuration", hint: "create and update them; apply" },
] as const;
type Scope = (typeof SCOPES)[number]["scope"];
const DEFAULT_SCOPES: Scope[] = ["runs:read", "runs:write"];

export function ApiTokens() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const canManage = me.data?.role === "owner" || me.data?.role === "member";
  const tokens = useQuery({ ...trpc.apiToken.list.queryOptions(), enabled: canManage });
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.apiToken.pathKey() });
  const projects = useQuery({ ...trpc.project.list.queryOptions(), enabled: canManage });
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(DEFAULT_SCOPES);
  const [projectId, setProjectId] = useState("");
  const projectName = (id: string | null) =>
    id === null ? "All projects" : (projects.data?.find((p) => p.id === id)?.name ?? "a deleted project");
  const [shown, setShown] = useState<string | null>(null);
  const create = useMutation(
    trpc.apiToken.create.mutationOptions({
      onSuccess: (r) => {
        setShown(r.token);
        setName("");
        setScopes(DEFAULT_SCOPES);
        setProjectId("");
        return refresh();
      },
    }),
  );
  const [revoking, setRevoking] = useState<{ id: string; name: string } | null>(null);
  const revoke = useMutation(
    trpc.apiToken.revoke.mutationOptions({
      onSuccess: () => {
        setRevoking(null);
        return refresh();
      },
    }),
  );
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
        className="space-y-3"
        aria-label="Create API token"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ name, scopes, projectId: projectId || null });
        }}
      >
        <div className="flex flex-wrap items-end gap-3">
          <div className="min-w-56 flex-1">
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
          <div className="min-w-56">
            <Field label="Project" htmlFor="token-project" error={errors.projectId}>
              <select
                id="token-project"
                className={inputClass}
                value={projectId}
                onChange={(e) => setProjectId(e.target.value)}
                aria-invalid={!!errors.projectId}
              >
                <option value="">All projects</option>
                {projects.data?.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name} ({p.slug})
                  </option>
                ))}
              </select>
            </Field>
          </div>
        </div>
        <fieldset aria-describedby={errors.scopes ? "token-scopes-error" : undefined}>
          <legend className="text-sm font-medium text-slate-700">Scopes</legend>
          <div className="mt-1 grid gap-1 sm:grid-cols-2 lg:grid-cols-3">
            {SCOPES.map((s) => (
              <label key={s.scope} className="flex items-start gap-2 text-sm">
                <input
                  type="checkbox"
                  className="mt-1"
                  checked={scopes.includes(s.scope)}
                  onChange={(e) =>
                    setScopes((current) =>
                      e.target.checked ? [...current, s.scope] : current.filter((c) => c !== s.scope),
                    )
                  }
                />
                <span>
                  {s.label} <code className="text-xs text-slate-500">{s.scope}</code>
                  <span className="block text-xs text-slate-500">{s.hint}</span>
                </span>
              </label>
            ))}
          </div>
          {errors.scopes && (
            <p id="token-scopes-error" role="alert" className="mt-1 text-sm text-rose-700">
              {errors.scopes}
            </p>
          )}
        </fieldset>
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
          <ErrorState message={errorMessage(tokens.error)} />
        ) : tokens.data.length === 0 ? (
          <EmptyState title="No API tokens">Create one for CI uploads with the benchboard CLI.</EmptyState>
        ) : (
          <table className="w-full text-sm" aria-label="API tokens">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1">Name</th>
                <th>Token</th>
                <th>Scopes</th>
                <th>Project</th>
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
                  <td className="text-xs">{t.scopes.join(", ")}</td>
                  <td className="text-xs">{projectName(t.projectId)}</td>
                  <td className="text-xs">{t.createdBy ? t.createdBy.name || t.createdBy.email : "—"}</td>
                  <td className="text-xs">{t.lastUsedAt ? new Date(t.lastUsedAt).toLocaleString() : "never"}</td>
                  <td className="text-right">
                    {t.revokedAt ? (
                      <span className="text-xs">revoked</span>
                    ) : me.data?.role !== "owner" && t.createdBy?.id !== me.data?.id ? null : (
                      <button
                        type="button"
                        className="text-xs font-medium text-rose-700 hover:underline"
                        onClick={() => setRevoking({ id: t.id, name: t.name })}
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
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the token "${revoking?.name ?? ""}"?`}
        confirmLabel="Revoke token"
        pending={revoke.isPending}
        error={revoke.isError ? errorMessage(revoke.error) : null}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onCancel={() => setRevoking(null)}
      >
        <p>Every CI job or script using it is refused from now on. This cannot be undone.</p>
      </ConfirmDialog>
    </Card>
  );
}
