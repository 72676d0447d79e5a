"use client";

import { KNOWN_KNOBS, type KnobType } from "@benchboard/core";
import { Button, Card } from "@benchboard/ui";
import { InlineError, nextRowKey, smallInputClass } from "~/app/_components/form-kit";
import type { KnobRow } from "./config-form";

/** The config's service knobs: one row per knob (name, type, value), known knobs suggested by name. */
export function KnobRows({
  knobs,
  setKnobs,
  rowError,
}: {
  knobs: KnobRow[];
  setKnobs: (update: (rows: KnobRow[]) => KnobRow[]) => void;
  rowError: (row: KnobRow, index: number) => string | undefined;
}) {
  return (
    <Card
      title="Service knobs"
      actions={
        <Button
          variant="secondary"
          onClick={() => setKnobs((rows) => [...rows, { key: nextRowKey(), name: "", type: "number", value: "" }])}
        >
          Add knob
        </Button>
      }
    >
      {knobs.length === 0 ? (
        <p className="text-sm text-slate-500">
          Settings of the service under test (e.g. <code>buffer_size</code>, <code>PUBLISH_WORKERS</code>). When the
          target has a config-apply URL, they are sent to it before each run.
        </p>
      ) : (
        <div className="space-y-2" role="list" aria-label="Knobs">
          <datalist id="known-knobs">
            {KNOWN_KNOBS.map((k) => (
              <option key={k.name} value={k.name}>
                {k.description} ({k.service})
              </option>
            ))}
          </datalist>
          {knobs.map((row, i) => (
            <KnobRowFields
              key={row.key}
              row={row}
              n={i + 1}
              error={rowError(row, i)}
              patch={(p) => setKnobs((rows) => rows.map((r) => (r.key === row.key ? { ...r, ...p } : r)))}
              remove={() => setKnobs((rows) => rows.filter((r) => r.key !== row.key))}
            />
          ))}
        </div>
      )}
    </Card>
  );
}

function KnobRowFields({
  row,
  n,
  error,
  patch,
  remove,
}: {
  row: KnobRow;
  n: number;
  error: string | undefined;
  patch: (p: Partial<KnobRow>) => void;
  remove: () => void;
}) {
  const id = `knob-${row.key}`;
  return (
    <div role="listitem" className="grid grid-cols-[1.2fr_0.7fr_1fr_auto] items-start gap-3">
      <div>
        <label htmlFor={`${id}-name`} className="sr-only">
          Knob {n} name
        </label>
        <input
          id={`${id}-name`}
          list="known-knobs"
          className={`${smallInputClass} font-mono`}
          placeholder="buffer_size"
          value={row.name}
          aria-invalid={!!error}
          onChange={(e) => {
            const known = KNOWN_KNOBS.find((k) => k.name === e.target.value);
            patch({ name: e.target.value, ...(known ? { type: known.type } : {}) });
          }}
        />
      </div>
      <div>
        <label htmlFor={`${id}-type`} className="sr-only">
          Knob {n} type
        </label>
        <select
          id={`${id}-type`}
          className={smallInputClass}
          value={row.type}
          onChange={(e) => patch({ type: e.target.value as KnobType })}
        >
          <option value="number">number</option>
          <option value="string">string</option>
          <option value="boolean">boolean</option>
        </select>
      </div>
      <div>
        <label htmlFor={`${id}-value`} className="sr-only">
          Knob {n} value
        </label>
        {row.type === "boolean" ? (
          <select
            id={`${id}-value`}
            className={smallInputClass}
            value={row.value === "true" ? "true" : row.value === "false" ? "false" : ""}
            onChange={(e) => patch({ value: e.target.value })}
            aria-invalid={!!error}
          >
            <option value="">choose…</option>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        ) : (
          <input
            id={`${id}-value`}
            className={`${smallInputClass} font-mono`}
            value={row.value}
            onChange={(e) => patch({ value: e.target.value })}
            aria-invalid={!!error}
            aria-describedby={error ? `${id}-error` : undefined}
          />
        )}
        <InlineError id={`${id}-error`} message={error} />
      </div>
      <button
        type="button"
        className="py-1 text-sm text-rose-700 hover:underline"
        aria-label={`Remove knob ${n}`}
        onClick={remove}
      >
        Remove
      </button>
    </div>
  );
}
