"use client";

import type { RouterOutputs } from "@benchboard/api";
import { Button, Card, Field, inputClass } from "@benchboard/ui";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

type Targets = RouterOutputs["target"]["list"];
type Scenarios = RouterOutputs["scenario"]["list"];

export function LaunchForm({ targets, scenarios }: { projectId: string; targets: Targets; scenarios: Scenarios }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [targetId, setTargetId] = useState("");
  const [scenarioId, setScenarioId] = useState("");
  const [tags, setTags] = useState("");
  const launch = useMutation(trpc.run.launch.mutationOptions({ onSuccess: (run) => router.push(`/runs/${run.id}`) }));
  const errors = fieldErrors(launch.error);
  const effectiveTarget = targetId || targets[0]?.id || "";
  const effectiveScenario = scenarioId || scenarios[0]?.id || "";
  return (
    <Card title="Launch a run" className="self-start">
      <form
        className="space-y-3"
        aria-label="Launch a run"
        onSubmit={(e) => {
          e.preventDefault();
          launch.mutate({
            targetId: effectiveTarget,
            scenarioId: effectiveScenario,
            tags: tags
              .split(",")
              .map((t) => t.trim())
              .filter(Boolean),
          });
        }}
      >
        <Field label="Target" htmlFor="launch-target" error={errors.targetId}>
          <select
            id="launch-target"
            className={inputClass}
            value={effectiveTarget}
            onChange={(e) => setTargetId(e.target.value)}
          >
            {targets.length === 0 && <option value="">No targets</option>}
            {targets.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Scenario" htmlFor="launch-scenario" error={errors.scenarioId}>
          <select
            id="launch-scenario"
            className={inputClass}
            value={effectiveScenario}
            onChange={(e) => setScenarioId(e.target.value)}
          >
            {scenarios.length === 0 && <option value="">No scenarios</option>}
            {scenarios.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Tags" htmlFor="launch-tags" hint="Comma separated">
          <input id="launch-tags" className={inputClass} value={tags} onChange={(e) => setTags(e.target.value)} />
        </Field>
        {launch.isError && (
          <p role="alert" className="text-sm text-rose-700">
            {errorMessage(launch.error)}
          </p>
        )}
        <Button type="submit" disabled={launch.isPending || !effectiveTarget || !effectiveScenario}>
          {launch.isPending ? "Launching…" : "Launch run"}
        </Button>
      </form>
    </Card>
  );
}
