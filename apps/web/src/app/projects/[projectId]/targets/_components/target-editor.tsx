"use client";

import { ZTargetBasics } from "@benchboard/core";
import { Button, Card } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  EditorActions,
  EditorFields,
  EditorLoader,
  FormAlert,
  mergeErrors,
  SelectField,
  SubmitForm,
  TextField,
  unshownErrors,
  useDirtyGuard,
  useSavedThenBack,
  zodFieldErrors,
} from "~/app/_components/form-kit";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { HeaderRows } from "./header-rows";
import { MonitorFields, type ProbeResults } from "./monitor-fields";
import { OriginChangeNote } from "./origin-change-note";
import {
  emptyMonitor,
  type HeaderRow,
  headerInputs,
  type MonitorKind,
  type MonitorRow,
  monitorInputs,
  overheadStagesInput,
  overheadStagesText,
  rowsFromTarget,
  type Target,
  type TargetInput,
} from "./target-form";
import { TARGET_KIND_LABEL } from "./target-list";

export function TargetEditor({ projectId, targetId }: { projectId: string; targetId?: string }) {
  const trpc = useTRPC();
  const existing = useQuery({ ...trpc.target.byId.queryOptions({ id: targetId ?? "" }), enabled: !!targetId });
  return (
    <EditorLoader id={targetId} kind="Target" query={existing}>
      {(target, key) => <TargetForm key={key} projectId={projectId} target={target} />}
    </EditorLoader>
  );
}

