import {
  checkScenarioCaps,
  defaultScenarioSpec,
  type TEngineKind,
  type TOrgCaps,
  type TPlanStep,
  type TScenarioSpec,
  type TThreshold,
} from "@benchboard/core";
import { headerLines, nextRowKey, numberOrEmpty, numText, parseHeaderLines } from "~/app/_components/form-kit/values";

/**
 * The scenario editor's form state and the spec it stands for, both ways, without React: a spec
 * opens in the form unchanged (settings the form does not show are kept), and the form's text
 * becomes a spec with every problem the form can see recorded at its spec path.
 */

export interface NumField {
  key: string;
  label: string;
  required?: boolean;
  hint?: string;
}

/** The numeric settings of each engine, in the order a user thinks about them. */
export const NUMBER_FIELDS: Record<TEngineKind, NumField[]> = {
  "http-open": [
    { key: "rate", label: "Rate (requests/s)", required: true },
    { key: "durationS", label: "Duration (s)", required: true },
    { key: "rampFromRate", label: "Ramp from (requests/s)", hint: "Optional: start here and grow to the rate" },
    { key: "rampS", label: "Ramp over (s)" },
    { key: "maxConnections", label: "Max connections", required: true },
    { key: "warmupS", label: "Warm-up (s)", hint: "Connections opened and warmed before measuring" },
    { key: "timeoutMs", label: "Request timeout (ms)", required: true },
  ],
  "http-closed": [
    { key: "concurrency", label: "Concurrency", required: true },
    { key: "requests", label: "Requests (iterations)", hint: "Give requests, a duration, or both" },
    { key: "durationS", label: "Duration (s)" },
    { key: "rampUpS", label: "Ramp-up (s)" },
    { key: "timeoutMs", label: "Request timeout (ms)", required: true },
  ],
  llm: [
    { key: "rate", label: "Rate (requests/s)", required: true },
    { key: "durationS", label: "Duration (s)", required: true },
    { key: "maxTokens", label: "Max tokens", required: true },
    { key: "maxConnections", label: "Max connections", required: true },
    { key: "timeoutMs", label: "Request timeout (ms)", required: true },
  ],
  "ws-chat": [
    { key: "users", label: "Users", required: true },
    { key: "rooms", label: "Rooms", required: true },
    { key: "messagesPerUser", label: "Messages per user", required: true },
    { key: "poolSize", label: "Pool size", required: true, hint: "Caps concurrent connection setup" },
    { key: "messageIntervalMs", label: "Interval between messages (ms)", hint: "0 sends as fast as possible" },
    { key: "messageBytes", label: "Message size (bytes)", required: true },
    {
      key: "durationS",
      label: "Duration (s)",
      required: true,
      hint: "How long the run chats, or the most it may last when it ends after the messages",
    },
    { key: "connectTimeoutMs", label: "Connect timeout (ms)", required: true },
    { key: "drainTimeoutMs", label: "Drain timeout (ms)", required: true },
  ],
  "capacity-search": [
    { key: "slo.p99Ms", label: "SLO: p99 at most (ms)", required: true },
    { key: "slo.errorRatePct", label: "SLO: errors at most (%)", required: true },
    { key: "minRate", label: "Lowest rate (requests/s)", required: true, hint: "The first plateau's rate" },
    { key: "maxRate", label: "Highest rate (requests/s)", required: true, hint: "No plateau goes above it" },
    { key: "stepFactor", label: "Step factor", required: true, hint: "Each stepping plateau multiplies the rate" },
    { key: "resolutionPct", label: "Resolution (%)", required: true, hint: "Bisect until the bracket is this narrow" },
    { key: "plateauS", label: "Plateau (s)", required: true, hint: "Measured seconds per plateau" },
    { key: "warmupS", label: "Warm-up per plateau (s)", hint: "Not measured" },
    { key: "maxConnections", label: "Max connections", required: true },
    { key: "timeoutMs", label: "Request timeout (ms)", required: true },
  ],
};

/** Engines that send one HTTP request shape (method, path, headers, body). */
export const REQUEST_ENGINES: ReadonlySet<TEngineKind> = new Set(["http-open", "http-closed", "capacity-search"]);

/** A setting by its dotted key (`slo.p99Ms`). */
function getAt(spec: Record<string, unknown>, key: string): unknown {
  return key
    .split(".")
    .reduce<unknown>(
      (node, k) => (node && typeof node === "object" ? (node as Record<string, unknown>)[k] : undefined),
      spec,
    );
}

/** Set (or, with undefined, remove) a setting by its dotted key, copying the objects on the way. */
function setAt(spec: Record<string, unknown>, key: string, value: number | undefined): void {
  const [head, ...rest] = key.split(".");
  if (!head) return;
  if (rest.length === 0) {
    if (value === undefined) delete spec[head];
    else spec[head] = value;
    return;
  }
  const child = spec[head] && typeof spec[head] === "object" ? { ...(spec[head] as Record<string, unknown>) } : {};
  setAt(child, rest.join("."), value);
  spec[head] = child;
}

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
export type Method = (typeof METHODS)[number];
export const OPS = ["<", "<=", ">", ">=", "=="] as const;

