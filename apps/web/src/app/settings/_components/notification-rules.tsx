"use client";

import type { RouterOutputs } from "@benchboard/api";
import {
  EVENT_KIND_LABELS,
  NOTIFICATION_EVENT_KINDS,
  type NotificationEventKind,
} from "@benchboard/core/notifications";
import { Button, type Column, DataTable } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { CheckboxGroup, RequestError, SelectField, SubmitForm, TextField } from "~/app/_components/form-kit";
import { ListStates } from "~/app/_components/list-kit";
import { useTRPC } from "~/trpc/client";
import { fieldErrors } from "~/trpc/errors";

type Rule = RouterOutputs["notification"]["rules"][number];

const EVENT_OPTIONS = NOTIFICATION_EVENT_KINDS.map((kind) => ({ value: kind, label: EVENT_KIND_LABELS[kind] }));

/** Rules: which events of which project go to which endpoints. */
export function NotificationRules({ canManage }: { canManage: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const rules = useQuery(trpc.notification.rules.queryOptions());
  const endpoints = useQuery(trpc.notification.endpoints.queryOptions());
  const projects = useQuery(trpc.project.list.queryOptions());
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.notification.rules.queryKey() });
  const remove = useMutation(trpc.notification.deleteRule.mutationOptions({ onSuccess: refresh }));
  const endpointName = (id: string) => endpoints.data?.find((e) => e.id === id)?.name ?? "deleted";
  const projectName = (id: string | null) =>
    id ? (projects.data?.find((p) => p.id === id)?.name ?? "a deleted project") : "All projects";

  const columns: Column<Rule>[] = [
    { key: "rule", header: "Rule", className: "font-medium", cell: (r) => r.name },
    { key: "scope", header: "Scope", className: "text-xs", cell: (r) => projectName(r.projectId) },
    {
      key: "events",
      header: "Events",
      className: "text-xs",
      cell: (r) => (
        <>
          {r.events.map((k) => EVENT_KIND_LABELS[k as NotificationEventKind] ?? k).join(", ")}
          {r.events.includes("regression.detected") && ` (against ${r.baselineBranch}, ±${r.tolerancePct}%)`}
        </>
      ),
    },
    {
      key: "endpoints",
      header: "Endpoints",
      className: "text-xs",
      cell: (r) => r.endpointIds.map(endpointName).join(", "),
    },
    {
      key: "actions",
      srHeader: "Actions",
      align: "right",
      className: "text-xs",
      cell: (r) =>
        canManage && (
          <button
            type="button"
            className="font-medium text-rose-700 hover:underline"
            onClick={() => remove.mutate({ id: r.id })}
          >
            Delete
          </button>
        ),
    },
  ];

  return (
    <div className="space-y-3">
      <h3 className="text-sm font-semibold text-slate-800">Rules</h3>
      {canManage && <RuleForm projects={projects.data ?? []} endpoints={endpoints.data ?? []} onCreated={refresh} />}
      <RequestError error={remove.error} />
      <ListStates
        query={rules}
        count={rules.data?.length}
        loadingLabel="Loading rules"
        loadingClassName="h-10"
        emptyTitle="No rules"
        empty="Nothing is sent until a rule sends events to an endpoint."
      >
        <DataTable label="Notification rules" columns={columns} rows={rules.data ?? []} rowKey={(r) => r.id} />
      </ListStates>
    </div>
  );
}

function RuleForm({
  projects,
  endpoints,
  onCreated,
}: {
  projects: { id: string; name: string }[];
  endpoints: { id: string; name: string; channel: string }[];
  onCreated: () => Promise<unknown>;
}) {
  const trpc = useTRPC();
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
        return onCreated();
      },
    }),
  );
  const errors = fieldErrors(create.error);
  return (
    <SubmitForm
      className="space-y-3"
      label="Add notification rule"
      onSubmit={() =>
        create.mutate({ name, events, projectId: projectId || null, endpointIds, baselineBranch, tolerancePct: 5 })
      }
    >
      <div className="flex flex-wrap items-end gap-3">
        <div className="min-w-44">
          <TextField
            id="rule-name"
            label="Rule name"
            value={name}
            onValue={setName}
            error={errors.name}
            placeholder="Nightly regressions"
          />
        </div>
        <div className="min-w-44">
          <SelectField
            id="rule-project"
            label="Project"
            value={projectId}
            onValue={setProjectId}
            error={errors.projectId}
            options={[{ value: "", label: "All projects" }, ...projects.map((p) => ({ value: p.id, label: p.name }))]}
          />
        </div>
        <div className="min-w-36">
          <TextField
            id="rule-branch"
            label="Baseline branch"
            value={baselineBranch}
            onValue={setBaselineBranch}
            error={errors.baselineBranch}
          />
        </div>
      </div>
      <CheckboxGroup
        id="rule-events"
        legend="Events"
        options={EVENT_OPTIONS}
        value={events}
        onValue={setEvents}
        error={errors.events}
      />
      <CheckboxGroup
        id="rule-endpoints"
        legend="Send to"
        className="mt-1 flex flex-wrap gap-3"
        options={endpoints.map((ep) => ({
          value: ep.id,
          label: (
            <>
              {ep.name} <span className="text-xs text-slate-500">({ep.channel})</span>
            </>
          ),
        }))}
        value={endpointIds}
        onValue={setEndpointIds}
        error={errors.endpointIds}
        empty="Add an endpoint first."
      />
      <Button type="submit" disabled={create.isPending}>
        Add rule
      </Button>
      <RequestError error={create.error} />
    </SubmitForm>
  );
}
