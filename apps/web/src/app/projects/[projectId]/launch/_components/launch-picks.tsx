"use client";

import { Field, inputClass } from "@benchboard/ui";
import { VerificationBadge } from "../../targets/_components/target-list";

type Verification = Parameters<typeof VerificationBadge>[0]["verification"];

/** What the launch runs: the target, the instance config and the scenario. */
export function LaunchPicks({
  errors,
  targets,
  effectiveTarget,
  setTargetId,
  chosenTarget,
  configs,
  configId,
  setConfigId,
  scenarios,
  effectiveScenario,
  onScenario,
  scenarioError,
  scenarioHint,
}: {
  errors: Record<string, string>;
  targets: readonly { id: string; name: string; baseUrl: string }[];
  effectiveTarget: string;
  setTargetId: (id: string) => void;
  chosenTarget: { verification: Verification } | undefined;
  configs: readonly { id: string; name: string }[] | undefined;
  configId: string;
  setConfigId: (id: string) => void;
  scenarios: readonly { id: string; name: string }[];
  effectiveScenario: string;
  onScenario: (id: string) => void;
  scenarioError: string | undefined;
  scenarioHint: string | undefined;
}) {
  return (
    <>
      <Field label="Target" htmlFor="launch-target" error={errors.targetId}>
        <select
          id="launch-target"
          className={inputClass}
          value={effectiveTarget}
          onChange={(e) => setTargetId(e.target.value)}
          aria-invalid={!!errors.targetId}
        >
          {targets.map((t) => (
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
          {configs?.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </select>
      </Field>
      <div className="md:col-span-2">
        <Field label="Scenario" htmlFor="launch-scenario" error={scenarioError} hint={scenarioHint}>
          <select
            id="launch-scenario"
            className={inputClass}
            value={effectiveScenario}
            onChange={(e) => onScenario(e.target.value)}
            aria-invalid={!!scenarioError}
          >
            {scenarios.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </Field>
      </div>
    </>
  );
}
