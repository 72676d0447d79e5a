"use client";

import type { RouterOutputs } from "@benchboard/api";
import { formatBytes } from "@benchboard/core";
import { Button, Card, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  EditorActions,
  EditorFields,
  FormAlert,
  InlineError,
  mergeErrors,
  nextRowKey,
  smallInputClass,
  unshownErrors,
  useSavedThenBack,
} from "~/app/_components/form-kit";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
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

type ProbeResults = RouterOutputs["target"]["testMonitors"];

export function TargetEditor({ projectId, targetId }: { projectId: string; targetId?: string }) {
  const trpc = useTRPC();
  const existing = useQuery({ ...trpc.target.byId.queryOptions({ id: targetId ?? "" }), enabled: !!targetId });
  if (targetId && existing.isPending) return <Skeleton className="h-96" label="Loading target" />;
  if (targetId && existing.isError) {
    return (
      <ErrorState
        title="Target not available"
        message={errorMessage(existing.error)}
        onRetry={() => existing.refetch()}
      />
    );
  }
  return <TargetForm key={existing.data?.updatedAt.toString() ?? "new"} projectId={projectId} target={existing.data} />;
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

  const patchHeader = (k: number, patch: Partial<HeaderRow>) =>
    setHeaders((rows) => rows.map((r) => (r.key === k ? { ...r, ...patch } : r)));
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
    <form
      aria-label={target ? "Edit target" : "New target"}
      className="max-w-4xl space-y-6"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      onChange={() => {
        // Messages describe what was submitted; once the user edits, they no longer apply.
        if (save.isError) save.reset();
        if (Object.keys(clientErrors).length > 0) setClientErrors({});
      }}
    >
      <EditorFields canEdit={canEdit}>
        <Card title={target ? `Edit target ${target.name}` : "New target"}>
          <div className="grid gap-4 md:grid-cols-2">
            <Field label="Target name" htmlFor="target-name" error={errors.name}>
              <input
                id="target-name"
                className={inputClass}
                value={name}
                onChange={(e) => setName(e.target.value)}
                aria-invalid={!!errors.name}
                placeholder="gateway on t3.medium"
              />
            </Field>
            <Field label="Kind" htmlFor="target-kind" error={errors.kind}>
              <select
                id="target-kind"
                className={inputClass}
                value={kind}
                onChange={(e) => setKind(e.target.value as TargetInput["kind"])}
              >
                {(Object.keys(TARGET_KIND_LABEL) as TargetInput["kind"][]).map((k) => (
                  <option key={k} value={k}>
                    {TARGET_KIND_LABEL[k]}
                  </option>
                ))}
              </select>
            </Field>
            <Field
              label="Base URL"
              htmlFor="target-url"
              error={errors.baseUrl}
              hint="Scenario paths are relative to it"
            >
              <input
                id="target-url"
                className={`${inputClass} font-mono`}
                value={baseUrl}
                placeholder="https://staging.example.com"
                onChange={(e) => setBaseUrl(e.target.value)}
                aria-invalid={!!errors.baseUrl}
              />
            </Field>
            <OriginChangeNote saved={target?.baseUrl} current={baseUrl} />
            <Field
              label="Config-apply URL (optional)"
              htmlFor="target-apply-url"
              error={errors.configApplyUrl}
              hint="Receives PUT of the instance config's knobs before each run"
            >
              <input
                id="target-apply-url"
                className={`${inputClass} font-mono`}
                value={configApplyUrl}
                onChange={(e) => setConfigApplyUrl(e.target.value)}
                aria-invalid={!!errors.configApplyUrl}
                placeholder="http://127.0.0.1:4100/admin/config"
              />
            </Field>
            <Field
              label="Overhead stages (optional)"
              htmlFor="target-overhead-stages"
              error={stageError}
              hint="Server-Timing stages that are this target's own work, comma-separated; ticked “in overhead” on its runs"
            >
              <input
                id="target-overhead-stages"
                className={`${inputClass} font-mono`}
                value={overheadStages}
                onChange={(e) => setOverheadStages(e.target.value)}
                aria-invalid={!!stageError}
                placeholder="queue_wait, key_selection"
              />
            </Field>
          </div>
        </Card>

        <Card
          title="Headers"
          actions={
            <Button
              variant="secondary"
              onClick={() =>
                setHeaders((rows) => [
                  ...rows,
                  { key: nextRowKey(), name: "", value: "", secret: false, storedAs: null, replacing: false },
                ])
              }
            >
              Add header
            </Button>
          }
        >
          {headers.length === 0 ? (
            <p className="text-sm text-slate-500">
              Sent with every request. Mark a header secret (e.g. an API key) to store its value encrypted; it is never
              shown again.
            </p>
          ) : (
            <div className="space-y-3" role="list" aria-label="Headers">
              {headers.map((h, i) => {
                const n = i + 1;
                const nameErr = errors[`headers.${i}.name`];
                const valueErr = errors[`headers.${i}.value`];
                const storedSecret = h.secret && h.storedAs !== null && !h.replacing;
                return (
                  <div key={h.key} role="listitem" className="grid grid-cols-[1fr_1.4fr_auto_auto] items-start gap-3">
                    <div>
                      <label htmlFor={`header-${h.key}-name`} className="sr-only">
                        Header {n} name
                      </label>
                      <input
                        id={`header-${h.key}-name`}
                        className={`${smallInputClass} font-mono`}
                        placeholder="Authorization"
                        value={h.name}
                        onChange={(e) => patchHeader(h.key, { name: e.target.value })}
                        aria-invalid={!!nameErr}
                        aria-describedby={nameErr ? `header-${h.key}-name-error` : undefined}
                      />
                      <InlineError id={`header-${h.key}-name-error`} message={nameErr} />
                    </div>
                    <div>
                      {storedSecret ? (
                        <div className="flex items-center gap-2 py-1 text-sm">
                          <span className="font-mono text-slate-700">
                            •••• (set)<span className="sr-only"> header {n} value is stored</span>
                          </span>
                          <button
                            type="button"
                            className="text-xs font-medium text-sky-700 hover:underline"
                            onClick={() => patchHeader(h.key, { replacing: true, value: "" })}
                          >
                            Replace
                          </button>
                        </div>
                      ) : (
                        <>
                          <label htmlFor={`header-${h.key}-value`} className="sr-only">
                            Header {n} value
                          </label>
                          <input
                            id={`header-${h.key}-value`}
                            type={h.secret ? "password" : "text"}
                            autoComplete="off"
                            className={`${smallInputClass} font-mono`}
                            placeholder={h.secret ? (h.storedAs ? "new value" : "secret value") : "value"}
                            value={h.value}
                            onChange={(e) => patchHeader(h.key, { value: e.target.value })}
                            aria-invalid={!!valueErr}
                            aria-describedby={valueErr ? `header-${h.key}-value-error` : undefined}
                          />
                          {h.replacing && (
                            <button
                              type="button"
                              className="mt-0.5 text-xs text-sky-700 hover:underline"
                              onClick={() => patchHeader(h.key, { replacing: false, value: "" })}
                            >
                              Keep the stored value
                            </button>
                          )}
                        </>
                      )}
                      <InlineError id={`header-${h.key}-value-error`} message={valueErr} />
                    </div>
                    <label className="flex items-center gap-1.5 py-1 text-sm text-slate-700">
                      <input
                        type="checkbox"
                        checked={h.secret}
                        onChange={(e) =>
                          patchHeader(h.key, {
                            secret: e.target.checked,
                            // Turning a stored secret into a plain header needs its value typed in.
                            replacing: h.storedAs !== null && !e.target.checked ? false : h.replacing,
                            value: h.storedAs !== null ? "" : h.value,
                            storedAs: e.target.checked ? h.storedAs : null,
                          })
                        }
                      />
                      Secret
                      <span className="sr-only"> (header {n})</span>
                    </label>
                    <button
                      type="button"
                      className="py-1 text-sm text-rose-700 hover:underline"
                      aria-label={`Remove header ${n}`}
                      onClick={() => setHeaders((rows) => rows.filter((r) => r.key !== h.key))}
                    >
                      Remove
                    </button>
                  </div>
                );
              })}
            </div>
          )}
        </Card>

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
    </form>
  );
}

