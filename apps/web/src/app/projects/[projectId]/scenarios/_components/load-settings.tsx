"use client";

import type { TScenarioSpec } from "@benchboard/core";
import { Card, Field, inputClass } from "@benchboard/ui";
import { CapacitySearchPlan } from "./capacity-search-plan";
import { type FormState, METHODS, type Method, NUMBER_FIELDS, type NumField, REQUEST_ENGINES } from "./scenario-form";

/**
 * The scenario's load: the request (or the LLM call, or the chat's path and how it ends) and the
 * engine's numeric settings; a capacity search also shows its plan.
 */
export function LoadSettings({
  state,
  errors,
  patch,
  preview,
}: {
  state: FormState;
  errors: Record<string, string>;
  patch: (p: Partial<FormState>) => void;
  /** The spec the form stands for, when it is valid (for the capacity search's plan). */
  preview: TScenarioSpec | null;
}) {
  const setNumber = (k: string, v: string) => patch({ numbers: { ...state.numbers, [k]: v } });
  const numberInput = (f: NumField) => {
    const path = `spec.${f.key}`;
    const id = `scenario-${f.key.replace(/\./g, "-")}`;
    return (
      <Field key={f.key} label={f.label} htmlFor={id} error={errors[path]} hint={f.hint}>
        <input
          id={id}
          inputMode="decimal"
          className={inputClass}
          value={state.numbers[f.key] ?? ""}
          onChange={(e) => setNumber(f.key, e.target.value)}
          aria-invalid={!!errors[path]}
        />
      </Field>
    );
  };
  const isHttp = REQUEST_ENGINES.has(state.engine);
  const planMode = state.engine === "http-closed" && state.steps.length > 0;

  return (
    <Card title="Load settings">
      <div className="grid gap-4 md:grid-cols-3">
        {planMode && (
          <p className="text-sm text-slate-600 md:col-span-3">
            Each iteration runs the plan steps below, in order; the requests are defined there.
          </p>
        )}
        {isHttp && !planMode && (
          <>
            <Field label="Method" htmlFor="scenario-method" error={errors["spec.request.method"]}>
              <select
                id="scenario-method"
                className={inputClass}
                value={state.method}
                onChange={(e) => patch({ method: e.target.value as Method })}
              >
                {METHODS.map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </Field>
            <div className="md:col-span-2">
              <Field
                label="Path"
                htmlFor="scenario-path"
                error={errors["spec.request.path"]}
                hint="Relative to the target's base URL"
              >
                <input
                  id="scenario-path"
                  className={`${inputClass} font-mono`}
                  value={state.path}
                  onChange={(e) => patch({ path: e.target.value })}
                />
              </Field>
            </div>
          </>
        )}
        {(state.engine === "llm" || state.engine === "ws-chat") && (
          <Field label="Path" htmlFor="scenario-path" error={errors["spec.path"]}>
            <input
              id="scenario-path"
              className={`${inputClass} font-mono`}
              value={state.path}
              onChange={(e) => patch({ path: e.target.value })}
            />
          </Field>
        )}
        {state.engine === "ws-chat" && (
          <Field
            label="Ends"
            htmlFor="scenario-ends-after"
            error={errors["spec.endsAfter"]}
            hint={
              state.endsAfter === "duration"
                ? "Users keep sending, one message per interval, until the duration ends; messages per user is not used"
                : "Each user sends its messages, then the run ends (at the latest after the duration)"
            }
          >
            <select
              id="scenario-ends-after"
              className={inputClass}
              value={state.endsAfter}
              onChange={(e) => patch({ endsAfter: e.target.value === "duration" ? "duration" : "messages" })}
            >
              <option value="messages">After each user's messages</option>
              <option value="duration">When the duration ends</option>
            </select>
          </Field>
        )}
        {state.engine === "llm" && (
          <>
            <Field label="Model" htmlFor="scenario-model" error={errors["spec.model"]}>
              <input
                id="scenario-model"
                className={`${inputClass} font-mono`}
                value={state.model}
                onChange={(e) => patch({ model: e.target.value })}
                aria-invalid={!!errors["spec.model"]}
              />
            </Field>
            <label className="flex items-center gap-2 self-end pb-2 text-sm font-medium text-slate-700">
              <input type="checkbox" checked={state.stream} onChange={(e) => patch({ stream: e.target.checked })} />
              Streaming (time to first token, tokens/s)
            </label>
            <div className="md:col-span-3">
              <Field
                label="Prompt template"
                htmlFor="scenario-prompt"
                error={errors["spec.promptTemplate"]}
                hint="{{nonce}}, {{index}} and {{timestamp}} are filled in per request so no two prompts are equal"
              >
                <textarea
                  id="scenario-prompt"
                  rows={3}
                  className={`${inputClass} font-mono`}
                  value={state.promptTemplate}
                  onChange={(e) => patch({ promptTemplate: e.target.value })}
                  aria-invalid={!!errors["spec.promptTemplate"]}
                />
              </Field>
            </div>
          </>
        )}
        {state.engine === "capacity-search" && (
          <CapacitySearchPlan spec={preview?.engine === "capacity-search" ? preview : null} />
        )}
        {NUMBER_FIELDS[state.engine].map(numberInput)}
        {((isHttp && !planMode) || state.engine === "llm") && (
          <div className="md:col-span-3 grid gap-4 md:grid-cols-2">
            <Field
              label="Request headers (Name: value per line)"
              htmlFor="scenario-headers"
              error={errors["spec.request.headers"]}
              hint="Added to the target's headers; keep secrets on the target"
            >
              <textarea
                id="scenario-headers"
                rows={2}
                className={`${inputClass} font-mono`}
                value={state.headers}
                onChange={(e) => patch({ headers: e.target.value })}
              />
            </Field>
            {isHttp && (
              <Field label="Request body (optional)" htmlFor="scenario-body" error={errors["spec.request.body"]}>
                <textarea
                  id="scenario-body"
                  rows={2}
                  className={`${inputClass} font-mono`}
                  value={state.body}
                  onChange={(e) => patch({ body: e.target.value })}
                />
              </Field>
            )}
          </div>
        )}
      </div>
    </Card>
  );
}
