"use client";

import { Button, Card } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { RequestError, SubmitForm, TextField } from "~/app/_components/form-kit";
import { useTRPC } from "~/trpc/client";
import { fieldErrors } from "~/trpc/errors";
import { AgentList } from "../../_components/agent-list";
import { NewTokenNotice, TokenList } from "./token-list";

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
          <SubmitForm
            className="mt-4 flex flex-wrap items-end gap-3"
            label="Create agent token"
            onSubmit={() => create.mutate({ name })}
          >
            <div className="min-w-56 flex-1">
              <TextField
                id="agent-token-name"
                label="Agent token name"
                value={name}
                onValue={setName}
                error={errors.name}
                placeholder="staging network"
              />
            </div>
            <Button type="submit" disabled={create.isPending}>
              Create agent token
            </Button>
          </SubmitForm>
          <RequestError error={create.error} />
          {shown && (
            <NewTokenNotice token={shown} label="New agent token">
              Copy this agent token now: it won't be shown again. Give it to agents as BENCHBOARD_AGENT_TOKEN.
            </NewTokenNotice>
          )}
          <div className="mt-4">
            <TokenList
              label="Agent tokens"
              loadingLabel="Loading agent tokens"
              query={tokens}
              empty={<p className="text-sm text-slate-500">No agent tokens yet.</p>}
              revokeButtonLabel={(t) => `Revoke agent token ${t.name}`}
              revoke={revoke}
              confirmTitle={(t) => `Revoke the agent token "${t.name}"?`}
              confirmLabel="Revoke agent token"
              consequence="Agents using it are refused from their next request and take no more runs. This cannot be undone."
            />
          </div>
        </>
      )}
    </Card>
  );
}
