"use client";

import type { RouterOutputs } from "@benchboard/api";
import { formatBytes } from "@benchboard/core";
import { Field, inputClass } from "@benchboard/ui";
import type { MonitorKind, MonitorRow } from "./target-form";

export type ProbeResults = RouterOutputs["target"]["testMonitors"];

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

export function MonitorFields({
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
