"use client";

import type { RouterOutputs } from "@benchboard/api";
import {
  defaultScenarioSpec,
  ENGINE_KINDS,
  ENGINE_LABEL,
  estimateLoad,
  formatDurationMs,
  METRICS,
  type TEngineKind,
  type TPlanStep,
  type TScenarioSpec,
  type TThreshold,
  ZScenarioSpec,
} from "@benchboard/core";
import { Button, Card, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";
import {
  EditorActions,
  FormAlert,
  InlineError,
  mergeErrors,
  numberOrEmpty,
  numText,
  smallInputClass,
  unshownErrors,
  useSavedThenBack,
} from "../../_components/form";

type Scenario = RouterOutputs["scenario"]["byId"];

interface NumField {
  key: string;
  label: string;
  required?: boolean;
  hint?: string;
}

/** The numeric settings of each engine, in the order a user thinks about them. */
const NUMBER_FIELDS: Record<TEngineKind, NumField[]> = {
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
    { key: "durationS", label: "Max duration (s)", required: true },
    { key: "connectTimeoutMs", label: "Connect timeout (ms)", required: true },
    { key: "drainTimeoutMs", label: "Drain timeout (ms)", required: true },
  ],
};

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
type Method = (typeof METHODS)[number];
const OPS = ["<", "<=", ">", ">=", "=="] as const;

interface ThresholdRow {
  key: number;
  metric: string;
  op: TThreshold["op"];
  value: string;
}

interface StepRow {
  key: number;
  /** The imported step, so settings the form does not show (assign, with_items, asserts…) are kept. */
  original: TPlanStep | null;
  name: string;
  method: Method;
  path: string;
  body: string;
}

interface FormState {
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
  steps: StepRow[];
  /** Settings of the spec the form does not edit (e.g. plan variables), kept as they were. */
  base: Record<string, unknown>;
}

let nextKey = 1;

