"use client";

import {
  EVENT_KIND_LABELS,
  NOTIFICATION_EVENT_KINDS,
  type NotificationEventKind,
} from "@benchboard/core/notifications";
import { Button, Card, EmptyState, ErrorState, Field, inputClass, Skeleton, WideTable } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";
import { DeliveryAttempts } from "./delivery-attempts";
import { NotificationEndpoints } from "./notification-endpoints";

/** Notifications: endpoints, the rules that send events to them, and the delivery log. */
export function Notifications() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const canManage = me.data?.role === "owner" || me.data?.role === "member";
  return (
    <Card title="Notifications">
      <p className="mb-4 text-sm text-slate-600">
        Tell people where they already are: runs that start and finish, failed or invalid runs, thresholds, regressions
        against a baseline branch, change points and offline workers or agents go to signed webhooks, Slack or Microsoft
        Teams.
      </p>
      <div className="space-y-6">
        {me.data?.role === "owner" && <OwnerNotices />}
        <NotificationEndpoints canManage={canManage} />
        <NotificationRules canManage={canManage} />
        <DeliveryLog />
      </div>
    </Card>
  );
}

function OwnerNotices() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const notices = useQuery(trpc.notification.notices.queryOptions());
  const dismiss = useMutation(
    trpc.notification.dismissNotice.mutationOptions({
      onSuccess: () => qc.invalidateQueries({ queryKey: trpc.notification.notices.queryKey() }),
    }),
  );
  if (!notices.data?.length) return null;
  return (
    <ul className="space-y-2" aria-label="Notices for owners">
      {notices.data.map((n) => (
        <li
          key={n.id}
          role="alert"
          className="flex items-start justify-between gap-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900"
        >
          <span>
            <span className="font-medium">{new Date(n.createdAt).toLocaleString()}:</span> {n.message}
          </span>
          <button
            type="button"
            className="text-xs font-medium hover:underline"
            onClick={() => dismiss.mutate({ id: n.id })}
          >
            Dismiss
          </button>
        </li>
      ))}
    </ul>
  );
}

