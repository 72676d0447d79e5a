"use client";

import {
  applyLaunchOverrides,
  checkScenarioCaps,
  describeInstanceSize,
  describeScenarioSpec,
  estimateLoad,
  LaunchOverrideError,
  peakLoad,
  planShards,
  ShardPlanError,
  suggestedShards,
  type TLaunchOverrides,
  type TScenarioSpec,
  ZScenarioSpec,
} from "@benchboard/core";
import { Button, Card, EmptyState, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import {
  FormAlert,
  generalError,
  mergeErrors,
  numberOrEmpty,
  readNumbers,
  unshownErrors,
} from "~/app/_components/form-kit";
import { LocationField, locationLabels } from "~/app/_components/location-field";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import { VerificationBadge } from "../../targets/_components/target-list";

const n = (v: number) => v.toLocaleString("en-US", { maximumFractionDigits: 1 });

/** "45 s", "30 min", "1 h 30 min": durations people plan load tests in. */
function formatSeconds(total: number): string {
  if (total < 60) return `${n(total)} s`;
  const h = Math.floor(total / 3600);
  const min = Math.round((total % 3600) / 60);
  if (h === 0) return `${min} min`;
  return min ? `${h} h ${min} min` : `${h} h`;
}

export function LaunchForm({
  projectId,
  preselect,
}: {
  projectId: string;
  preselect: { targetId?: string; scenarioId?: string; configId?: string };
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const targets = useQuery(trpc.target.list.queryOptions({ projectId }));
  const scenarios = useQuery(trpc.scenario.list.queryOptions({ projectId }));
  const configs = useQuery(trpc.instanceConfig.list.queryOptions({ projectId }));
  const caps = useQuery(trpc.project.caps.queryOptions());
  const canEdit = useCanEdit();
  const me = useQuery(trpc.auth.me.queryOptions());
  const [targetId, setTargetId] = useState(preselect.targetId ?? "");
  const [scenarioId, setScenarioId] = useState(preselect.scenarioId ?? "");
  const [configId, setConfigId] = useState(preselect.configId ?? "");
  const [repetitions, setRepetitions] = useState("1");
  const [shards, setShards] = useState("1");
  // "" any install worker, "worker:<label>", or "agent:<label>" (the organization's agents).
  const [location, setLocation] = useState("");
  const { workerLabel, agentLabel } = locationLabels(location);
  const [rate, setRate] = useState("");
  const [concurrency, setConcurrency] = useState("");
  const [duration, setDuration] = useState("");
  const [tags, setTags] = useState("");
  const [notes, setNotes] = useState("");
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  // What one worker sends on time with the chosen scenario's engine (open models only).
  const specEngine = scenarios.data?.find((s) => s.id === (scenarioId || scenarios.data?.[0]?.id))?.spec as
    | { engine?: string }
    | undefined;
  const capacityEngine = specEngine?.engine === "http-open" || specEngine?.engine === "llm" ? specEngine.engine : null;
  const capacityQuery = useQuery({
    ...trpc.run.workerCapacity.queryOptions({ engine: capacityEngine ?? "http-open" }),
    enabled: capacityEngine !== null,
  });
  const launch = useMutation(
    trpc.run.launch.mutationOptions({
      onSuccess: async (run) => {
        await queryClient.invalidateQueries({ queryKey: trpc.run.pathKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.project.pathKey() });
        router.push(`/runs/${run.id}`);
      },
    }),
  );

  if (targets.isPending || scenarios.isPending || configs.isPending) {
    return <Skeleton className="h-80" label="Loading launch options" />;
  }
  const loadError = targets.error ?? scenarios.error ?? configs.error;
  if (loadError) return <ErrorState message={errorMessage(loadError)} onRetry={() => void targets.refetch()} />;
  if (!targets.data?.length || !scenarios.data?.length) {
    return (
      <EmptyState title="Nothing to launch yet">
        A run needs a{" "}
        <Link className="text-sky-700 hover:underline" href={`/projects/${projectId}/targets/new`}>
          target
        </Link>{" "}
        and a{" "}
        <Link className="text-sky-700 hover:underline" href={`/projects/${projectId}/scenarios/new`}>
          scenario
        </Link>
        .
      </EmptyState>
    );
  }

  if (me.data && !canEdit) {
    return (
      <EmptyState title="Your role cannot launch runs">
        Viewers see targets, scenarios and runs; ask an owner of the organization for the member role to launch.
      </EmptyState>
    );
  }

  const effectiveTarget = targetId || targets.data[0]!.id;
  const chosenTarget = targets.data.find((t) => t.id === effectiveTarget);
  const effectiveScenario = scenarioId || scenarios.data[0]!.id;
  const scenario = scenarios.data.find((s) => s.id === effectiveScenario);
  const config = configs.data?.find((c) => c.id === configId);
  const parsedSpec = ZScenarioSpec.safeParse(scenario?.spec);
  const reps = numberOrEmpty(repetitions);
  const repCount = reps !== undefined && Number.isInteger(reps) && reps > 0 ? reps : 1;
  const shardText = numberOrEmpty(shards);
  const shardCount = shardText !== undefined && Number.isInteger(shardText) && shardText > 0 ? shardText : 1;
  const overrideErrors: Record<string, string> = {};
  const overrides = readNumbers(
    {
      rate: { text: rate, path: "rate" },
      concurrency: { text: concurrency, path: "concurrency" },
      durationS: { text: duration, path: "durationS" },
    },
    overrideErrors,
  );
  const effective = effectiveSpec(parsedSpec.success ? parsedSpec.data : null, overrides, overrideErrors);
  const spec = effective ? ({ success: true, data: effective } as const) : ({ success: false } as const);
  const load = spec.success ? estimateLoad(spec.data) : null;
  const peak = spec.success ? peakLoad(spec.data) : null;
  const violations = spec.success && caps.data ? checkScenarioCaps(spec.data, caps.data.caps) : [];
  const overridden = (cap: string) =>
    (cap === "maxRate" && overrides.rate !== undefined) ||
    (cap === "maxConnections" && overrides.concurrency !== undefined) ||
    (cap === "maxDurationS" && overrides.durationS !== undefined);
  const capField = (cap: string) =>
    cap === "maxRate" ? "rate" : cap === "maxConnections" ? "concurrency" : "durationS";
  const capErrors: Record<string, string> = {};
  for (const v of violations) {
    if (overridden(v.cap)) capErrors[capField(v.cap)] ??= `this launch ${v.message}`;
    else capErrors.scenarioId ??= `this scenario ${v.message}`;
  }
  const capError = capErrors.scenarioId;
  const shardPlan = spec.success ? planFor(spec.data, shardCount) : null;
  const errors = mergeErrors({ ...overrideErrors, ...capErrors, ...clientErrors }, launch.error);
  const scenarioError = errors.scenarioId ?? capError;
  const engine = parsedSpec.success ? parsedSpec.data.engine : null;
  const openRate =
    spec.success && (spec.data.engine === "http-open" || spec.data.engine === "llm") ? spec.data.rate : null;
  const capacity = capacityQuery.data ?? null;
  const neededShards = capacity && openRate !== null ? suggestedShards(openRate, capacity) : 1;
  const tagError = Object.entries(errors).find(([k]) => k === "tags" || k.startsWith("tags."))?.[1];

  const submit = () => {
    const found: Record<string, string> = {};
    if (reps === undefined) found.repetitions = "required";
    else if (!Number.isInteger(reps)) found.repetitions = "must be a whole number";
    if (shardText === undefined) found.shards = "required";
    else if (!Number.isInteger(shardText) || shardText < 1) found.shards = "must be a whole number from 1";
    else if (shardPlan && "error" in shardPlan) found.shards = shardPlan.error;
    Object.assign(found, overrideErrors, capErrors);
    setClientErrors(found);
    if (Object.keys(found).length > 0) return;
    launch.mutate({
      targetId: effectiveTarget,
      scenarioId: effectiveScenario,
      instanceConfigId: configId || null,
      repetitions: reps,
      shards: shardCount,
      workerLabel: workerLabel || null,
      agentLabel: agentLabel || null,
      rate: overrides.rate,
      concurrency: overrides.concurrency,
      durationS: overrides.durationS,
      tags: tags
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
      notes: notes || undefined,
    });
  };
  const shown = (path: string) =>
    [
      "targetId",
      "scenarioId",
      "instanceConfigId",
      "repetitions",
      "notes",
      "maxConcurrentRuns",
      "shards",
      "workerLabel",
      "agentLabel",
      "rate",
      "concurrency",
      "durationS",
    ].includes(path) ||
    path === "tags" ||
    path.startsWith("tags.");

  return (
    <div className="grid gap-6 xl:grid-cols-3">
      <Card title="Launch a run" className="xl:col-span-2">
        <form
          aria-label="Launch a run"
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
          onChange={() => {
            // Messages describe what was submitted; once the user edits, they no longer apply.
            if (launch.isError) launch.reset();
            if (Object.keys(clientErrors).length > 0) setClientErrors({});
          }}
        >
          <div className="grid gap-4 md:grid-cols-2">
            <Field label="Target" htmlFor="launch-target" error={errors.targetId}>
              <select
                id="launch-target"
                className={inputClass}
                value={effectiveTarget}
                onChange={(e) => setTargetId(e.target.value)}
                aria-invalid={!!errors.targetId}
              >
                {targets.data.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name} — {t.baseUrl}
                  </option>
                ))}
              </select>
              {chosenTarget && (
                <div className="mt-1" role="status" data-target-verification>
                  <VerificationBadge verification={chosenTarget.verification} />
                </div>
              )}
            </Field>
            <Field label="Instance config" htmlFor="launch-config" error={errors.instanceConfigId}>
              <select
                id="launch-config"
                className={inputClass}
                value={configId}
                onChange={(e) => setConfigId(e.target.value)}
                aria-invalid={!!errors.instanceConfigId}
              >
                <option value="">None</option>
                {configs.data?.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            </Field>
            <div className="md:col-span-2">
              <Field
                label="Scenario"
                htmlFor="launch-scenario"
                error={scenarioError}
                hint={spec.success ? describeScenarioSpec(spec.data) : undefined}
              >
                <select
                  id="launch-scenario"
                  className={inputClass}
                  value={effectiveScenario}
                  onChange={(e) => {
                    setScenarioId(e.target.value);
                    setClientErrors({});
                    launch.reset();
                  }}
                  aria-invalid={!!scenarioError}
                >
                  {scenarios.data.map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.name}
                    </option>
                  ))}
                </select>
              </Field>
            </div>
            <fieldset className="grid gap-4 rounded border border-slate-200 p-3 md:col-span-2 md:grid-cols-3">
              <legend className="px-1 text-sm font-medium text-slate-700">Load for this launch (optional)</legend>
              <p className="text-xs text-slate-500 md:col-span-3">
                Leave empty to use the scenario's own. What you set is kept on the run's snapshot.
              </p>
              <Field
                label="Rate (req/s)"
                htmlFor="launch-rate"
                error={errors.rate}
                hint={engine === "http-open" || engine === "llm" ? undefined : "this engine has no rate"}
              >
                <input
                  id="launch-rate"
                  inputMode="decimal"
                  className={inputClass}
                  value={rate}
                  placeholder={specValue(parsedSpec.success ? parsedSpec.data : null, "rate")}
                  disabled={!(engine === "http-open" || engine === "llm")}
                  onChange={(e) => setRate(e.target.value)}
                  aria-invalid={!!errors.rate}
                />
              </Field>
              <Field
                label={engine === "http-closed" ? "Concurrency (users)" : "Concurrency (connections)"}
                htmlFor="launch-concurrency"
                error={errors.concurrency}
                hint={engine === "ws-chat" ? "set users and rooms in the scenario" : undefined}
              >
                <input
                  id="launch-concurrency"
                  inputMode="numeric"
                  className={inputClass}
                  value={concurrency}
                  placeholder={specValue(parsedSpec.success ? parsedSpec.data : null, "concurrency")}
                  disabled={engine === "ws-chat"}
                  onChange={(e) => setConcurrency(e.target.value)}
                  aria-invalid={!!errors.concurrency}
                />
              </Field>
              <Field
                label="Duration (s)"
                htmlFor="launch-duration"
                error={errors.durationS}
                hint={engine === "ws-chat" ? "users keep chatting until it ends" : undefined}
              >
                <input
                  id="launch-duration"
                  inputMode="decimal"
                  className={inputClass}
                  value={duration}
                  placeholder={specValue(parsedSpec.success ? parsedSpec.data : null, "durationS")}
                  onChange={(e) => setDuration(e.target.value)}
                  aria-invalid={!!errors.durationS}
                />
              </Field>
            </fieldset>
            <Field
              label="Shards"
              htmlFor="launch-shards"
              error={errors.shards}
              hint={
                shardPlan && "each" in shardPlan
                  ? `${
                      shardCount > 1
                        ? `Each of ${shardCount} workers sends ${shardPlan.each}`
                        : "Split the load across worker processes; results merge exactly"
                    }${
                      capacity && openRate !== null
                        ? `. One worker sends about ${capacity.ratePerWorker.toLocaleString("en-US")} req/s on time with this engine (${capacity.basis})${
                            shardCount < neededShards
                              ? `: ${openRate.toLocaleString("en-US")} req/s needs ${neededShards} shards, or the generator's own lateness will make the run invalid`
                              : ""
                          }`
                        : ""
                    }`
                  : undefined
              }
            >
              <input
                id="launch-shards"
                inputMode="numeric"
                className={inputClass}
                value={shards}
                onChange={(e) => setShards(e.target.value)}
                aria-invalid={!!errors.shards}
              />
            </Field>
            <LocationField
              id="launch-worker-label"
              value={location}
              onChange={setLocation}
              error={errors.workerLabel ?? errors.agentLabel}
            />
            <Field
              label="Repetitions"
              htmlFor="launch-repetitions"
              error={errors.repetitions}
              hint="Runs back to back, to see the noise between runs"
            >
              <input
                id="launch-repetitions"
                inputMode="numeric"
                className={inputClass}
                value={repetitions}
                onChange={(e) => setRepetitions(e.target.value)}
                aria-invalid={!!errors.repetitions}
              />
            </Field>
            <Field label="Tags" htmlFor="launch-tags" error={tagError} hint="Comma separated, e.g. baseline, pool-10k">
              <input
                id="launch-tags"
                className={inputClass}
                value={tags}
                onChange={(e) => setTags(e.target.value)}
                aria-invalid={!!tagError}
              />
            </Field>
            <div className="md:col-span-2">
              <Field label="Notes (optional)" htmlFor="launch-notes" error={errors.notes}>
                <textarea
                  id="launch-notes"
                  rows={2}
                  className={inputClass}
                  value={notes}
                  onChange={(e) => setNotes(e.target.value)}
                />
              </Field>
            </div>
          </div>
          <FormAlert>{errors.maxConcurrentRuns}</FormAlert>
          <FormAlert>{unshownErrors(errors, shown)}</FormAlert>
          <FormAlert>{generalError(launch.error)}</FormAlert>
          <Button type="submit" disabled={launch.isPending}>
            {launch.isPending ? "Launching…" : repCount > 1 ? `Launch ${repCount} runs` : "Launch run"}
          </Button>
        </form>
      </Card>

      <div className="space-y-6">
        <Card title="Estimated load">
          {load && peak ? (
            <dl className="space-y-1.5 text-sm" aria-label="Estimated load">
              <Row label={spec.success && spec.data.engine === "ws-chat" ? "Messages" : "Requests"}>
                {load.requests !== null ? n(load.requests * repCount) : "until the duration ends"}
                {repCount > 1 && load.requests !== null && (
                  <span className="text-slate-500">
                    {" "}
                    ({n(load.requests)} × {repCount})
                  </span>
                )}
              </Row>
              <Row label="Duration">
                {load.durationS !== null
                  ? `${formatSeconds(load.durationS * repCount)}${repCount > 1 ? " in total" : ""}`
                  : "until the requests are done"}
              </Row>
              <Row label="Peak rate">{peak.rate !== null ? `${n(peak.rate)} req/s` : "as fast as it answers"}</Row>
              <Row label="Connections">{n(peak.connections)}</Row>
              {shardCount > 1 && shardPlan && "each" in shardPlan && (
                <Row label="Per shard">
                  {shardPlan.each} × {shardCount}
                </Row>
              )}
              {config && (
                <Row label="Runs on">
                  {[config.instanceType, describeInstanceSize(config)].filter(Boolean).join(" · ") || config.name}
                </Row>
              )}
            </dl>
          ) : (
            <p className="text-sm text-slate-500">The scenario's spec is not valid; edit it first.</p>
          )}
        </Card>
        <Card title="Organization caps">
          {caps.isPending ? (
            <Skeleton className="h-20" label="Loading caps" />
          ) : caps.isError ? (
            <ErrorState message={errorMessage(caps.error)} onRetry={() => caps.refetch()} />
          ) : (
            <dl className="space-y-1.5 text-sm" aria-label="Organization caps">
              <Row label="Max rate" bad={violations.some((v) => v.cap === "maxRate")}>
                {n(caps.data.caps.maxRate)} req/s
              </Row>
              <Row label="Max connections" bad={violations.some((v) => v.cap === "maxConnections")}>
                {n(caps.data.caps.maxConnections)}
              </Row>
              <Row label="Max duration" bad={violations.some((v) => v.cap === "maxDurationS")}>
                {formatSeconds(caps.data.caps.maxDurationS)}
              </Row>
              <Row label="Concurrent runs" bad={caps.data.activeRuns >= caps.data.caps.maxConcurrentRuns}>
                {caps.data.activeRuns} active of {caps.data.caps.maxConcurrentRuns}
              </Row>
            </dl>
          )}
        </Card>
      </div>
    </div>
  );
}

