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
import { Card, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { EditorActions, EditorFields, mergeErrors, unshownErrors, useSavedThenBack } from "~/app/_components/form-kit";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { DrillImport } from "./drill-import";
import { LoadSettings } from "./load-settings";
import { PlanSteps } from "./plan-steps";
import {
  capErrors,
  type FormState,
  NUMBER_FIELDS,
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
  // Changing the engine clears the last import's notice.
  const [drillResets, setDrillResets] = useState(0);
  const listUrl = `/projects/${projectId}/scenarios`;

  const onSaved = useSavedThenBack(trpc.scenario.pathKey(), listUrl);
  const create = useMutation(trpc.scenario.create.mutationOptions({ onSuccess: onSaved }));
  const update = useMutation(trpc.scenario.update.mutationOptions({ onSuccess: onSaved }));
  const save = scenario ? update : create;
  const errors = mergeErrors(clientErrors, save.error);

  const setEngine = (engine: TEngineKind) => {
    setClientErrors({});
    setDrillResets((n) => n + 1);
    setState(stateFromSpec(defaultScenarioSpec(engine, capsNow)));
  };
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
    path === "spec.slo" ||
    path.startsWith("spec.request") ||
    path.startsWith("spec.plan") ||
    path.startsWith("thresholds.");
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
        // The drill import keeps its own messages.
        if ((e.target as HTMLElement).id === "drill-yaml") return;
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

        <DrillImport
          key={drillResets}
          onImported={(result) => {
            setState(stateFromSpec(result.spec));
            if (!name.trim()) setName("imported drill plan");
          }}
        />

        <LoadSettings
          state={state}
          errors={errors}
          patch={patch}
          preview={preview.success && Object.keys(previewErrors).length === 0 ? preview.data : null}
        />

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
