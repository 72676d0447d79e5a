"use client";

import type { RouterOutputs } from "@benchboard/api";
import {
  defaultScenarioSpec,
  ENGINE_KINDS,
  ENGINE_LABEL,
  estimateLoad,
  formatDurationMs,
  type TEngineKind,
  type TScenarioSpec,
  ZScenarioSpec,
} from "@benchboard/core";
import { Button, Card, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  EditorActions,
  EditorFields,
  FormAlert,
  mergeErrors,
  unshownErrors,
  useSavedThenBack,
} from "~/app/_components/form-kit";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";
import { PlanSteps } from "./plan-steps";
import {
  capErrors,
  type FormState,
  METHODS,
  type Method,
  NUMBER_FIELDS,
  type NumField,
  rowsFromThresholds,
  specFromState,
  stateFromSpec,
  type ThresholdRow,
  thresholdsFromRows,
} from "./scenario-form";
import { ThresholdRows } from "./threshold-rows";

type Scenario = RouterOutputs["scenario"]["byId"];

export function ScenarioEditor({ projectId, scenarioId }: { projectId: string; scenarioId?: string }) {
  const trpc = useTRPC();
  const existing = useQuery({ ...trpc.scenario.byId.queryOptions({ id: scenarioId ?? "" }), enabled: !!scenarioId });
  // A new scenario starts within the organization's caps: wait for them (a failed read starts
  // from the plain defaults, and saving still names any cap exceeded).
  const caps = useQuery({ ...trpc.project.caps.queryOptions(), enabled: !scenarioId });
  if (scenarioId && existing.isPending) return <Skeleton className="h-96" label="Loading scenario" />;
  if (!scenarioId && caps.isPending) return <Skeleton className="h-96" label="Loading the organization's limits" />;
  if (scenarioId && existing.isError) {
    return (
      <ErrorState
        title="Scenario not available"
        message={errorMessage(existing.error)}
        onRetry={() => existing.refetch()}
      />
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
  const caps = useQuery(trpc.project.caps.queryOptions());
  const capsNow = caps.data?.caps;
  const [state, setState] = useState<FormState>(() =>
    stateFromSpec(initialSpec.success ? initialSpec.data : defaultScenarioSpec("http-open", capsNow)),
  );
  const [thresholds, setThresholds] = useState<ThresholdRow[]>(() => rowsFromThresholds(scenario?.thresholds ?? []));
  const canEdit = useCanEdit();
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
    setState(stateFromSpec(defaultScenarioSpec(engine, capsNow)));
  };
  const setNumber = (k: string, v: string) => setState((s) => ({ ...s, numbers: { ...s.numbers, [k]: v } }));
  const patch = (p: Partial<FormState>) => setState((s) => ({ ...s, ...p }));

  const previewErrors: Record<string, string> = {};
  const preview = ZScenarioSpec.safeParse(specFromState(state, previewErrors));
  const load = preview.success && Object.keys(previewErrors).length === 0 ? estimateLoad(preview.data) : null;

  const submit = () => {
    const found: Record<string, string> = {};
    const spec = specFromState(state, found);
    const thresholdList = thresholdsFromRows(thresholds, found);
    // Over the organization's caps it could never launch: refused here, at the field.
    const parsed = ZScenarioSpec.safeParse(spec);
    if (parsed.success && caps.data) Object.assign(found, { ...capErrors(parsed.data, caps.data.caps), ...found });
    setClientErrors(found);
    if (Object.keys(found).length > 0) return;
    const fields = { name, description, spec: spec as TScenarioSpec, thresholds: thresholdList };
    if (scenario) update.mutate({ id: scenario.id, ...fields });
    else create.mutate({ projectId, ...fields });
  };

  const shownFields = new Set([
    "name",
    "description",
    "spec.path",
    "spec.model",
    "spec.promptTemplate",
    "spec.endsAfter",
  ]);
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
      <EditorFields canEdit={canEdit}>
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
            {state.engine === "ws-chat" && (
              <Field
                label="Ends"
                htmlFor="scenario-ends-after"
                error={errors["spec.endsAfter"]}
                hint={
                  state.endsAfter === "duration"
                    ? "Users keep sending, one message per interval, until the duration ends; messages per user is not used"
                    : "Each user sends its messages, then the run ends (at the latest after the duration)"
                }
              >
                <select
                  id="scenario-ends-after"
                  className={inputClass}
                  value={state.endsAfter}
                  onChange={(e) => patch({ endsAfter: e.target.value === "duration" ? "duration" : "messages" })}
                >
                  <option value="messages">After each user's messages</option>
                  <option value="duration">When the duration ends</option>
                </select>
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

        <ThresholdRows rows={thresholds} errors={errors} onChange={setThresholds} />
      </EditorFields>

      <EditorActions
        unshown={unshownErrors(errors, shown)}
        saveError={save.error}
        pending={save.isPending}
        label={scenario ? "Save scenario" : "Create scenario"}
        cancelHref={listUrl}
        canEdit={canEdit}
      />
    </form>
  );
}
