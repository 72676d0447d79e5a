"use client";

import {
  checkScenarioCaps,
  describeInstanceSize,
  describeScenarioSpec,
  estimateLoad,
  peakLoad,
  ZScenarioSpec,
} from "@benchboard/core";
import { Button, Card, EmptyState, ErrorState, Field, inputClass, Skeleton } from "@benchboard/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { FormAlert, generalError, mergeErrors, numberOrEmpty, unshownErrors } from "~/app/_components/form-kit";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";

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
  const [tags, setTags] = useState("");
  const [notes, setNotes] = useState("");
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
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
  if (loadError) return <ErrorState message={loadError.message} onRetry={() => void targets.refetch()} />;
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
  const effectiveScenario = scenarioId || scenarios.data[0]!.id;
  const scenario = scenarios.data.find((s) => s.id === effectiveScenario);
  const config = configs.data?.find((c) => c.id === configId);
  const spec = ZScenarioSpec.safeParse(scenario?.spec);
  const reps = numberOrEmpty(repetitions);
  const repCount = reps !== undefined && Number.isInteger(reps) && reps > 0 ? reps : 1;
  const load = spec.success ? estimateLoad(spec.data) : null;
  const peak = spec.success ? peakLoad(spec.data) : null;
  const violations = spec.success && caps.data ? checkScenarioCaps(spec.data, caps.data.caps) : [];
  const capError = violations[0] ? `this scenario ${violations[0].message}` : undefined;
  const errors = mergeErrors(clientErrors, launch.error);
  const scenarioError = errors.scenarioId ?? capError;
  const tagError = Object.entries(errors).find(([k]) => k === "tags" || k.startsWith("tags."))?.[1];

  const submit = () => {
    const found: Record<string, string> = {};
    if (reps === undefined) found.repetitions = "required";
    else if (!Number.isInteger(reps)) found.repetitions = "must be a whole number";
    if (capError) found.scenarioId = capError;
    setClientErrors(found);
    if (Object.keys(found).length > 0) return;
    launch.mutate({
      targetId: effectiveTarget,
      scenarioId: effectiveScenario,
      instanceConfigId: configId || null,
      repetitions: reps,
      tags: tags
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
      notes: notes || undefined,
    });
  };
  const shown = (path: string) =>
    ["targetId", "scenarioId", "instanceConfigId", "repetitions", "notes", "maxConcurrentRuns"].includes(path) ||
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
            <ErrorState message={caps.error.message} onRetry={() => caps.refetch()} />
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
