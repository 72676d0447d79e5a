"use client";

import type { TEngineKind, TScenarioSpec } from "@benchboard/core";
import { Field, inputClass } from "@benchboard/ui";
import { specValue } from "./launch-spec";

export interface OverrideText {
  rate: string;
  concurrency: string;
  duration: string;
}

/** Rate, concurrency and duration for this launch only; empty keeps the scenario's own. */
export function LoadOverrides({
  value,
  onChange,
  errors,
  spec,
}: {
  value: OverrideText;
  onChange: (value: OverrideText) => void;
  errors: Record<string, string>;
  /** The scenario's spec, for the placeholders and which fields apply. */
  spec: TScenarioSpec | null;
}) {
  const engine: TEngineKind | null = spec?.engine ?? null;
  const { rate, concurrency, duration } = value;
  const setRate = (v: string) => onChange({ ...value, rate: v });
  const setConcurrency = (v: string) => onChange({ ...value, concurrency: v });
  const setDuration = (v: string) => onChange({ ...value, duration: v });
  return (
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
          placeholder={specValue(spec, "rate")}
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
          placeholder={specValue(spec, "concurrency")}
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
          placeholder={specValue(spec, "durationS")}
          onChange={(e) => setDuration(e.target.value)}
          aria-invalid={!!errors.durationS}
        />
      </Field>
    </fieldset>
  );
}