function NotificationRules({ canManage }: { canManage: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const rules = useQuery(trpc.notification.rules.queryOptions());
  const endpoints = useQuery(trpc.notification.endpoints.queryOptions());
  const projects = useQuery(trpc.project.list.queryOptions());
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.notification.rules.queryKey() });
  const [name, setName] = useState("");
  const [events, setEvents] = useState<NotificationEventKind[]>([
    "run.failed",
    "thresholds.failed",
    "regression.detected",
  ]);
  const [projectId, setProjectId] = useState("");
  const [endpointIds, setEndpointIds] = useState<string[]>([]);
  const [baselineBranch, setBaselineBranch] = useState("main");
  const create = useMutation(
    trpc.notification.createRule.mutationOptions({
      onSuccess: () => {
        setName("");
        return refresh();
      },
    }),
  );
  const remove = useMutation(trpc.notification.deleteRule.mutationOptions({ onSuccess: refresh }));
  const errors = fieldErrors(create.error);
  const endpointName = (id: string) => endpoints.data?.find((e) => e.id === id)?.name ?? "deleted";
  const projectName = (id: string | null) =>
    id ? (projects.data?.find((p) => p.id === id)?.name ?? "a deleted project") : "All projects";

  return (
    <div className="space-y-3">
      <h3 className="text-sm font-semibold text-slate-800">Rules</h3>
      {canManage && (
        <form
          className="space-y-3"
          aria-label="Add notification rule"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ name, events, projectId: projectId || null, endpointIds, baselineBranch, tolerancePct: 5 });
          }}
        >
          <div className="flex flex-wrap items-end gap-3">
            <div className="min-w-44">
              <Field label="Rule name" htmlFor="rule-name" error={errors.name}>
                <input
                  id="rule-name"
                  className={inputClass}
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                  placeholder="Nightly regressions"
                  aria-invalid={!!errors.name}
                />
              </Field>
            </div>
            <div className="min-w-44">
              <Field label="Project" htmlFor="rule-project" error={errors.projectId}>
                <select
                  id="rule-project"
                  className={inputClass}
                  value={projectId}
                  onChange={(e) => setProjectId(e.target.value)}
                >
                  <option value="">All projects</option>
                  {projects.data?.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.name}
                    </option>
                  ))}
                </select>
              </Field>
            </div>
            <div className="min-w-36">
              <Field label="Baseline branch" htmlFor="rule-branch" error={errors.baselineBranch}>
                <input
                  id="rule-branch"
                  className={inputClass}
                  value={baselineBranch}
                  onChange={(e) => setBaselineBranch(e.target.value)}
                />
              </Field>
            </div>
          </div>
          <fieldset aria-describedby={errors.events ? "rule-events-error" : undefined}>
            <legend className="text-sm font-medium text-slate-700">Events</legend>
            <div className="mt-1 grid gap-1 sm:grid-cols-2">
              {NOTIFICATION_EVENT_KINDS.map((kind) => (
                <label key={kind} className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    checked={events.includes(kind)}
                    onChange={(e) =>
                      setEvents((cur) => (e.target.checked ? [...cur, kind] : cur.filter((k) => k !== kind)))
                    }
                  />
                  {EVENT_KIND_LABELS[kind]}
                </label>
              ))}
            </div>
            {errors.events && (
              <p id="rule-events-error" role="alert" className="mt-1 text-sm text-rose-700">
                {errors.events}
              </p>
            )}
          </fieldset>
          <fieldset aria-describedby={errors.endpointIds ? "rule-endpoints-error" : undefined}>
            <legend className="text-sm font-medium text-slate-700">Send to</legend>
            {endpoints.data?.length ? (
              <div className="mt-1 flex flex-wrap gap-3">
                {endpoints.data.map((ep) => (
                  <label key={ep.id} className="flex items-center gap-2 text-sm">
                    <input
                      type="checkbox"
                      checked={endpointIds.includes(ep.id)}
                      onChange={(e) =>
                        setEndpointIds((cur) => (e.target.checked ? [...cur, ep.id] : cur.filter((id) => id !== ep.id)))
                      }
                    />
                    {ep.name} <span className="text-xs text-slate-500">({ep.channel})</span>
                  </label>
                ))}
              </div>
            ) : (
              <p className="mt-1 text-sm text-slate-500">Add an endpoint first.</p>
            )}
            {errors.endpointIds && (
              <p id="rule-endpoints-error" role="alert" className="mt-1 text-sm text-rose-700">
                {errors.endpointIds}
              </p>
            )}
          </fieldset>
          <Button type="submit" disabled={create.isPending}>
            Add rule
          </Button>
          {create.isError && !Object.keys(errors).length && (
            <p role="alert" className="text-sm text-rose-700">
              {errorMessage(create.error)}
            </p>
          )}
        </form>
      )}
      {rules.isPending ? (
        <Skeleton className="h-10" label="Loading rules" />
      ) : rules.isError ? (
        <ErrorState message={rules.error.message} />
      ) : rules.data.length === 0 ? (
        <EmptyState title="No rules">Nothing is sent until a rule sends events to an endpoint.</EmptyState>
      ) : (
        <WideTable>
          <table className="w-full text-sm" aria-label="Notification rules">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1">Rule</th>
                <th>Scope</th>
                <th>Events</th>
                <th>Endpoints</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rules.data.map((r) => (
                <tr key={r.id} className="border-t border-slate-100 align-top">
                  <td className="py-1.5 font-medium">{r.name}</td>
                  <td className="text-xs">{projectName(r.projectId)}</td>
                  <td className="text-xs">
                    {r.events.map((k) => EVENT_KIND_LABELS[k as NotificationEventKind] ?? k).join(", ")}
                    {r.events.includes("regression.detected") && ` (against ${r.baselineBranch}, ±${r.tolerancePct}%)`}
                  </td>
                  <td className="text-xs">{r.endpointIds.map(endpointName).join(", ")}</td>
                  <td className="text-right text-xs">
                    {canManage && (
                      <button
                        type="button"
                        className="font-medium text-rose-700 hover:underline"
                        onClick={() => remove.mutate({ id: r.id })}
                      >
                        Delete
                      </button>
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

const STATUS_STYLE: Record<string, string> = {
  delivered: "text-emerald-700",
  failed: "text-rose-700",
  pending: "text-amber-700",
  sending: "text-sky-700",
  skipped: "text-slate-500",
};

/**
 * Time, event, endpoint, status and attempts (each one listed: open the count); never what the
 * receiver answered. The HTTP column is the exact status for the install's own organization and
 * the class ("4xx") for any other.
 */
function DeliveryLog() {
  const trpc = useTRPC();
  const log = useQuery({ ...trpc.notification.deliveries.queryOptions({ take: 50 }), refetchInterval: 5_000 });
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-semibold text-slate-800">Delivery log</h3>
      {log.isPending ? (
        <Skeleton className="h-12" label="Loading deliveries" />
      ) : log.isError ? (
        <ErrorState message={log.error.message} />
      ) : log.data.length === 0 ? (
        <EmptyState title="No deliveries yet">Use “Send test” on an endpoint to try it.</EmptyState>
      ) : (
        <WideTable>
          <table className="w-full text-sm" aria-label="Delivery log">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1">Time</th>
                <th>Event</th>
                <th>Endpoint</th>
                <th>Status</th>
                <th className="text-right">HTTP</th>
                <th className="text-right">Attempts</th>
              </tr>
            </thead>
            <tbody>
              {log.data.map((d) => (
                <tr key={d.id} className="border-t border-slate-100 align-top">
                  <td className="whitespace-nowrap py-1.5 text-xs">{new Date(d.createdAt).toLocaleString()}</td>
                  <td className="text-xs">
                    <span className="font-medium">{d.title}</span>
                    <span className="block font-mono text-slate-500">{d.kind}</span>
                  </td>
                  <td className="text-xs">
                    {d.endpoint.name} <span className="text-slate-500">({d.endpoint.channel})</span>
                  </td>
                  <td className={`text-xs font-medium ${STATUS_STYLE[d.status] ?? ""}`}>
                    {d.status}
                    {d.status === "pending" && d.nextAttemptAt && (
                      <span className="block font-normal text-slate-500">
                        next try {new Date(d.nextAttemptAt).toLocaleTimeString()}
                      </span>
                    )}
                    {d.lastError && d.status !== "delivered" && (
                      <span className="block font-normal text-slate-500">{d.lastError}</span>
                    )}
                  </td>
                  <td className="text-right font-mono text-xs">{d.lastStatus ?? d.statusClass ?? "—"}</td>
                  <td className="text-right text-xs">
                    <DeliveryAttempts count={d.attempts} attempts={d.attemptLog} />
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