const MONITOR_LABEL: Record<MonitorKind, string> = {
  prometheus: "Prometheus metrics",
  rabbitmq: "RabbitMQ queues",
  process: "Local process",
  promql: "Prometheus query (PromQL)",
};

function formatReading(key: string, value: number | null): string {
  if (value === null) return "no value yet";
  if (key.startsWith("mem_")) return formatBytes(value);
  if (key.startsWith("cpu_")) return `${value.toFixed(2)} cores`;
  return value.toLocaleString("en-US", { maximumFractionDigits: 2 });
}

function MonitorFields({
  index,
  row,
  errors,
  result,
  onChange,
  onRemove,
}: {
  index: number;
  row: MonitorRow;
  errors: Record<string, string>;
  result?: ProbeResults[number];
  onChange: (patch: Partial<MonitorRow>) => void;
  onRemove: () => void;
}) {
  const id = (field: string) => `monitor-${row.key}-${field}`;
  const err = (field: string) => errors[`monitors.${index}.${field}`];
  const text = (
    field: keyof MonitorRow,
    label: string,
    errPath: string,
    props: { mono?: boolean; placeholder?: string } = {},
  ) => (
    <Field label={label} htmlFor={id(field)} error={err(errPath)}>
      <input
        id={id(field)}
        className={`${inputClass} ${props.mono ? "font-mono" : ""}`}
        value={row[field] as string}
        placeholder={props.placeholder}
        onChange={(e) => onChange({ [field]: e.target.value })}
        aria-invalid={!!err(errPath)}
      />
    </Field>
  );
  return (
    <fieldset className="rounded-md border border-slate-200 p-3">
      <legend className="px-1 text-sm font-semibold text-slate-800">
        Monitor {index + 1}: {MONITOR_LABEL[row.kind]}
      </legend>
      <div className="grid gap-3 md:grid-cols-2">
        {row.kind === "prometheus" && (
          <>
            {text("url", "Metrics URL", "config.url", { mono: true, placeholder: "http://127.0.0.1:4100/metrics" })}
            {text("memoryMetric", "Memory metric", "config.memoryMetric", { mono: true })}
            {text("cpuMetric", "CPU seconds metric", "config.cpuMetric", { mono: true })}
            <Field label="Extra gauges (name=metric per line)" htmlFor={id("gauges")} error={err("config.gauges")}>
              <textarea
                id={id("gauges")}
                className={`${inputClass} font-mono`}
                rows={2}
                value={row.gauges}
                placeholder="queue_depth=gateway_queue_depth"
                onChange={(e) => onChange({ gauges: e.target.value })}
              />
            </Field>
          </>
        )}
        {row.kind === "rabbitmq" && (
          <>
            {text("url", "Management API URL", "config.url", { mono: true })}
            {text("queues", "Queue names (comma separated)", "config.queues", { mono: true })}
            {text("vhost", "Virtual host", "config.vhost", { mono: true })}
            {text("username", "Username", "config.username")}
            <Field
              label="Password"
              htmlFor={id("password")}
              error={err("password")}
              hint={row.hasPassword ? undefined : "Stored encrypted; defaults to guest when empty"}
            >
              {row.hasPassword && !row.replacingPassword && !row.clearPassword ? (
                <div className="flex items-center gap-3 py-1 text-sm">
                  <span id={id("password")} className="font-mono text-slate-700">
                    •••• (set)
                  </span>
                  <button
                    type="button"
                    className="text-xs font-medium text-sky-700 hover:underline"
                    onClick={() => onChange({ replacingPassword: true, password: "" })}
                  >
                    Replace
                  </button>
                  <button
                    type="button"
                    className="text-xs font-medium text-rose-700 hover:underline"
                    onClick={() => onChange({ clearPassword: true, password: "" })}
                  >
                    Remove
                  </button>
                </div>
              ) : (
                <input
                  id={id("password")}
                  type="password"
                  autoComplete="off"
                  className={inputClass}
                  value={row.password}
                  placeholder={row.clearPassword ? "removed (guest)" : row.hasPassword ? "new password" : ""}
                  onChange={(e) => onChange({ password: e.target.value, clearPassword: false })}
                />
              )}
            </Field>
          </>
        )}
        {row.kind === "promql" && (
          <>
            {text("url", "Prometheus URL", "config.url", { mono: true, placeholder: "http://prometheus:9090" })}
            <Field label="Stored as" htmlFor={id("metric")} error={err("config.metric")}>
              <select
                id={id("metric")}
                className={inputClass}
                value={row.metric}
                onChange={(e) => onChange({ metric: e.target.value as MonitorRow["metric"] })}
              >
                <option value="memory">Memory (bytes)</option>
                <option value="cpu">CPU (cores)</option>
                <option value="queue_depth">Queue depth (messages)</option>
                <option value="custom">Custom series…</option>
              </select>
            </Field>
            <div className="md:col-span-2">
              <Field
                label="PromQL expression"
                htmlFor={id("query")}
                error={err("config.query")}
                hint="Evaluated with query_range over the run's window when it ends; it must give one series."
              >
                <textarea
                  id={id("query")}
                  className={`${inputClass} font-mono`}
                  rows={2}
                  value={row.query}
                  placeholder={'sum(container_memory_working_set_bytes{pod=~"gateway-.*"})'}
                  onChange={(e) => onChange({ query: e.target.value })}
                  aria-invalid={!!err("config.query")}
                />
              </Field>
            </div>
            {row.metric === "custom" && (
              <>
                {text("seriesName", "Series name", "config.name", { mono: true, placeholder: "gateway_connections" })}
                {text("unit", "Unit", "config.unit", { placeholder: "connections" })}
              </>
            )}
            {text("step", "Step (seconds, optional)", "config.stepSeconds", { placeholder: "1" })}
          </>
        )}
        {row.kind === "process" && (
          <>
            {text("port", "Listening port", "config.port", { placeholder: "4100" })}
            {text("pid", "or process id", "config.pid")}
          </>
        )}
      </div>
      <div className="mt-3 flex items-start justify-between gap-4">
        <ProbeResult result={result} />
        <button
          type="button"
          className="text-sm text-rose-700 hover:underline"
          aria-label={`Remove monitor ${index + 1}`}
          onClick={onRemove}
        >
          Remove monitor
        </button>
      </div>
    </fieldset>
  );
}

