"use client";

import { Button, Card } from "@benchboard/ui";
import { InlineError, nextRowKey, smallInputClass } from "~/app/_components/form-kit";
import { METHODS, type Method, type StepRow } from "./scenario-form";

/** The steps of a drill-style plan: each iteration runs them in order. */
export function PlanSteps({
  steps,
  errors,
  onChange,
}: {
  steps: StepRow[];
  errors: Record<string, string>;
  onChange: (steps: StepRow[]) => void;
}) {
  const patch = (k: number, p: Partial<StepRow>) => onChange(steps.map((s) => (s.key === k ? { ...s, ...p } : s)));
  return (
    <Card
      title="Plan steps"
      actions={
        <Button
          variant="secondary"
          onClick={() =>
            onChange([
              ...steps,
              {
                key: nextRowKey(),
                original: null,
                name: `step ${steps.length + 1}`,
                method: "GET",
                path: "/",
                body: "",
              },
            ])
          }
        >
          Add step
        </Button>
      }
    >
      {steps.length === 0 ? (
        <p className="text-sm text-slate-500">
          Without steps each iteration sends the one request above. With steps, each iteration runs them in order (the
          drill model).
        </p>
      ) : (
        <ol className="space-y-2" aria-label="Plan steps">
          {steps.map((s, i) => {
            const n = i + 1;
            const err = errors[`spec.plan.${i}.name`] ?? errors[`spec.plan.${i}.request.path`];
            const extras = s.original
              ? [
                  s.original.assign && `assign ${s.original.assign}`,
                  s.original.withItems && `${s.original.withItems.length} items`,
                  s.original.asserts && `${s.original.asserts.length} asserts`,
                  s.original.delayMs && `delay ${s.original.delayMs} ms`,
                ].filter(Boolean)
              : [];
            return (
              <li key={s.key} className="grid grid-cols-[1.2fr_0.6fr_1.6fr_auto] items-start gap-3">
                <div>
                  <label htmlFor={`step-${s.key}-name`} className="sr-only">
                    Step {n} name
                  </label>
                  <input
                    id={`step-${s.key}-name`}
                    className={smallInputClass}
                    value={s.name}
                    onChange={(e) => patch(s.key, { name: e.target.value })}
                    aria-invalid={!!err}
                  />
                  {extras.length > 0 && <div className="mt-0.5 text-xs text-slate-500">{extras.join(" · ")}</div>}
                  <InlineError id={`step-${s.key}-error`} message={err} />
                </div>
                <div>
                  <label htmlFor={`step-${s.key}-method`} className="sr-only">
                    Step {n} method
                  </label>
                  <select
                    id={`step-${s.key}-method`}
                    className={smallInputClass}
                    value={s.method}
                    onChange={(e) => patch(s.key, { method: e.target.value as Method })}
                  >
                    {METHODS.map((m) => (
                      <option key={m}>{m}</option>
                    ))}
                  </select>
                </div>
                <div>
                  <label htmlFor={`step-${s.key}-path`} className="sr-only">
                    Step {n} path
                  </label>
                  <input
                    id={`step-${s.key}-path`}
                    className={`${smallInputClass} font-mono`}
                    value={s.path}
                    onChange={(e) => patch(s.key, { path: e.target.value })}
                  />
                </div>
                <button
                  type="button"
                  className="py-1 text-sm text-rose-700 hover:underline"
                  aria-label={`Remove step ${n}`}
                  onClick={() => onChange(steps.filter((x) => x.key !== s.key))}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ol>
      )}
    </Card>
  );
}