function headersText(headers: Record<string, string> | undefined): string {
  return Object.entries(headers ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");
}

function stateFromSpec(spec: TScenarioSpec): FormState {
  const s = spec as Record<string, unknown>;
  const numbers: Record<string, string> = {};
  for (const f of NUMBER_FIELDS[spec.engine]) numbers[f.key] = numText(s[f.key] as number | undefined);
  const request = "request" in spec ? spec.request : undefined;
  return {
    engine: spec.engine,
    numbers,
    method: request?.method ?? "GET",
    path: request?.path ?? ("path" in spec ? spec.path : "/"),
    body: request?.body ?? "",
    headers: headersText(request?.headers ?? (spec.engine === "llm" ? spec.headers : undefined)),
    model: spec.engine === "llm" ? spec.model : "gpt-4o-mini",
    promptTemplate: spec.engine === "llm" ? spec.promptTemplate : "",
    stream: spec.engine === "llm" ? spec.stream : false,
    steps:
      spec.engine === "http-closed"
        ? (spec.plan ?? []).map((step) => ({
            key: nextKey++,
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
function specFromState(state: FormState, errors: Record<string, string>): Record<string, unknown> {
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
      delete spec[f.key];
    } else if (!Number.isFinite(n)) {
      errors[path] = "must be a number";
    } else {
      spec[f.key] = n;
    }
  }
  const headers: Record<string, string> = {};
  state.headers.split("\n").forEach((line) => {
    if (!line.trim()) return;
    const at = line.indexOf(":");
    if (at <= 0) errors["spec.request.headers"] = "one header per line: Name: value";
    else headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  });
  if (state.engine === "http-open" || state.engine === "http-closed") {
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
  if (state.engine === "ws-chat") spec.path = state.path;
  return spec;
}

export function ScenarioEditor({ projectId, scenarioId }: { projectId: string; scenarioId?: string }) {
  const trpc = useTRPC();
  const existing = useQuery({ ...trpc.scenario.byId.queryOptions({ id: scenarioId ?? "" }), enabled: !!scenarioId });
  if (scenarioId && existing.isPending) return <Skeleton className="h-96" label="Loading scenario" />;
  if (scenarioId && existing.isError) {
    return (
      <ErrorState title="Scenario not available" message={existing.error.message} onRetry={() => existing.refetch()} />
    );
  }
  return (
    <ScenarioForm key={existing.data?.updatedAt.toString() ?? "new"} projectId={projectId} scenario={existing.data} />
  );
}

function ScenarioForm({ projectId, scenario }: { projectId: string; scenario?: Scenario }) {
  const trpc = useTRPC();
  const initialSpec = ZScenarioSpec.safeParse(scenario?.spec);
  const [name, setName] = useState(scenario?.name ?? "");
  const [description, setDescription] = useState(scenario?.description ?? "");
  const [state, setState] = useState<FormState>(() =>
    stateFromSpec(initialSpec.success ? initialSpec.data : defaultScenarioSpec("http-open")),
  );
  const [thresholds, setThresholds] = useState<ThresholdRow[]>(
    (scenario?.thresholds ?? []).map((t) => ({ key: nextKey++, metric: t.metric, op: t.op, value: String(t.value) })),
  );
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  const [drillYaml, setDrillYaml] = useState("");
  const [imported, setImported] = useState<{ warnings: string[]; base: string | null } | null>(null);
  const listUrl = `/projects/${projectId}/scenarios`;

  const onSaved = useSavedThenBack(trpc.scenario.pathKey(), listUrl);
  const create = useMutation(trpc.scenario.create.mutationOptions({ onSuccess: onSaved }));
  const update = useMutation(trpc.scenario.update.mutationOptions({ onSuccess: onSaved }));
  const importDrill = useMutation(
    trpc.scenario.importDrill.mutationOptions({
      onSuccess: (result) => {
        setState(stateFromSpec(result.spec));
        setImported({ warnings: result.warnings, base: result.base });
        if (!name.trim()) setName("imported drill plan");
      },
    }),
  );
  const save = scenario ? update : create;
  const errors = mergeErrors(clientErrors, save.error);
  const drillErrors = fieldErrors(importDrill.error);

  const setEngine = (engine: TEngineKind) => {
    setClientErrors({});
    setImported(null);
    setState(stateFromSpec(defaultScenarioSpec(engine)));
  };
  const setNumber = (k: string, v: string) => setState((s) => ({ ...s, numbers: { ...s.numbers, [k]: v } }));
  const patch = (p: Partial<FormState>) => setState((s) => ({ ...s, ...p }));

  const previewErrors: Record<string, string> = {};
  const preview = ZScenarioSpec.safeParse(specFromState(state, previewErrors));
  const load = preview.success && Object.keys(previewErrors).length === 0 ? estimateLoad(preview.data) : null;

  const submit = () => {
    const found: Record<string, string> = {};
    const spec = specFromState(state, found);
    const thresholdList = thresholds.map((t, i) => {
      const value = numberOrEmpty(t.value);
      if (value === undefined || !Number.isFinite(value)) found[`thresholds.${i}.value`] = "must be a number";
      return { metric: t.metric, op: t.op, value: value ?? Number.NaN };
    });
    setClientErrors(found);
    if (Object.keys(found).length > 0) return;
    const fields = { name, description, spec: spec as TScenarioSpec, thresholds: thresholdList };
    if (scenario) update.mutate({ id: scenario.id, ...fields });
    else create.mutate({ projectId, ...fields });
  };

  const shownFields = new Set(["name", "description", "spec.path", "spec.model", "spec.promptTemplate"]);
  const shown = (path: string) =>
    shownFields.has(path) ||
    NUMBER_FIELDS[state.engine].some((f) => path === `spec.${f.key}`) ||
    path.startsWith("spec.request") ||
    path.startsWith("spec.plan") ||
    path.startsWith("thresholds.");
  const numberInput = (f: NumField) => {
    const path = `spec.${f.key}`;
    return (
      <Field key={f.key} label={f.label} htmlFor={`scenario-${f.key}`} error={errors[path]} hint={f.hint}>
        <input
          id={`scenario-${f.key}`}
          inputMode="decimal"
          className={inputClass}
          value={state.numbers[f.key] ?? ""}
          onChange={(e) => setNumber(f.key, e.target.value)}
          aria-invalid={!!errors[path]}
        />
      </Field>
    );
  };
  const isHttp = state.engine === "http-open" || state.engine === "http-closed";
  const planMode = state.engine === "http-closed" && state.steps.length > 0;

  return (
    <form
      aria-label={scenario ? "Edit scenario" : "New scenario"}
      className="max-w-5xl space-y-6"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      onChange={(e) => {
        // Messages describe what was submitted; once the user edits, they no longer apply.
        if ((e.target as HTMLElement).id === "drill-yaml") {
          if (importDrill.isError) importDrill.reset();
          return;
        }
        if (save.isError) save.reset();
        if (Object.keys(clientErrors).length > 0) setClientErrors({});
      }}
    >
      <div className="grid gap-6 lg:grid-cols-3">
        <Card title={scenario ? `Edit scenario ${scenario.name}` : "New scenario"} className="lg:col-span-2">
          <div className="grid gap-4 md:grid-cols-2">
            <Field label="Scenario name" htmlFor="scenario-name" error={errors.name}>
              <input
                id="scenario-name"
                className={inputClass}
                value={name}
                onChange={(e) => setName(e.target.value)}
                aria-invalid={!!errors.name}
                placeholder="5,000 req/s for 60 s"
              />
            </Field>
            <Field label="Engine" htmlFor="scenario-engine">
              <select
                id="scenario-engine"
                className={inputClass}
                value={state.engine}
                onChange={(e) => setEngine(e.target.value as TEngineKind)}
              >
                {ENGINE_KINDS.map((k) => (
                  <option key={k} value={k}>
                    {ENGINE_LABEL[k]}
                  </option>
                ))}
              </select>
            </Field>
            <div className="md:col-span-2">
              <Field label="Description (optional)" htmlFor="scenario-description" error={errors.description}>
                <input
                  id="scenario-description"
                  className={inputClass}
                  value={description}
                  onChange={(e) => setDescription(e.target.value)}
                />
              </Field>
            </div>
          </div>
        </Card>
        <Card title="Estimated load">
          {load ? (
            <dl className="space-y-2 text-sm" aria-label="Estimated load">
              <div className="flex justify-between">
                <dt className="text-slate-600">{state.engine === "ws-chat" ? "Messages" : "Requests"}</dt>
                <dd className="font-medium tabular-nums">
                  {load.requests?.toLocaleString("en-US") ?? "until the duration ends"}
                </dd>
              </div>
              <div className="flex justify-between">
                <dt className="text-slate-600">Duration</dt>
                <dd className="font-medium tabular-nums">
                  {load.durationS !== null ? formatDurationMs(load.durationS * 1000) : "until the requests are done"}
                </dd>
              </div>
            </dl>
          ) : (
            <p className="text-sm text-slate-500">Complete the settings to see the estimate.</p>
          )}
        </Card>
      </div>

      <details className="rounded-lg border border-slate-200 bg-white shadow-sm">
        <summary className="cursor-pointer px-4 py-2.5 text-sm font-semibold text-slate-800">
          Import a drill plan…
        </summary>
        <div className="border-t border-slate-100 p-4">
          <div className="space-y-3">
            <Field
              label="Drill benchmark YAML"
              htmlFor="drill-yaml"
              error={drillErrors.yaml}
              hint="Replaces the settings above with an HTTP closed-model scenario; nothing is saved until you save"
            >
              <textarea
                id="drill-yaml"
                rows={5}
                className={`${inputClass} font-mono text-xs`}
                value={drillYaml}
                onChange={(e) => setDrillYaml(e.target.value)}
                aria-invalid={!!drillErrors.yaml}
                placeholder={"concurrency: 8\niterations: 1000\nplan:\n  - name: home\n    request:\n      url: /"}
              />
            </Field>
            <Button
              variant="secondary"
              onClick={() => importDrill.mutate({ yaml: drillYaml })}
              disabled={importDrill.isPending || !drillYaml.trim()}
            >
              {importDrill.isPending ? "Importing…" : "Import plan"}
            </Button>
            {importDrill.isError && !drillErrors.yaml && <FormAlert>{errorMessage(importDrill.error)}</FormAlert>}
            {imported && (
              <div role="status" className="rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
                Imported {state.steps.length} plan step{state.steps.length === 1 ? "" : "s"}.
                {imported.base && ` The plan's base ${imported.base} is replaced by the run's target.`}
                {imported.warnings.length > 0 && (
                  <ul className="mt-1 list-disc pl-5 text-amber-900">
                    {imported.warnings.map((w) => (
                      <li key={w}>{w}</li>
                    ))}
                  </ul>
                )}
              </div>
            )}
          </div>
        </div>
      </details>

      <Card title="Load settings">
        <div className="grid gap-4 md:grid-cols-3">
          {planMode && (
            <p className="text-sm text-slate-600 md:col-span-3">
              Each iteration runs the plan steps below, in order; the requests are defined there.
            </p>
          )}
          {isHttp && !planMode && (
            <>
              <Field label="Method" htmlFor="scenario-method" error={errors["spec.request.method"]}>
                <select
                  id="scenario-method"
                  className={inputClass}
                  value={state.method}
                  onChange={(e) => patch({ method: e.target.value as Method })}
                >
                  {METHODS.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </select>
              </Field>
              <div className="md:col-span-2">
                <Field
                  label="Path"
                  htmlFor="scenario-path"
                  error={errors["spec.request.path"]}
                  hint="Relative to the target's base URL"
                >
                  <input
                    id="scenario-path"
                    className={`${inputClass} font-mono`}
                    value={state.path}
                    onChange={(e) => patch({ path: e.target.value })}
                  />
                </Field>
              </div>
            </>
          )}
          {(state.engine === "llm" || state.engine === "ws-chat") && (
            <Field label="Path" htmlFor="scenario-path" error={errors["spec.path"]}>
              <input
                id="scenario-path"
                className={`${inputClass} font-mono`}
                value={state.path}
                onChange={(e) => patch({ path: e.target.value })}
              />
            </Field>
          )}
          {state.engine === "llm" && (
            <>
              <Field label="Model" htmlFor="scenario-model" error={errors["spec.model"]}>
                <input
                  id="scenario-model"
                  className={`${inputClass} font-mono`}
                  value={state.model}
                  onChange={(e) => patch({ model: e.target.value })}
                  aria-invalid={!!errors["spec.model"]}
                />
              </Field>
              <label className="flex items-center gap-2 self-end pb-2 text-sm font-medium text-slate-700">
                <input type="checkbox" checked={state.stream} onChange={(e) => patch({ stream: e.target.checked })} />
                Streaming (time to first token, tokens/s)
              </label>
              <div className="md:col-span-3">
                <Field
                  label="Prompt template"
                  htmlFor="scenario-prompt"
                  error={errors["spec.promptTemplate"]}
                  hint="{{nonce}}, {{index}} and {{timestamp}} are filled in per request so no two prompts are equal"
                >
                  <textarea
                    id="scenario-prompt"
                    rows={3}
                    className={`${inputClass} font-mono`}
                    value={state.promptTemplate}
                    onChange={(e) => patch({ promptTemplate: e.target.value })}
                    aria-invalid={!!errors["spec.promptTemplate"]}
                  />
                </Field>
              </div>
            </>
          )}
          {NUMBER_FIELDS[state.engine].map(numberInput)}
          {((isHttp && !planMode) || state.engine === "llm") && (
            <div className="md:col-span-3 grid gap-4 md:grid-cols-2">
              <Field
                label="Request headers (Name: value per line)"
                htmlFor="scenario-headers"
                error={errors["spec.request.headers"]}
                hint="Added to the target's headers; keep secrets on the target"
              >
                <textarea
                  id="scenario-headers"
                  rows={2}
                  className={`${inputClass} font-mono`}
                  value={state.headers}
                  onChange={(e) => patch({ headers: e.target.value })}
                />
              </Field>
              {isHttp && (
                <Field label="Request body (optional)" htmlFor="scenario-body" error={errors["spec.request.body"]}>
                  <textarea
                    id="scenario-body"
                    rows={2}
                    className={`${inputClass} font-mono`}
                    value={state.body}
                    onChange={(e) => patch({ body: e.target.value })}
                  />
                </Field>
              )}
            </div>
          )}
        </div>
      </Card>

      {state.engine === "http-closed" && (
        <PlanSteps steps={state.steps} errors={errors} onChange={(steps) => patch({ steps })} />
      )}

      <Card
        title="Thresholds"
        actions={
          <Button
            variant="secondary"
            onClick={() =>
              setThresholds((rows) => [...rows, { key: nextKey++, metric: "latency_p99", op: "<", value: "" }])
            }
          >
            Add threshold
          </Button>
        }
      >
        {thresholds.length === 0 ? (
          <p className="text-sm text-slate-500">
            Pass/fail checks on every run of this scenario, e.g. p99 latency below 100 ms or success rate at least
            99.9%.
          </p>
        ) : (
          <div className="space-y-2" role="list" aria-label="Thresholds">
            {thresholds.map((t, i) => {
              const n = i + 1;
              const metricErr = errors[`thresholds.${i}.metric`];
              const valueErr = errors[`thresholds.${i}.value`];
              const row = (p: Partial<ThresholdRow>) =>
                setThresholds((rows) => rows.map((r) => (r.key === t.key ? { ...r, ...p } : r)));
              return (
                <div key={t.key} role="listitem" className="grid grid-cols-[1.6fr_0.5fr_1fr_auto] items-start gap-3">
                  <div>
                    <label htmlFor={`threshold-${t.key}-metric`} className="sr-only">
                      Threshold {n} metric
                    </label>
                    <select
                      id={`threshold-${t.key}-metric`}
                      className={smallInputClass}
                      value={t.metric}
                      onChange={(e) => row({ metric: e.target.value })}
                      aria-invalid={!!metricErr}
                    >
                      {!METRICS.some((m) => m.key === t.metric) && <option value={t.metric}>{t.metric}</option>}
                      {METRICS.filter((m) => !m.derived).map((m) => (
                        <option key={m.key} value={m.key}>
                          {m.label} ({m.unit})
                        </option>
                      ))}
                    </select>
                    <InlineError id={`threshold-${t.key}-metric-error`} message={metricErr} />
                  </div>
                  <div>
                    <label htmlFor={`threshold-${t.key}-op`} className="sr-only">
                      Threshold {n} comparison
                    </label>
                    <select
                      id={`threshold-${t.key}-op`}
                      className={smallInputClass}
                      value={t.op}
                      onChange={(e) => row({ op: e.target.value as TThreshold["op"] })}
                    >
                      {OPS.map((op) => (
                        <option key={op}>{op}</option>
                      ))}
                    </select>
                  </div>
                  <div>
                    <label htmlFor={`threshold-${t.key}-value`} className="sr-only">
                      Threshold {n} value
                    </label>
                    <input
                      id={`threshold-${t.key}-value`}
                      inputMode="decimal"
                      className={smallInputClass}
                      value={t.value}
                      onChange={(e) => row({ value: e.target.value })}
                      aria-invalid={!!valueErr}
                      aria-describedby={valueErr ? `threshold-${t.key}-value-error` : undefined}
                    />
                    <InlineError id={`threshold-${t.key}-value-error`} message={valueErr} />
                  </div>
                  <button
                    type="button"
                    className="py-1 text-sm text-rose-700 hover:underline"
                    aria-label={`Remove threshold ${n}`}
                    onClick={() => setThresholds((rows) => rows.filter((r) => r.key !== t.key))}
                  >
                    Remove
                  </button>
                </div>
              );
            })}
          </div>
        )}
      </Card>

      <EditorActions
        unshown={unshownErrors(errors, shown)}
        saveError={save.error}
        pending={save.isPending}
        label={scenario ? "Save scenario" : "Create scenario"}
        cancelHref={listUrl}
      />
    </form>
  );
}

/** The steps of a drill-style plan: each iteration runs them in order. */
function PlanSteps({
  steps,
  errors,
  onChange,
}: {
  steps: StepRow[];
  errors: Record<string, string>;
  onChange: (steps: StepRow[]) => void;
}) {
  const patch = (k: number, p: Partial<StepRow>) => onChange(steps.map((s) => (s.key === k ? { ...s, ...p } : s)));
  return (
    <Card
      title="Plan steps"
      actions={
        <Button
          variant="secondary"
          onClick={() =>
            onChange([
              ...steps,
              { key: nextKey++, original: null, name: `step ${steps.length + 1}`, method: "GET", path: "/", body: "" },
            ])
          }
        >
          Add step
        </Button>
      }
    >
      {steps.length === 0 ? (
        <p className="text-sm text-slate-500">
          Without steps each iteration sends the one request above. With steps, each iteration runs them in order (the
          drill model).
        </p>
      ) : (
        <ol className="space-y-2" aria-label="Plan steps">
          {steps.map((s, i) => {
            const n = i + 1;
            const err = errors[`spec.plan.${i}.name`] ?? errors[`spec.plan.${i}.request.path`];
            const extras = s.original
              ? [
                  s.original.assign && `assign ${s.original.assign}`,
                  s.original.withItems && `${s.original.withItems.length} items`,
                  s.original.asserts && `${s.original.asserts.length} asserts`,
                  s.original.delayMs && `delay ${s.original.delayMs} ms`,
                ].filter(Boolean)
              : [];
            return (
              <li key={s.key} className="grid grid-cols-[1.2fr_0.6fr_1.6fr_auto] items-start gap-3">
                <div>
                  <label htmlFor={`step-${s.key}-name`} className="sr-only">
                    Step {n} name
                  </label>
                  <input
                    id={`step-${s.key}-name`}
                    className={smallInputClass}
                    value={s.name}
                    onChange={(e) => patch(s.key, { name: e.target.value })}
                    aria-invalid={!!err}
                  />
                  {extras.length > 0 && <div className="mt-0.5 text-xs text-slate-500">{extras.join(" · ")}</div>}
                  <InlineError id={`step-${s.key}-error`} message={err} />
                </div>
                <div>
                  <label htmlFor={`step-${s.key}-method`} className="sr-only">
                    Step {n} method
                  </label>
                  <select
                    id={`step-${s.key}-method`}
                    className={smallInputClass}
                    value={s.method}
                    onChange={(e) => patch(s.key, { method: e.target.value as Method })}
                  >
                    {METHODS.map((m) => (
                      <option key={m}>{m}</option>
                    ))}
                  </select>
                </div>
                <div>
                  <label htmlFor={`step-${s.key}-path`} className="sr-only">
                    Step {n} path
                  </label>
                  <input
                    id={`step-${s.key}-path`}
                    className={`${smallInputClass} font-mono`}
                    value={s.path}
                    onChange={(e) => patch(s.key, { path: e.target.value })}
                  />
                </div>
                <button
                  type="button"
                  className="py-1 text-sm text-rose-700 hover:underline"
                  aria-label={`Remove step ${n}`}
                  onClick={() => onChange(steps.filter((x) => x.key !== s.key))}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ol>
      )}
    </Card>
  );
}