function Row({ label, bad, children }: { label: string; bad?: boolean; children: React.ReactNode }) {
  return (
    <div className="flex justify-between gap-4">
      <dt className="text-slate-600">{label}</dt>
      <dd className={`text-right font-medium tabular-nums ${bad ? "text-rose-700" : "text-slate-900"}`}>
        {children}
        {bad && <span className="sr-only"> (exceeded)</span>}
      </dd>
    </div>
  );
}

/** The spec this launch would run: the scenario's with the overrides applied (errors recorded). */
function effectiveSpec(
  spec: TScenarioSpec | null,
  overrides: Record<"rate" | "concurrency" | "durationS", number | undefined>,
  errors: Record<string, string>,
): TScenarioSpec | null {
  if (!spec) return null;
  const given: TLaunchOverrides = {};
  for (const key of ["rate", "concurrency", "durationS"] as const) {
    const v = overrides[key];
    if (v === undefined || errors[key]) continue;
    if (v <= 0) errors[key] = "must be above 0";
    else if (key === "concurrency" && !Number.isInteger(v)) errors[key] = "must be a whole number";
    else given[key] = v;
  }
  try {
    return applyLaunchOverrides(spec, given);
  } catch (err) {
    if (err instanceof LaunchOverrideError) errors[err.field] = err.message;
    return spec;
  }
}

