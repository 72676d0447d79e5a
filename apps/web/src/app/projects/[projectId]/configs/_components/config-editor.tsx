"use client";

import {
  CLOUD_PROVIDER_LABEL,
  type CloudProvider,
  describeInstanceSize,
  INSTANCE_PRESETS,
  KNOWN_KNOBS,
  type KnobType,
} from "@benchboard/core";
import { Button, Card, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  EditorActions,
  EditorFields,
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
import { CloneDialog } from "./clone-dialog";
import { type Config, fieldsFromState, type KnobRow, MIB_PER_GIB, stateFromConfig } from "./config-form";

export function ConfigEditor({ projectId, configId }: { projectId: string; configId?: string }) {
  const trpc = useTRPC();
  const existing = useQuery({ ...trpc.instanceConfig.byId.queryOptions({ id: configId ?? "" }), enabled: !!configId });
  if (configId && existing.isPending) return <Skeleton className="h-96" label="Loading instance config" />;
  if (configId && existing.isError) {
    return (
      <ErrorState
        title="Instance config not available"
        message={errorMessage(existing.error)}
        onRetry={() => existing.refetch()}
      />
    );
  }
  return <ConfigForm key={existing.data?.updatedAt.toString() ?? "new"} projectId={projectId} config={existing.data} />;
}

function ConfigForm({ projectId, config }: { projectId: string; config?: Config }) {
  const trpc = useTRPC();
  const [initial] = useState(() => stateFromConfig(config));
  const [name, setName] = useState(initial.name);
  const [instanceType, setInstanceType] = useState(initial.instanceType);
  const [vcpu, setVcpu] = useState(initial.vcpu);
  const [memoryGiB, setMemoryGiB] = useState(initial.memoryGiB);
  const [cpuLimit, setCpuLimit] = useState(initial.cpuLimit);
  const [replicas, setReplicas] = useState(initial.replicas);
  const [knobs, setKnobs] = useState<KnobRow[]>(initial.knobs);
  const canEdit = useCanEdit();
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  const [cloning, setCloning] = useState(false);
  const listUrl = `/projects/${projectId}/configs`;

  const onSaved = useSavedThenBack(trpc.instanceConfig.pathKey(), listUrl);
  const create = useMutation(trpc.instanceConfig.create.mutationOptions({ onSuccess: onSaved }));
  const update = useMutation(trpc.instanceConfig.update.mutationOptions({ onSuccess: onSaved }));
  const save = config ? update : create;
  const serverErrors = mergeErrors({}, save.error);
  // The server names a bad knob by its name (knobs.<name>); the form shows it at that row.
  const knobRowError = (row: KnobRow, index: number) =>
    clientErrors[`knobs.${index}.value`] ?? clientErrors[`knobs.${index}.name`] ?? serverErrors[`knobs.${row.name}`];
  const errors = { ...serverErrors, ...clientErrors };
  if (serverErrors.memoryMb && !errors.memoryGiB) errors.memoryGiB = serverErrors.memoryMb;

  const applyPreset = (type: string) => {
    const preset = INSTANCE_PRESETS.find((p) => p.instanceType === type);
    if (!preset) return;
    setInstanceType(preset.instanceType);
    setVcpu(String(preset.vcpu));
    setMemoryGiB(String(preset.memoryMb / MIB_PER_GIB));
    if (!name.trim()) setName(preset.instanceType);
  };

  const submit = () => {
    const found: Record<string, string> = {};
    const fields = fieldsFromState({ name, instanceType, vcpu, memoryGiB, cpuLimit, replicas, knobs }, found);
    setClientErrors(found);
    if (!fields) return;
    if (config) update.mutate({ id: config.id, ...fields });
    else create.mutate({ projectId, ...fields });
  };

  const shown = (path: string) =>
    ["name", "instanceType", "vcpu", "memoryMb", "memoryGiB", "cpuLimit", "replicas"].includes(path) ||
    path.startsWith("knobs.");
  const providers = Object.keys(CLOUD_PROVIDER_LABEL) as CloudProvider[];

  return (
    <>
      <form
        aria-label={config ? "Edit instance config" : "New instance config"}
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
          <Card
            title={config ? `Edit instance config ${config.name}` : "New instance config"}
            actions={
              config &&
              canEdit && (
                <Button variant="secondary" onClick={() => setCloning(true)}>
                  Clone as variant
                </Button>
              )
            }
          >
            <div className="grid gap-4 md:grid-cols-2">
              <Field label="Config name" htmlFor="config-name" error={errors.name}>
                <input
                  id="config-name"
                  className={inputClass}
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                  aria-invalid={!!errors.name}
                  placeholder="t3.medium, pool 10k"
                />
              </Field>
              <Field label="Preset" htmlFor="config-preset" hint="Fills in the instance type, vCPU and memory">
                <select
                  id="config-preset"
                  className={inputClass}
                  value={INSTANCE_PRESETS.some((p) => p.instanceType === instanceType) ? instanceType : ""}
                  onChange={(e) => applyPreset(e.target.value)}
                >
                  <option value="">Choose a cloud instance type…</option>
                  {providers.map((provider) => (
                    <optgroup key={provider} label={CLOUD_PROVIDER_LABEL[provider]}>
                      {INSTANCE_PRESETS.filter((p) => p.provider === provider).map((p) => (
                        <option key={p.instanceType} value={p.instanceType}>
                          {p.instanceType} — {describeInstanceSize(p)}
                          {p.burstable ? " (burstable)" : ""}
                        </option>
                      ))}
                    </optgroup>
                  ))}
                </select>
              </Field>
              <Field label="Instance type" htmlFor="config-instance-type" error={errors.instanceType}>
                <input
                  id="config-instance-type"
                  className={`${inputClass} font-mono`}
                  value={instanceType}
                  onChange={(e) => setInstanceType(e.target.value)}
                  placeholder="t3.medium, bare metal, laptop…"
                />
              </Field>
              <div className="grid grid-cols-2 gap-4">
                <Field label="vCPU" htmlFor="config-vcpu" error={errors.vcpu}>
                  <input
                    id="config-vcpu"
                    inputMode="decimal"
                    className={inputClass}
                    value={vcpu}
                    onChange={(e) => setVcpu(e.target.value)}
                    aria-invalid={!!errors.vcpu}
                  />
                </Field>
                <Field label="Memory (GiB)" htmlFor="config-memory" error={errors.memoryGiB}>
                  <input
                    id="config-memory"
                    inputMode="decimal"
                    className={inputClass}
                    value={memoryGiB}
                    onChange={(e) => setMemoryGiB(e.target.value)}
                    aria-invalid={!!errors.memoryGiB}
                  />
                </Field>
              </div>
              <Field
                label="CPU limit (cores)"
                htmlFor="config-cpu-limit"
                error={errors.cpuLimit}
                hint="A container limit such as 0.5; empty for none"
              >
                <input
                  id="config-cpu-limit"
                  inputMode="decimal"
                  className={inputClass}
                  value={cpuLimit}
                  onChange={(e) => setCpuLimit(e.target.value)}
                  aria-invalid={!!errors.cpuLimit}
                />
              </Field>
              <Field label="Replicas" htmlFor="config-replicas" error={errors.replicas}>
                <input
                  id="config-replicas"
                  inputMode="numeric"
                  className={inputClass}
                  value={replicas}
                  onChange={(e) => setReplicas(e.target.value)}
                  aria-invalid={!!errors.replicas}
                />
              </Field>
            </div>
          </Card>

          <Card
            title="Service knobs"
            actions={
              <Button
                variant="secondary"
                onClick={() =>
                  setKnobs((rows) => [...rows, { key: nextRowKey(), name: "", type: "number", value: "" }])
                }
              >
                Add knob
              </Button>
            }
          >
            {knobs.length === 0 ? (
              <p className="text-sm text-slate-500">
                Settings of the service under test (e.g. <code>buffer_size</code>, <code>PUBLISH_WORKERS</code>). When
                the target has a config-apply URL, they are sent to it before each run.
              </p>
            ) : (
              <div className="space-y-2" role="list" aria-label="Knobs">
                <datalist id="known-knobs">
                  {KNOWN_KNOBS.map((k) => (
                    <option key={k.name} value={k.name}>
                      {k.description} ({k.service})
                    </option>
                  ))}
                </datalist>
                {knobs.map((row, i) => {
                  const n = i + 1;
                  const err = knobRowError(row, i);
                  const patch = (p: Partial<KnobRow>) =>
                    setKnobs((rows) => rows.map((r) => (r.key === row.key ? { ...r, ...p } : r)));
                  return (
                    <div
                      key={row.key}
                      role="listitem"
                      className="grid grid-cols-[1.2fr_0.7fr_1fr_auto] items-start gap-3"
                    >
                      <div>
                        <label htmlFor={`knob-${row.key}-name`} className="sr-only">
                          Knob {n} name
                        </label>
                        <input
                          id={`knob-${row.key}-name`}
                          list="known-knobs"
                          className={`${smallInputClass} font-mono`}
                          placeholder="buffer_size"
                          value={row.name}
                          aria-invalid={!!err}
                          onChange={(e) => {
                            const known = KNOWN_KNOBS.find((k) => k.name === e.target.value);
                            patch({ name: e.target.value, ...(known ? { type: known.type } : {}) });
                          }}
                        />
                      </div>
                      <div>
                        <label htmlFor={`knob-${row.key}-type`} className="sr-only">
                          Knob {n} type
                        </label>
                        <select
                          id={`knob-${row.key}-type`}
                          className={smallInputClass}
                          value={row.type}
                          onChange={(e) => patch({ type: e.target.value as KnobType })}
                        >
                          <option value="number">number</option>
                          <option value="string">string</option>
                          <option value="boolean">boolean</option>
                        </select>
                      </div>
                      <div>
                        <label htmlFor={`knob-${row.key}-value`} className="sr-only">
                          Knob {n} value
                        </label>
                        {row.type === "boolean" ? (
                          <select
                            id={`knob-${row.key}-value`}
                            className={smallInputClass}
                            value={row.value === "true" ? "true" : row.value === "false" ? "false" : ""}
                            onChange={(e) => patch({ value: e.target.value })}
                            aria-invalid={!!err}
                          >
                            <option value="">choose…</option>
                            <option value="true">true</option>
                            <option value="false">false</option>
                          </select>
                        ) : (
                          <input
                            id={`knob-${row.key}-value`}
                            className={`${smallInputClass} font-mono`}
                            value={row.value}
                            onChange={(e) => patch({ value: e.target.value })}
                            aria-invalid={!!err}
                            aria-describedby={err ? `knob-${row.key}-error` : undefined}
                          />
                        )}
                        <InlineError id={`knob-${row.key}-error`} message={err} />
                      </div>
                      <button
                        type="button"
                        className="py-1 text-sm text-rose-700 hover:underline"
                        aria-label={`Remove knob ${n}`}
                        onClick={() => setKnobs((rows) => rows.filter((r) => r.key !== row.key))}
                      >
                        Remove
                      </button>
                    </div>
                  );
                })}
              </div>
            )}
          </Card>
        </EditorFields>

        <EditorActions
          unshown={unshownErrors(errors, shown)}
          saveError={save.error}
          pending={save.isPending}
          label={config ? "Save config" : "Create config"}
          cancelHref={listUrl}
          canEdit={canEdit}
        />
      </form>
      {config && (
        <CloneDialog
          projectId={projectId}
          source={cloning ? { id: config.id, name: config.name } : null}
          onClose={() => setCloning(false)}
        />
      )}
    </>
  );
}
