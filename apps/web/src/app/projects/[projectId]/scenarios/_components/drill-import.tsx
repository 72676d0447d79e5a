"use client";

import type { RouterOutputs } from "@benchboard/api";
import { Button, Field, inputClass } from "@benchboard/ui";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { FormAlert } from "~/app/_components/form-kit";
import { useTRPC } from "~/trpc/client";
import { errorMessage, fieldErrors } from "~/trpc/errors";

type Imported = RouterOutputs["scenario"]["importDrill"];

/**
 * A drill benchmark file turned into the form's closed-model settings; nothing is saved until the
 * scenario is. The import's warnings stay shown until another import.
 */
export function DrillImport({ onImported }: { onImported: (result: Imported) => void }) {
  const trpc = useTRPC();
  const [drillYaml, setDrillYaml] = useState("");
  const [imported, setImported] = useState<{ steps: number; warnings: string[]; base: string | null } | null>(null);
  const importDrill = useMutation(
    trpc.scenario.importDrill.mutationOptions({
      onSuccess: (result) => {
        const steps = result.spec.engine === "http-closed" ? (result.spec.plan?.length ?? 0) : 0;
        setImported({ steps, warnings: result.warnings, base: result.base });
        onImported(result);
      },
    }),
  );
  const drillErrors = fieldErrors(importDrill.error);
  return (
    <details className="rounded-lg border border-slate-200 bg-white shadow-sm">
      <summary className="cursor-pointer px-4 py-2.5 text-sm font-semibold text-slate-800">
        Import a drill plan…
      </summary>
      <div className="border-t border-slate-100 p-4">
        <div className="space-y-3">
          <Field
            label="Drill benchmark YAML"
            htmlFor="drill-yaml"
            error={drillErrors.yaml}
            hint="Replaces the settings above with an HTTP closed-model scenario; nothing is saved until you save"
          >
            <textarea
              id="drill-yaml"
              rows={5}
              className={`${inputClass} font-mono text-xs`}
              value={drillYaml}
              onChange={(e) => {
                setDrillYaml(e.target.value);
                // The message describes what was imported; once the text changes, it no longer applies.
                if (importDrill.isError) importDrill.reset();
              }}
              aria-invalid={!!drillErrors.yaml}
              placeholder={"concurrency: 8\niterations: 1000\nplan:\n  - name: home\n    request:\n      url: /"}
            />
          </Field>
          <Button
            variant="secondary"
            onClick={() => importDrill.mutate({ yaml: drillYaml })}
            disabled={importDrill.isPending || !drillYaml.trim()}
          >
            {importDrill.isPending ? "Importing…" : "Import plan"}
          </Button>
          {importDrill.isError && !drillErrors.yaml && <FormAlert>{errorMessage(importDrill.error)}</FormAlert>}
          {imported && (
            <div role="status" className="rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
              Imported {imported.steps} plan step{imported.steps === 1 ? "" : "s"}.
              {imported.base && ` The plan's base ${imported.base} is replaced by the run's target.`}
              {imported.warnings.length > 0 && (
                <ul className="mt-1 list-disc pl-5 text-amber-900">
                  {imported.warnings.map((w) => (
                    <li key={w}>{w}</li>
                  ))}
                </ul>
              )}
            </div>
          )}
        </div>
      </div>
    </details>
  );
}