/** What each shard sends, or why the scenario cannot split so. */
function planFor(spec: TScenarioSpec, count: number): { each: string } | { error: string } | null {
  if (count < 1) return null;
  try {
    const first = planShards(spec, count)[0];
    if (!first) return null;
    const load = peakLoad(first);
    const parts = [
      load.rate !== null ? `${n(load.rate)} req/s` : null,
      `${n(load.connections)} ${first.engine === "http-closed" || first.engine === "ws-chat" ? "users" : "connections"}`,
    ].filter(Boolean);
    return { each: parts.join(", ") };
  } catch (err) {
    if (err instanceof ShardPlanError) return { error: err.message };
    throw err;
  }
}

/** The scenario's own value of an overridable field, shown as the input's placeholder. */
function specValue(spec: TScenarioSpec | null, field: "rate" | "concurrency" | "durationS"): string {
  if (!spec) return "";
  let value: number | undefined;
  if (field === "rate") value = spec.engine === "http-open" || spec.engine === "llm" ? spec.rate : undefined;
  else if (field === "concurrency")
    value =
      spec.engine === "http-closed" ? spec.concurrency : spec.engine === "ws-chat" ? undefined : spec.maxConnections;
  else value = spec.durationS;
  return value === undefined ? "" : String(value);
}