function TargetForm({ projectId, target }: { projectId: string; target?: Target }) {
  const trpc = useTRPC();
  // A local process monitor reads the worker host's processes: offered to the install's own
  // organization only (another organization's save would be refused). One already stored stays listed.
  const role = useQuery(trpc.install.role.queryOptions());
  const processAllowed = role.data?.installOrganization === true;
  const initial = target ? rowsFromTarget(target) : { headers: [], monitors: [] };
  const [name, setName] = useState(target?.name ?? "");
  const [kind, setKind] = useState<TargetInput["kind"]>(target?.kind ?? "http");
  const [baseUrl, setBaseUrl] = useState(target?.baseUrl ?? "");
  const [configApplyUrl, setConfigApplyUrl] = useState(target?.configApplyUrl ?? "");
  const [overheadStages, setOverheadStages] = useState(overheadStagesText(target));
  const [headers, setHeaders] = useState<HeaderRow[]>(initial.headers);
  const [monitors, setMonitors] = useState<MonitorRow[]>(initial.monitors);
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  const [probe, setProbe] = useState<ProbeResults | null>(null);
  const listUrl = `/projects/${projectId}/targets`;
  const canEdit = useCanEdit();

  const onSaved = useSavedThenBack(trpc.target.pathKey(), listUrl);
  const create = useMutation(trpc.target.create.mutationOptions({ onSuccess: onSaved }));
  const update = useMutation(trpc.target.update.mutationOptions({ onSuccess: onSaved }));
  const test = useMutation(trpc.target.testMonitors.mutationOptions({ onSuccess: setProbe }));
  const save = target ? update : create;
  const errors = mergeErrors(clientErrors, save.error ?? test.error);
  const [initialSnapshot] = useState(() =>
    JSON.stringify([name, kind, baseUrl, configApplyUrl, overheadStages, headers, monitors]),
  );
  const dirty =
    JSON.stringify([name, kind, baseUrl, configApplyUrl, overheadStages, headers, monitors]) !== initialSnapshot;
  // Leaving with unsaved changes asks first; once saved, the editor goes back to the list freely.
  useDirtyGuard(canEdit && !save.isSuccess && dirty);

  const patchMonitor = (k: number, patch: Partial<MonitorRow>) =>
    setMonitors((rows) => rows.map((r) => (r.key === k ? { ...r, ...patch } : r)));

  const collect = () => {
    const found: Record<string, string> = {};
    const monitorList = monitorInputs(monitors, found);
    const headerList = headerInputs(headers);
    return { found, monitorList, headerList };
  };

  const submit = () => {
    const { found, monitorList, headerList } = collect();
    const stageList = overheadStagesInput(overheadStages, found);
    // The server's own rules for the plain fields, checked before anything is sent.
    for (const [path, message] of Object.entries(zodFieldErrors(ZTargetBasics, { name, baseUrl, configApplyUrl }))) {
      found[path] ??= message;
    }
    setClientErrors(found);
    if (Object.keys(found).length > 0) return;
    const fields = {
      name,
      kind,
      baseUrl,
      configApplyUrl: configApplyUrl.trim() || null,
      overheadStages: stageList,
      headers: headerList,
      monitors: monitorList,
    };
    if (target) update.mutate({ id: target.id, ...fields });
    else create.mutate({ projectId, ...fields });
  };

  const runProbe = () => {
    const { found, monitorList } = collect();
    setClientErrors(found);
    setProbe(null);
    if (Object.keys(found).length > 0) return;
    test.mutate({ targetId: target?.id ?? null, monitors: monitorList });
  };

  const shown = (path: string) =>
    ["name", "kind", "baseUrl", "configApplyUrl"].includes(path) ||
    /^overheadStages(\.\d+)?$/.test(path) ||
    /^headers\.\d+\.(name|value)$/.test(path) ||
    /^monitors\.\d+\.(password|config\.(url|queues|pid|port|gauges|memoryMetric|cpuMetric|vhost|username|query|metric|name|unit|stepSeconds))/.test(
      path,
    );
  const unshown = unshownErrors(errors, shown);
  const stageError =
    errors.overheadStages ??
    Object.entries(errors).find(([path]) => /^overheadStages\.\d+$/.test(path))?.[1] ??
    undefined;

  return (
    <SubmitForm
      label={target ? "Edit target" : "New target"}
      className="max-w-4xl space-y-6"
      onSubmit={submit}
      onChange={() => {
        // Messages describe what was submitted; once the user edits, they no longer apply.
        if (save.isError) save.reset();
        if (Object.keys(clientErrors).length > 0) setClientErrors({});
      }}
    >
      <EditorFields canEdit={canEdit}>
        <Card title={target ? `Edit target ${target.name}` : "New target"}>
          <div className="grid gap-4 md:grid-cols-2">
            <TextField
              id="target-name"
              label="Target name"
              value={name}
              onValue={setName}
              error={errors.name}
              placeholder="gateway on t3.medium"
            />
            <SelectField
              id="target-kind"
              label="Kind"
              value={kind}
              onValue={(v) => setKind(v as TargetInput["kind"])}
              error={errors.kind}
              options={(Object.keys(TARGET_KIND_LABEL) as TargetInput["kind"][]).map((k) => ({
                value: k,
                label: TARGET_KIND_LABEL[k],
              }))}
            />
            <TextField
              id="target-url"
              label="Base URL"
              hint="Scenario paths are relative to it"
              className="font-mono"
              value={baseUrl}
              onValue={setBaseUrl}
              error={errors.baseUrl}
              placeholder="https://staging.example.com"
            />
            <OriginChangeNote saved={target?.baseUrl} current={baseUrl} />
            <TextField
              id="target-apply-url"
              label="Config-apply URL (optional)"
              hint="Receives PUT of the instance config's knobs before each run"
              className="font-mono"
              value={configApplyUrl}
              onValue={setConfigApplyUrl}
              error={errors.configApplyUrl}
              placeholder="http://127.0.0.1:4100/admin/config"
            />
            <TextField
              id="target-overhead-stages"
              label="Overhead stages (optional)"
              hint="Server-Timing stages that are this target's own work, comma-separated; ticked “in overhead” on its runs"
              className="font-mono"
              value={overheadStages}
              onValue={setOverheadStages}
              error={stageError}
              placeholder="queue_wait, key_selection"
            />
          </div>
        </Card>

        <HeaderRows headers={headers} setHeaders={setHeaders} errors={errors} />

        <Card
          title="Monitors"
          actions={
            <div className="flex gap-2">
              <select
                aria-label="Monitor kind to add"
                className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
                value=""
                onChange={(e) => {
                  if (e.target.value) setMonitors((rows) => [...rows, emptyMonitor(e.target.value as MonitorKind)]);
                }}
              >
                <option value="">Add monitor…</option>
                <option value="prometheus">Prometheus metrics</option>
                <option value="rabbitmq">RabbitMQ queues</option>
                {processAllowed && <option value="process">Local process</option>}
                <option value="promql">Prometheus query (PromQL)</option>
              </select>
              <Button variant="secondary" onClick={runProbe} disabled={monitors.length === 0 || test.isPending}>
                {test.isPending ? "Testing…" : "Test connection"}
              </Button>
            </div>
          }
        >
          {monitors.length === 0 ? (
            <p className="text-sm text-slate-500">
              Sampled every second during a run, on the same timeline as latency: memory and CPU from a Prometheus
              endpoint{processAllowed ? " or a local process" : ""}, queue depth from RabbitMQ; or any PromQL
              expression, read over the run's window when it ends.
            </p>
          ) : (
            <div className="space-y-4">
              {monitors.map((m, i) => (
                <MonitorFields
                  key={m.key}
                  index={i}
                  row={m}
                  errors={errors}
                  result={probe?.find((r) => r.index === i)}
                  onChange={(patch) => patchMonitor(m.key, patch)}
                  onRemove={() => {
                    setMonitors((rows) => rows.filter((r) => r.key !== m.key));
                    setProbe(null);
                  }}
                />
              ))}
            </div>
          )}
          {test.isError && <FormAlert>{errorMessage(test.error)}</FormAlert>}
        </Card>
      </EditorFields>

      <EditorActions
        unshown={unshown}
        saveError={save.error}
        pending={save.isPending}
        label={target ? "Save target" : "Create target"}
        cancelHref={listUrl}
        canEdit={canEdit}
      />
    </SubmitForm>
  );
}
