"use client";

import { Button, Card, EmptyState } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { RequestError, SelectField, SubmitForm, TextField } from "~/app/_components/form-kit";
import { useTRPC } from "~/trpc/client";
import { fieldErrors } from "~/trpc/errors";
import { NewTokenNotice, TokenList } from "./token-list";

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
      <SubmitForm
        className="space-y-3"
        label="Create API token"
        onSubmit={() => create.mutate({ name, scopes, projectId: projectId || null })}
      >
        <div className="flex flex-wrap items-end gap-3">
          <div className="min-w-56 flex-1">
            <TextField
              id="token-name"
              label="Token name"
              value={name}
              onValue={setName}
              error={errors.name}
              placeholder="GitHub Actions"
            />
          </div>
          <div className="min-w-56">
            <SelectField
              id="token-project"
              label="Project"
              value={projectId}
              onValue={setProjectId}
              error={errors.projectId}
              options={[
                { value: "", label: "All projects" },
                ...(projects.data ?? []).map((p) => ({ value: p.id, label: `${p.name} (${p.slug})` })),
              ]}
            />
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
      </SubmitForm>
      <RequestError error={create.error} />
      {shown && (
        <NewTokenNotice token={shown} label="New API token">
          Copy this token now: it won't be shown again.
        </NewTokenNotice>
      )}
      <div className="mt-4">
        <TokenList
          label="API tokens"
          loadingLabel="Loading tokens"
          query={tokens}
          empty={<EmptyState title="No API tokens">Create one for CI uploads with the benchboard CLI.</EmptyState>}
          columns={[
            { header: "Scopes", cell: (t) => t.scopes.join(", ") },
            { header: "Project", cell: (t) => projectName(t.projectId) },
            { header: "Created by", cell: (t) => (t.createdBy ? t.createdBy.name || t.createdBy.email : "—") },
          ]}
          canRevoke={(t) => me.data?.role === "owner" || t.createdBy?.id === me.data?.id}
          revoke={revoke}
          confirmTitle={(t) => `Revoke the token "${t.name}"?`}
          confirmLabel="Revoke token"
          consequence="Every CI job or script using it is refused from now on. This cannot be undone."
        />
      </div>
    </Card>
  );
}
