import type { RouterInputs, RouterOutputs } from "@benchboard/api";
import { parseStageList, ZOverheadStages } from "@benchboard/core";
import { nextRowKey, numberOrEmpty, numText } from "~/app/_components/form-kit/values";

/**
 * The target editor's rows and the API input they stand for, without React. Secrets never come
 * back from the API: a stored secret is a row that knows its name, and is kept unless replaced.
 */

export type Target = RouterOutputs["target"]["byId"];
export type TargetInput = RouterInputs["target"]["create"];
export type MonitorInput = NonNullable<TargetInput["monitors"]>[number];

export interface HeaderRow {
  key: number;
  name: string;
  value: string;
  secret: boolean;
  /** Name under which a secret value is stored (set for stored secrets). */
  storedAs: string | null;
  /** The user chose to type a new value for a stored secret. */
  replacing: boolean;
}

export type MonitorKind = "prometheus" | "rabbitmq" | "process" | "promql";
export type PromQlMetric = "memory" | "cpu" | "queue_depth" | "custom";

export interface MonitorRow {
  key: number;
  id: string | null;
  kind: MonitorKind;
  url: string;
  memoryMetric: string;
  cpuMetric: string;
  /** `name=metric` per line. */
  gauges: string;
  vhost: string;
  queues: string;
  username: string;
  password: string;
  hasPassword: boolean;
  replacingPassword: boolean;
  clearPassword: boolean;
  pid: string;
  port: string;
  /** PromQL expression, the series it fills, a custom series' name and unit, step in seconds. */
  query: string;
  metric: PromQlMetric;
  seriesName: string;
  unit: string;
  step: string;
}

export function emptyMonitor(kind: MonitorKind): MonitorRow {
  return {
    key: nextRowKey(),
    id: null,
    kind,
    url: kind === "rabbitmq" ? "http://127.0.0.1:15672" : "",
    memoryMetric: "process_resident_memory_bytes",
    cpuMetric: "process_cpu_seconds_total",
    gauges: "",
    vhost: "/",
    queues: "",
    username: "guest",
    password: "",
    hasPassword: false,
    replacingPassword: false,
    clearPassword: false,
    pid: "",
    port: "",
    query: "",
    metric: "memory",
    seriesName: "",
    unit: "",
    step: "",
  };
}

export function rowsFromTarget(target: Target) {
  const headers: HeaderRow[] = target.headers.map((h) => ({
    key: nextRowKey(),
    name: h.name,
    value: "value" in h ? h.value : "",
    secret: "secret" in h,
    storedAs: "secret" in h ? h.name : null,
    replacing: false,
  }));
  const monitors: MonitorRow[] = target.monitors.map((m) => {
    const row = emptyMonitor(m.kind);
    row.id = m.id;
    if (m.kind === "prometheus") {
      row.url = m.url;
      row.memoryMetric = m.memoryMetric;
      row.cpuMetric = m.cpuMetric;
      row.gauges = m.gauges.map((g) => `${g.name}=${g.metric}`).join("\n");
    } else if (m.kind === "rabbitmq") {
      row.url = m.url;
      row.vhost = m.vhost;
      row.queues = m.queues.join(", ");
      row.username = m.username;
      row.hasPassword = m.hasPassword === true;
    } else if (m.kind === "promql") {
      row.url = m.url;
      row.query = m.query;
      row.metric = m.metric;
      row.seriesName = m.name ?? "";
      row.unit = m.unit ?? "";
      row.step = numText(m.stepSeconds);
    } else {
      row.pid = numText(m.pid);
      row.port = numText(m.port);
    }
    return row;
  });
  return { headers, monitors };
}

/** Monitor rows as the API takes them; problems the form can see itself go to `errors`. */
export function monitorInputs(rows: MonitorRow[], errors: Record<string, string>): MonitorInput[] {
  return rows.map((m, i) => {
    const path = `monitors.${i}`;
    const common = { id: m.id };
    if (m.kind === "prometheus") {
      const gauges = m.gauges
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean)
        .map((line) => {
          const [name = "", metric = ""] = line.split("=").map((p) => p.trim());
          if (!name || !metric) errors[`${path}.config.gauges`] = "one gauge per line: name=metric";
          return { name, metric };
        });
      return {
        ...common,
        config: { kind: "prometheus", url: m.url.trim(), memoryMetric: m.memoryMetric, cpuMetric: m.cpuMetric, gauges },
      };
    }
    if (m.kind === "rabbitmq") {
      return {
        ...common,
        config: {
          kind: "rabbitmq",
          url: m.url.trim(),
          vhost: m.vhost || "/",
          queues: m.queues
            .split(",")
            .map((q) => q.trim())
            .filter(Boolean),
          username: m.username,
        },
        password: m.password || null,
        clearPassword: m.clearPassword,
      } as MonitorInput;
    }
    if (m.kind === "promql") {
      const stepSeconds = numberOrEmpty(m.step);
      if (stepSeconds !== undefined && !Number.isInteger(stepSeconds)) {
        errors[`${path}.config.stepSeconds`] = "must be a whole number of seconds";
      }
      const custom = m.metric === "custom";
      return {
        ...common,
        config: {
          kind: "promql",
          url: m.url.trim(),
          query: m.query,
          metric: m.metric,
          name: custom ? m.seriesName.trim() || undefined : undefined,
          unit: custom ? m.unit.trim() || undefined : undefined,
          stepSeconds,
        },
      };
    }
    const pid = numberOrEmpty(m.pid);
    const port = numberOrEmpty(m.port);
    if (pid !== undefined && !Number.isInteger(pid)) errors[`${path}.config.pid`] = "must be a whole number";
    if (port !== undefined && !Number.isInteger(port)) errors[`${path}.config.port`] = "must be a whole number";
    return { ...common, config: { kind: "process", pid, port } };
  });
}

/** Header rows as the API takes them: a stored secret left alone is sent as null (kept). */
export function headerInputs(rows: readonly HeaderRow[]) {
  return rows.map((h) => ({
    name: h.name.trim(),
    secret: h.secret,
    value: h.secret && h.storedAs && !h.replacing ? null : h.value,
    from: h.storedAs,
  }));
}

/** The target's overhead stages as the form's comma-separated text. */
export function overheadStagesText(target?: Pick<Target, "overheadStages"> | null): string {
  return (target?.overheadStages ?? []).join(", ");
}

/**
 * The "Overhead stages" text as the API takes it: names split on commas, blanks dropped. A list
 * the API would refuse is reported at `overheadStages` in plain words.
 */
export function overheadStagesInput(text: string, errors: Record<string, string>): string[] {
  const names = parseStageList(text);
  const parsed = ZOverheadStages.safeParse(names);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = typeof issue.path[0] === "number" ? names[issue.path[0]] : undefined;
    errors.overheadStages =
      at !== undefined && !issue.message.includes(`"${at}"`) ? `"${at}": ${issue.message}` : issue.message;
  }
  return names;
}
