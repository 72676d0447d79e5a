"use client";

import { type TFindCapacity, type TScenarioSpec, ZFindCapacity } from "@benchboard/core";
import { Field, inputClass } from "@benchboard/ui";
import { numberOrEmpty } from "~/app/_components/form-kit";

/** The capacity-search settings as typed (text), before they are read. */
export interface FindCapacityText {
  on: boolean;
  p99Ms: string;
  errorRatePct: string;
  minRate: string;
  maxRate: string;
  plateauS: string;
}

export const NO_FIND_CAPACITY: FindCapacityText = {
  on: false,
  p99Ms: "",
  errorRatePct: "1",
  minRate: "",
  maxRate: "",
  plateauS: "10",
};

/** Which scenarios can be searched: the open model (and a stored search, whose settings it replaces). */
export function searchable(spec: TScenarioSpec | null): boolean {
  return spec?.engine === "http-open" || spec?.engine === "capacity-search";
}

/** The launch's `findCapacity`, or null when not asked for; problems recorded at `findCapacity.<field>`. */
export function readFindCapacity(text: FindCapacityText, errors: Record<string, string>): TFindCapacity | null {
  if (!text.on) return null;
  const num = (v: string) => {
    const x = numberOrEmpty(v);
    return x === undefined ? undefined : x;
  };
  const parsed = ZFindCapacity.safeParse({
    slo: { p99Ms: num(text.p99Ms), errorRatePct: num(text.errorRatePct) },
    minRate: num(text.minRate),
    maxRate: num(text.maxRate),
    plateauS: num(text.plateauS),
  });
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) errors[`findCapacity.${issue.path.join(".")}`] ??= issue.message;
  return null;
}

const FIELDS: { key: keyof Omit<FindCapacityText, "on">; path: string; label: string; hint?: string }[] = [
  { key: "p99Ms", path: "findCapacity.slo.p99Ms", label: "SLO: p99 at most (ms)" },
  { key: "errorRatePct", path: "findCapacity.slo.errorRatePct", label: "SLO: errors at most (%)" },
  { key: "minRate", path: "findCapacity.minRate", label: "From (req/s)", hint: "the first plateau" },
  { key: "maxRate", path: "findCapacity.maxRate", label: "Up to (req/s)" },
  { key: "plateauS", path: "findCapacity.plateauS", label: "Plateau (s)", hint: "measured, after 2 s of warm-up" },
];

/**
 * "Find capacity": run the open-model scenario as a capacity search for this launch — plateaus at
 * rates stepped ×2 from the lowest, then bisected, until the knee — judged against an SLO.
 */
export function FindCapacityFields({
  value,
  onChange,
  errors,
  available,
}: {
  value: FindCapacityText;
  onChange: (value: FindCapacityText) => void;
  errors: Record<string, string>;
  /** False for a scenario that is not an open model. */
  available: boolean;
}) {
  const set = (p: Partial<FindCapacityText>) => onChange({ ...value, ...p });
  return (
    <fieldset className="grid gap-4 rounded border border-slate-200 p-3 md:col-span-2 md:grid-cols-3">
      <legend className="px-1 text-sm font-medium text-slate-700">Capacity search (optional)</legend>
      <label className="flex items-start gap-2 text-sm text-slate-700 md:col-span-3">
        <input
          id="launch-find-capacity"
          type="checkbox"
          className="mt-0.5"
          checked={value.on && available}
          disabled={!available}
          onChange={(e) => set({ on: e.target.checked })}
        />
        <span>
          Find the highest rate that meets an SLO, in one run: plateaus stepped ×2 from the lowest rate, then bisected
          to within 5 %, stopping at the knee.
          {!available && " Needs an open-model (http-open) scenario."}
        </span>
      </label>
      {value.on &&
        available &&
        FIELDS.map((f) => (
          <Field key={f.key} label={f.label} htmlFor={`launch-capacity-${f.key}`} error={errors[f.path]} hint={f.hint}>
            <input
              id={`launch-capacity-${f.key}`}
              inputMode="decimal"
              className={inputClass}
              value={value[f.key]}
              onChange={(e) => set({ [f.key]: e.target.value })}
              aria-invalid={!!errors[f.path]}
            />
          </Field>
        ))}
      {value.on && available && errors.findCapacity && (
        <p className="text-sm text-rose-700 md:col-span-3">{errors.findCapacity}</p>
      )}
    </fieldset>
  );
}
