"use client";

import { CLOUD_PROVIDER_LABEL, type CloudProvider, describeInstanceSize, INSTANCE_PRESETS } from "@benchboard/core";
import { Button, Card, Field, inputClass } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  EditorActions,
  EditorFields,
  EditorLoader,
  mergeErrors,
  SubmitForm,
  TextField,
  unshownErrors,
  useDirtyGuard,
  useSavedThenBack,
} from "~/app/_components/form-kit";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { CloneDialog } from "./clone-dialog";
import { type Config, fieldsFromState, formSnapshot, type KnobRow, MIB_PER_GIB, stateFromConfig } from "./config-form";
import { KnobRows } from "./knob-rows";

export function ConfigEditor({ projectId, configId }: { projectId: string; configId?: string }) {
  const trpc = useTRPC();
  const existing = useQuery({ ...trpc.instanceConfig.byId.queryOptions({ id: configId ?? "" }), enabled: !!configId });
  return (
    <EditorLoader id={configId} kind="Instance config" query={existing}>
      {(config, key) => <ConfigForm key={key} projectId={projectId} config={config} />}
    </EditorLoader>
  );
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
    clientErrors[`knobs.${index}.value`] ??
    clientErrors[`knobs.${index}.name`] ??
    clientErrors[`knobs.${row.name}`] ??
    serverErrors[`knobs.${row.name}`];
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

  const current = { name, instanceType, vcpu, memoryGiB, cpuLimit, replicas, knobs };
  // Leaving with unsaved changes asks first; once saved, the editor goes back to the list freely.
  useDirtyGuard(canEdit && !save.isSuccess && formSnapshot(current) !== formSnapshot(initial));

  const submit = () => {
    const found: Record<string, string> = {};
    const fields = fieldsFromState(current, found);
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
      <SubmitForm
        label={config ? "Edit instance config" : "New instance config"}
        className="max-w-4xl space-y-6"
        onSubmit={submit}
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
              <TextField
                id="config-name"
                label="Config name"
                value={name}
                onValue={setName}
                error={errors.name}
                placeholder="t3.medium, pool 10k"
              />
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
              <TextField
                id="config-instance-type"
                label="Instance type"
                className="font-mono"
                value={instanceType}
                onValue={setInstanceType}
                error={errors.instanceType}
                placeholder="t3.medium, bare metal, laptop…"
              />
              <div className="grid grid-cols-2 gap-4">
                <TextField
                  id="config-vcpu"
                  label="vCPU"
                  inputMode="decimal"
                  value={vcpu}
                  onValue={setVcpu}
                  error={errors.vcpu}
                />
                <TextField
                  id="config-memory"
                  label="Memory (GiB)"
                  inputMode="decimal"
                  value={memoryGiB}
                  onValue={setMemoryGiB}
                  error={errors.memoryGiB}
                />
              </div>
              <TextField
                id="config-cpu-limit"
                label="CPU limit (cores)"
                hint="A container limit such as 0.5; empty for none"
                inputMode="decimal"
                value={cpuLimit}
                onValue={setCpuLimit}
                error={errors.cpuLimit}
              />
              <TextField
                id="config-replicas"
                label="Replicas"
                inputMode="numeric"
                value={replicas}
                onValue={setReplicas}
                error={errors.replicas}
              />
            </div>
          </Card>

          <KnobRows knobs={knobs} setKnobs={setKnobs} rowError={knobRowError} />
        </EditorFields>

        <EditorActions
          unshown={unshownErrors(errors, shown)}
          saveError={save.error}
          pending={save.isPending}
          label={config ? "Save config" : "Create config"}
          cancelHref={listUrl}
          canEdit={canEdit}
        />
      </SubmitForm>
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
