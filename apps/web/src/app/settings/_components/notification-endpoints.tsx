"use client";

import { Button, EmptyState, ErrorState, Field, inputClass, Skeleton, WideTable } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

const CHANNELS = [
  { value: "webhook", label: "Webhook (signed, Standard Webhooks)" },
  { value: "slack", label: "Slack incoming webhook" },
  { value: "teams", label: "Microsoft Teams webhook" },
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

  return (
    <div className="space-y-3">
      <h3 className="text-sm font-semibold text-slate-800">Endpoints</h3>
      {canManage && (
        <form
          className="flex flex-wrap items-end gap-3"
          aria-label="Add notification endpoint"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ name, channel, url });
          }}
        >
          <div className="min-w-44">
            <Field label="Name" htmlFor="endpoint-name" error={errors.name}>
              <input
                id="endpoint-name"
                className={inputClass}
                value={name}
                onChange={(e) => setName(e.target.value)}
                placeholder="#perf-alerts"
                aria-invalid={!!errors.name}
              />
            </Field>
          </div>
          <div className="min-w-56">
            <Field label="Channel" htmlFor="endpoint-channel" error={errors.channel}>
              <select
                id="endpoint-channel"
                className={inputClass}
                value={channel}
                onChange={(e) => setChannel(e.target.value as Channel)}
              >
                {CHANNELS.map((c) => (
                  <option key={c.value} value={c.value}>
                    {c.label}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <div className="min-w-72 flex-1">
            <Field label="Receiver URL" htmlFor="endpoint-url" error={errors.url}>
              <input
                id="endpoint-url"
                className={inputClass}
                value={url}
                onChange={(e) => setUrl(e.target.value)}
                placeholder="https://hooks.example.com/benchboard"
                aria-invalid={!!errors.url}
              />
            </Field>
          </div>
          <Button type="submit" disabled={create.isPending}>
            Add endpoint
          </Button>
        </form>
      )}
      {create.isError && !Object.keys(errors).length && (
        <p role="alert" className="text-sm text-rose-700">
          {errorMessage(create.error)}
        </p>
      )}
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
      {actionError && (
        <p role="alert" className="text-sm text-rose-700">
          {errorMessage(actionError)}
        </p>
      )}
      {endpoints.isPending ? (
        <Skeleton className="h-12" label="Loading endpoints" />
      ) : endpoints.isError ? (
        <ErrorState message={endpoints.error.message} />
      ) : endpoints.data.length === 0 ? (
        <EmptyState title="No endpoints">
          Add a webhook, a Slack or a Teams endpoint to send notifications to.
        </EmptyState>
      ) : (
        <WideTable>
          <table className="w-full text-sm" aria-label="Notification endpoints">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1">Name</th>
                <th>Channel</th>
                <th>Receiver</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {endpoints.data.map((e) => (
                <tr key={e.id} className="border-t border-slate-100 align-top">
                  <td className="py-1.5 font-medium">{e.name}</td>
                  <td className="text-xs">{e.channel}</td>
                  <td className="font-mono text-xs" title="Only the origin is shown; the full URL is stored encrypted">
                    {e.urlOrigin}/…
                  </td>
                  <td className="text-xs">
                    {e.enabled ? (
                      <span className="text-emerald-700">enabled</span>
                    ) : (
                      <span className="text-rose-700" title={e.disabledReason ?? undefined}>
                        disabled{e.disabledReason ? `: ${e.disabledReason}` : ""}
                      </span>
                    )}
                  </td>
                  <td className="space-x-2 whitespace-nowrap text-right text-xs">
                    {canManage && (
                      <>
                        {e.enabled && (
                          <button
                            type="button"
                            className="font-medium text-sky-700 hover:underline"
                            onClick={() => test.mutate({ id: e.id })}
                          >
                            Send test
                          </button>
                        )}
                        {e.signed && (
                          <button
                            type="button"
                            className="font-medium text-sky-700 hover:underline"
                            onClick={() => rotate.mutate({ id: e.id })}
                          >
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
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </WideTable>
      )}
    </div>
  );
}