function ProbeResult({ result }: { result?: ProbeResults[number] }) {
  if (!result) return <span />;
  const details = result.details as { pid?: number; name?: string; metricCount?: number; missing?: string[] };
  return (
    <div
      role="status"
      aria-label={`Monitor ${result.index + 1} reading`}
      className={`rounded-md px-3 py-2 text-sm ${result.ok ? "bg-emerald-50 text-emerald-900" : "bg-rose-50 text-rose-900"}`}
    >
      <div className="font-medium">
        {result.ok ? "Connected" : "Failed"} <span className="font-normal text-slate-500">({result.tookMs} ms)</span>
      </div>
      {result.error && <div>{result.error}</div>}
      {result.ok && (
        <ul className="mt-1 space-y-0.5">
          {Object.entries(result.readings).map(([k, v]) => (
            <li key={k}>
              <span className="font-mono text-xs">{k}</span>: {formatReading(k, v)}
            </li>
          ))}
          {details.pid !== undefined && (
            <li>
              process {details.pid}
              {details.name ? ` (${details.name})` : ""}
            </li>
          )}
          {details.metricCount !== undefined && <li>{details.metricCount} metrics exposed</li>}
          {details.missing && details.missing.length > 0 && (
            <li className="text-amber-800">not found: {details.missing.join(", ")}</li>
          )}
        </ul>
      )}
    </div>
  );
}
