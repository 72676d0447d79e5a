"use client";

import type { RouterOutputs } from "@benchboard/api";
import { Button, type Column, DataTable } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { RequestError, SelectField, TextField } from "~/app/_components/form-kit";
import { ListStates } from "~/app/_components/list-kit";
import { useTRPC } from "~/trpc/client";
import { fieldErrors } from "~/trpc/errors";

type Endpoint = RouterOutputs["notification"]["endpoints"][number];

const CHANNELS = [
  { value: "webhook", label: "Webhook (signed, Standard Webhooks)" },
  { value: "slack", label: "Slack incoming webhook" },
  { value: "teams", label: "Microsoft Teams webhook" },
  { value: "email", label: "Email (members of the organization)" },
] as const;
type Channel = (typeof CHANNELS)[number]["value"];

/** Endpoints: where notifications go. A webhook's signing secret is shown once, when made or rotated. */
export function NotificationEndpoints({ canManage }: { canManage: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const endpoints = useQuery(trpc.notification.endpoints.queryOptions());
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.notification.pathKey() });
  const [name, setName] = useState("");
  const [channel, setChannel] = useState<Channel>("webhook");
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const create = useMutation(
    trpc.notification.createEndpoint.mutationOptions({
      onSuccess: (r) => {
        setSecret(r.secret ? { name: r.endpoint.name, secret: r.secret } : null);
        setName("");
        setUrl("");
        return refresh();
      },
    }),
  );
  const rotate = useMutation(
    trpc.notification.rotateSecret.mutationOptions({
      onSuccess: (r, input) => {
        setSecret({ name: endpoints.data?.find((e) => e.id === input.id)?.name ?? "", secret: r.secret });
        return refresh();
      },
    }),
  );
  const test = useMutation(trpc.notification.sendTest.mutationOptions({ onSuccess: refresh }));
  const toggle = useMutation(trpc.notification.setEnabled.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.notification.deleteEndpoint.mutationOptions({ onSuccess: refresh }));
  const errors = fieldErrors(create.error);
  const actionError = [rotate, test, toggle, remove].find((m) => m.isError)?.error;
  const link = "font-medium text-sky-700 hover:underline";
  const columns: Column<Endpoint>[] = [
    { key: "name", header: "Name", className: "font-medium", cell: (e) => e.name },
    { key: "channel", header: "Channel", className: "text-xs", cell: (e) => e.channel },
    {
      key: "receiver",
      header: "Receiver",
      className: "font-mono text-xs",
      cell: (e) =>
        e.channel === "email" ? (
          <span>{e.recipients.join(", ")}</span>
        ) : (
          <span title="Only the origin is shown; the full URL is stored encrypted">{e.urlOrigin}/…</span>
        ),
    },
    {
      key: "state",
      header: "State",
      className: "text-xs",
      cell: (e) =>
        e.enabled ? (
          <span className="text-emerald-700">enabled</span>
        ) : (
          <span className="text-rose-700" title={e.disabledReason ?? undefined}>
            disabled{e.disabledReason ? `: ${e.disabledReason}` : ""}
          </span>
        ),
    },
    {
      key: "actions",
      srHeader: "Actions",
      align: "right",
      className: "space-x-2 whitespace-nowrap text-xs",
      cell: (e) =>
        canManage && (
          <>
            {e.enabled && (
              <button type="button" className={link} onClick={() => test.mutate({ id: e.id })}>
                Send test
              </button>
            )}
            {e.signed && (
              <button type="button" className={link} onClick={() => rotate.mutate({ id: e.id })}>
                Rotate secret
              </button>
            )}
            <button
              type="button"
              className="font-medium text-slate-700 hover:underline"
              onClick={() => toggle.mutate({ id: e.id, enabled: !e.enabled })}
            >
              {e.enabled ? "Disable" : "Enable"}
            </button>
            <button
              type="button"
              className="font-medium text-rose-700 hover:underline"
              onClick={() => remove.mutate({ id: e.id })}
            >
              Delete
            </button>
          </>
        ),
    },
  ];

  return (
    <div className="space-y-3">
      <h3 className="text-sm font-semibold text-slate-800">Endpoints</h3>
      {canManage && (
        <form
          className="flex flex-wrap items-end gap-3"
          aria-label="Add notification endpoint"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate(
              channel === "email"
                ? {
                    name,
                    channel,
                    recipients: url
                      .split(/[,\s]+/)
                      .map((r) => r.trim())
                      .filter(Boolean),
                  }
                : { name, channel, url },
            );
          }}
        >
          <div className="min-w-44">
            <TextField
              id="endpoint-name"
              label="Name"
              value={name}
              onValue={setName}
              error={errors.name}
              placeholder="#perf-alerts"
            />
          </div>
          <div className="min-w-56">
            <SelectField
              id="endpoint-channel"
              label="Channel"
              value={channel}
              onValue={(v) => setChannel(v as Channel)}
              error={errors.channel}
              options={CHANNELS}
            />
          </div>
          <div className="min-w-72 flex-1">
            <TextField
              id="endpoint-url"
              label={channel === "email" ? "Recipients (members' addresses, comma-separated)" : "Receiver URL"}
              value={url}
              onValue={setUrl}
              error={channel === "email" ? errors.recipients : errors.url}
              placeholder={
                channel === "email" ? "alice@example.com, bob@example.com" : "https://hooks.example.com/benchboard"
              }
            />
          </div>
          <Button type="submit" disabled={create.isPending}>
            Add endpoint
          </Button>
        </form>
      )}
      <RequestError error={create.error} />
      {secret && (
        <div className="rounded-md border border-emerald-200 bg-emerald-50 p-3 text-sm">
          <p className="font-medium text-emerald-900">
            Signing secret for “{secret.name}”: copy it now, it won't be shown again. Verify deliveries with any
            Standard Webhooks library.
          </p>
          <output className="mt-1 block break-all font-mono text-xs" aria-label="Signing secret">
            {secret.secret}
          </output>
        </div>
      )}
      <RequestError error={actionError} />
      <ListStates
        query={endpoints}
        count={endpoints.data?.length}
        loadingLabel="Loading endpoints"
        loadingClassName="h-12"
        emptyTitle="No endpoints"
        empty="Add a webhook, a Slack or a Teams endpoint, or email, to send notifications to."
      >
        <DataTable label="Notification endpoints" columns={columns} rows={endpoints.data ?? []} rowKey={(e) => e.id} />
      </ListStates>
    </div>
  );
}
