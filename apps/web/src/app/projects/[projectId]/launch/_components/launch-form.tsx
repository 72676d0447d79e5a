"use client";

import {
  checkScenarioCaps,
  describeScenarioSpec,
  estimateLoad,
  peakLoad,
  suggestedShards,
  ZScenarioSpec,
} from "@benchboard/core";
import { Button, Card, EmptyState, ErrorState, Skeleton } from "@benchboard/ui";
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
import { locationLabels } from "~/app/_components/location-field";
import { useCanEdit } from "~/app/_components/use-can-edit";
import { useTRPC } from "~/trpc/client";
import { errorMessage } from "~/trpc/errors";
import {
  FindCapacityFields,
  type FindCapacityText,
  NO_FIND_CAPACITY,
  readFindCapacity,
  searchable,
} from "./find-capacity-fields";
import { LaunchEstimate } from "./launch-estimate";
import { LaunchPicks } from "./launch-picks";
import { capacityEngineFor, effectiveSpec, launchCapErrors, planFor, shardsHintText } from "./launch-spec";
import { LoadOverrides, type OverrideText } from "./load-overrides";
import { RunOptions } from "./run-options";

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
  const [overrideText, setOverrideText] = useState<OverrideText>({ rate: "", concurrency: "", duration: "" });
  const { rate, concurrency, duration } = overrideText;
  const [findText, setFindText] = useState<FindCapacityText>(NO_FIND_CAPACITY);
  const [tags, setTags] = useState("");
  const [notes, setNotes] = useState("");
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  // What one worker sends on time with the chosen scenario's engine (open models only).
  const capacityEngine = capacityEngineFor(scenarios.data, scenarioId);
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
  const findCapacity = searchable(parsedSpec.success ? parsedSpec.data : null)
    ? readFindCapacity(findText, overrideErrors)
    : null;
  const effective = effectiveSpec(parsedSpec.success ? parsedSpec.data : null, overrides, overrideErrors, findCapacity);
  const spec = effective ? ({ success: true, data: effective } as const) : ({ success: false } as const);
  const load = spec.success ? estimateLoad(spec.data) : null;
  const peak = spec.success ? peakLoad(spec.data) : null;
  const violations = spec.success && caps.data ? checkScenarioCaps(spec.data, caps.data.caps) : [];
  const capErrors = launchCapErrors(violations, overrides, findCapacity);
  const capError = capErrors.scenarioId;
  const shardPlan = spec.success ? planFor(spec.data, shardCount) : null;
  const errors = mergeErrors({ ...overrideErrors, ...capErrors, ...clientErrors }, launch.error);
  const scenarioError = errors.scenarioId ?? capError;
  const openRate =
    spec.success && (spec.data.engine === "http-open" || spec.data.engine === "llm") ? spec.data.rate : null;
  const capacity = capacityQuery.data ?? null;
  const neededShards = capacity && openRate !== null ? suggestedShards(openRate, capacity) : 1;
  const shardsHint = shardsHintText(shardPlan, shardCount, capacity, openRate, neededShards);
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
      ...(findCapacity ? { findCapacity } : {}),
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
    path.startsWith("tags.") ||
    path.startsWith("findCapacity");

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
            <LaunchPicks
              errors={errors}
              targets={targets.data}
              effectiveTarget={effectiveTarget}
              setTargetId={setTargetId}
              chosenTarget={chosenTarget}
              configs={configs.data}
              configId={configId}
              setConfigId={setConfigId}
              scenarios={scenarios.data}
              effectiveScenario={effectiveScenario}
              onScenario={(id) => {
                setScenarioId(id);
                setClientErrors({});
                launch.reset();
              }}
              scenarioError={scenarioError}
              scenarioHint={spec.success ? describeScenarioSpec(spec.data) : undefined}
            />
            <LoadOverrides
              value={overrideText}
              onChange={setOverrideText}
              errors={errors}
              spec={parsedSpec.success ? parsedSpec.data : null}
            />
            <FindCapacityFields
              value={findText}
              onChange={setFindText}
              errors={errors}
              available={searchable(parsedSpec.success ? parsedSpec.data : null)}
            />
            <RunOptions
              errors={errors}
              tagError={tagError}
              shards={shards}
              setShards={setShards}
              shardsHint={shardsHint}
              location={location}
              setLocation={setLocation}
              repetitions={repetitions}
              setRepetitions={setRepetitions}
              tags={tags}
              setTags={setTags}
              notes={notes}
              setNotes={setNotes}
            />
          </div>
          <FormAlert>{errors.maxConcurrentRuns}</FormAlert>
          <FormAlert>{unshownErrors(errors, shown)}</FormAlert>
          <FormAlert>{generalError(launch.error)}</FormAlert>
          <Button type="submit" disabled={launch.isPending}>
            {launch.isPending ? "Launching…" : repCount > 1 ? `Launch ${repCount} runs` : "Launch run"}
          </Button>
        </form>
      </Card>

      <LaunchEstimate
        load={load}
        peak={peak}
        isChat={spec.success && spec.data.engine === "ws-chat"}
        repCount={repCount}
        shardCount={shardCount}
        shardPlan={shardPlan}
        config={config}
        caps={caps}
        violations={violations}
        errorMessage={errorMessage}
      />
    </div>
  );
}