export interface ThresholdRow {
  key: number;
  metric: string;
  op: TThreshold["op"];
  value: string;
}

export interface StepRow {
  key: number;
  /** The imported step, so settings the form does not show (assign, with_items, asserts…) are kept. */
  original: TPlanStep | null;
  name: string;
  method: Method;
  path: string;
  body: string;
}

export interface FormState {
  engine: TEngineKind;
  numbers: Record<string, string>;
  method: Method;
  path: string;
  body: string;
  /** `Name: value` per line. */
  headers: string;
  model: string;
  promptTemplate: string;
  stream: boolean;
  /** How a chat run ends: after each user's messages, or when its duration ends. */
  endsAfter: "messages" | "duration";
  steps: StepRow[];
  /** Settings of the spec the form does not edit (e.g. plan variables), kept as they were. */
  base: Record<string, unknown>;
}

export function stateFromSpec(spec: TScenarioSpec): FormState {
  const s = spec as Record<string, unknown>;
  const numbers: Record<string, string> = {};
  for (const f of NUMBER_FIELDS[spec.engine]) numbers[f.key] = numText(getAt(s, f.key) as number | undefined);
  const request = "request" in spec ? spec.request : undefined;
  return {
    engine: spec.engine,
    numbers,
    method: request?.method ?? "GET",
    path: request?.path ?? ("path" in spec ? spec.path : "/"),
    body: request?.body ?? "",
    headers: headerLines(request?.headers ?? (spec.engine === "llm" ? spec.headers : undefined)),
    model: spec.engine === "llm" ? spec.model : "gpt-4o-mini",
    promptTemplate: spec.engine === "llm" ? spec.promptTemplate : "",
    stream: spec.engine === "llm" ? spec.stream : false,
    endsAfter: spec.engine === "ws-chat" ? spec.endsAfter : "messages",
    steps:
      spec.engine === "http-closed"
        ? (spec.plan ?? []).map((step) => ({
            key: nextRowKey(),
            original: step,
            name: step.name,
            method: step.request.method,
            path: step.request.path,
            body: step.request.body ?? "",
          }))
        : [],
    base: { ...s },
  };
}

/** The spec from the form, with problems the form can see recorded at their spec paths. */
export function specFromState(state: FormState, errors: Record<string, string>): Record<string, unknown> {
  const defaults = defaultScenarioSpec(state.engine) as Record<string, unknown>;
  const spec: Record<string, unknown> = {
    ...defaults,
    ...(state.base.engine === state.engine ? state.base : {}),
    engine: state.engine,
  };
  for (const f of NUMBER_FIELDS[state.engine]) {
    const n = numberOrEmpty(state.numbers[f.key] ?? "");
    const path = `spec.${f.key}`;
    if (n === undefined) {
      if (f.required) errors[path] = "required";
      setAt(spec, f.key, undefined);
    } else if (!Number.isFinite(n)) {
      errors[path] = "must be a number";
    } else {
      setAt(spec, f.key, n);
    }
  }
  const headers = parseHeaderLines(state.headers, "spec.request.headers", errors);
  if (REQUEST_ENGINES.has(state.engine)) {
    spec.request = {
      method: state.method,
      path: state.path,
      headers,
      ...(state.body ? { body: state.body } : {}),
    };
  }
  if (state.engine === "http-closed") {
    if (state.steps.length > 0) {
      spec.plan = state.steps.map((step) => ({
        ...(step.original ?? {}),
        name: step.name,
        request: {
          ...(step.original?.request ?? { headers: {} }),
          method: step.method,
          path: step.path,
          ...(step.body ? { body: step.body } : { body: undefined }),
        },
      }));
    } else {
      delete spec.plan;
    }
  }
  if (state.engine === "llm") {
    spec.path = state.path;
    spec.model = state.model;
    spec.promptTemplate = state.promptTemplate;
    spec.stream = state.stream;
    spec.headers = headers;
  }
  if (state.engine === "ws-chat") {
    spec.path = state.path;
    spec.endsAfter = state.endsAfter;
  }
  return spec;
}

/** Threshold rows as the API takes them, a value that is not a number recorded at its row. */
export function thresholdsFromRows(rows: readonly ThresholdRow[], errors: Record<string, string>): TThreshold[] {
  return rows.map((t, i) => {
    const value = numberOrEmpty(t.value);
    if (value === undefined || !Number.isFinite(value)) errors[`thresholds.${i}.value`] = "must be a number";
    return { metric: t.metric, op: t.op, value: value ?? Number.NaN };
  });
}

export function rowsFromThresholds(thresholds: readonly TThreshold[]): ThresholdRow[] {
  return thresholds.map((t) => ({ key: nextRowKey(), metric: t.metric, op: t.op, value: String(t.value) }));
}

/** Where a spec goes over the organization's caps, at the field that sets it. */
export function capErrors(spec: TScenarioSpec, caps: TOrgCaps): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of checkScenarioCaps(spec, caps)) out[`spec.${v.specField}`] ??= `this scenario ${v.message}`;
  return out;
}
