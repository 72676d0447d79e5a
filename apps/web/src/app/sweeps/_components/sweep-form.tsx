"use client";

import { parseSweepValues } from "@benchboard/core";
import { Button, Field, inputClass } from "@benchboard/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { LocationField, locationLabels } from "~/app/_components/location-field";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

const METRICS = [
  ["rps", "Achieved rate"],
  ["throughput", "Throughput"],
  ["latency_p50", "Latency p50"],
  ["latency_p99", "Latency p99"],
  ["rps_per_vcpu", "Req/s per vCPU"],
  ["mem_peak_bytes", "Peak memory"],
  ["queue_depth_peak", "Peak queue depth"],
  ["failed", "Failed"],
] as const;

/**
 * Launch one scenario across values of a parameter. Each value becomes a run whose snapshots carry
 * it; the runs go back to back, and a knob reaches the target through its config-apply URL.
 */
export function SweepForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const projects = useQuery(trpc.project.list.queryOptions());
  const [projectId, setProjectId] = useState("");
  const project = projectId || projects.data?.[0]?.id || "";
  const targets = useQuery({ ...trpc.target.list.queryOptions({ projectId: project }), enabled: Boolean(project) });
  const scenarios = useQuery({ ...trpc.scenario.list.queryOptions({ projectId: project }), enabled: Boolean(project) });
  const configs = useQuery({
    ...trpc.instanceConfig.list.queryOptions({ projectId: project }),
    enabled: Boolean(project),
  });
  const [form, setForm] = useState({
    targetId: "",
    scenarioId: "",
    instanceConfigId: "",
    parameter: "",
    values: "",
    metric: "rps",
    repetitions: "1",
    name: "",
    location: "",
  });
  const targetId = form.targetId || targets.data?.[0]?.id || "";
  const scenarioId = form.scenarioId || scenarios.data?.[0]?.id || "";
  const parameters = useQuery({
    ...trpc.sweep.parameters.queryOptions({
      scenarioId: scenarioId || null,
      instanceConfigId: form.instanceConfigId || null,
    }),
    enabled: Boolean(scenarioId),
  });
  const launch = useMutation(trpc.sweep.create.mutationOptions({ onSuccess: (s) => router.push(`/sweeps/${s.id}`) }));
  const errors = fieldErrors(launch.error);
  const set = (patch: Partial<typeof form>) => setForm((f) => ({ ...f, ...patch }));
  const values = parseSweepValues(form.values);
  const target = targets.data?.find((t) => t.id === targetId);

  return (
    <form
      className="grid gap-3 md:grid-cols-2"
      aria-label="New sweep"
      onSubmit={(e) => {
        e.preventDefault();
        launch.mutate({
          name: form.name.trim() || `${form.parameter} sweep`,
          targetId,
          scenarioId,
          instanceConfigId: form.instanceConfigId || null,
          parameter: form.parameter,
          values,
          metric: form.metric,
          repetitions: Number(form.repetitions),
          ...locationLabels(form.location),
        });
      }}
    >
      <Field label="Project" htmlFor="sweep-project">
        <select
          id="sweep-project"
          className={inputClass}
          value={project}
          onChange={(e) => setProjectId(e.target.value)}
        >
          {projects.data?.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Sweep name" htmlFor="sweep-name" error={errors.name}>
        <input
          id="sweep-name"
          className={inputClass}
          value={form.name}
          onChange={(e) => set({ name: e.target.value })}
        />
      </Field>
      <Field
        label="Target"
        htmlFor="sweep-target"
        error={errors.targetId}
        hint={
          target
            ? target.configApplyUrl
              ? `knobs applied via ${target.configApplyUrl}`
              : "no config-apply URL: knobs cannot be swept"
            : undefined
        }
      >
        <select
          id="sweep-target"
          className={inputClass}
          value={targetId}
          onChange={(e) => set({ targetId: e.target.value })}
        >
          {targets.data?.length === 0 && <option value="">No targets</option>}
          {targets.data?.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Scenario" htmlFor="sweep-scenario" error={errors.scenarioId}>
        <select
          id="sweep-scenario"
          className={inputClass}
          value={scenarioId}
          onChange={(e) => set({ scenarioId: e.target.value })}
        >
          {scenarios.data?.length === 0 && <option value="">No scenarios</option>}
          {scenarios.data?.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Instance config (optional)" htmlFor="sweep-config" error={errors.instanceConfigId}>
        <select
          id="sweep-config"
          className={inputClass}
          value={form.instanceConfigId}
          onChange={(e) => set({ instanceConfigId: e.target.value })}
        >
          <option value="">None</option>
          {configs.data?.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="Parameter"
        htmlFor="sweep-parameter"
        error={errors.parameter}
        hint="knobs.<name>, config.cpuLimit, scenario.rate, …"
      >
        <input
          id="sweep-parameter"
          className={inputClass}
          list="sweep-parameter-options"
          value={form.parameter}
          onChange={(e) => set({ parameter: e.target.value })}
        />
        <datalist id="sweep-parameter-options">
          {parameters.data?.map((p) => (
            <option key={p.path} value={p.path}>
              {p.current === null ? p.path : `${p.path} (now ${String(p.current)})`}
            </option>
          ))}
        </datalist>
      </Field>
      <Field
        label="Values"
        htmlFor="sweep-values"
        error={
          errors.values ??
          Object.entries(errors).find(([k]) => k.startsWith("values."))?.[1] ??
          errors.maxConcurrentRuns
        }
        hint={values.length ? `${values.length} values: ${values.join(", ")}` : "Comma-separated, e.g. 16, 32, 64"}
      >
        <input
          id="sweep-values"
          className={inputClass}
          value={form.values}
          onChange={(e) => set({ values: e.target.value })}
        />
      </Field>
      <Field label="Chart metric" htmlFor="sweep-metric" error={errors.metric}>
        <select
          id="sweep-metric"
          className={inputClass}
          value={form.metric}
          onChange={(e) => set({ metric: e.target.value })}
        >
          {METRICS.map(([key, label]) => (
            <option key={key} value={key}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Repetitions per value" htmlFor="sweep-repetitions" error={errors.repetitions}>
        <input
          id="sweep-repetitions"
          type="number"
          min={1}
          max={10}
          className={inputClass}
          value={form.repetitions}
          onChange={(e) => set({ repetitions: e.target.value })}
        />
      </Field>
      <LocationField
        id="sweep-location"
        value={form.location}
        onChange={(location) => set({ location })}
        error={errors.workerLabel ?? errors.agentLabel}
      />
      <div className="flex items-end gap-3 md:col-span-2">
        <Button type="submit" disabled={launch.isPending || !targetId || !scenarioId}>
          {launch.isPending ? "Launching…" : "Launch sweep"}
        </Button>
        {launch.isError && Object.keys(errors).length === 0 && (
          <span className="text-sm text-rose-700">{errorMessage(launch.error)}</span>
        )}
      </div>
    </form>
  );
}
