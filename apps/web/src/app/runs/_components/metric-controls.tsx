"use client";

import { METRICS } from "@benchboard/core";
import { useEffect, useState } from "react";
import type { Filters } from "./run-filters";

const fieldClass = "w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm shadow-sm";

/** Stored metrics a run can be sorted or filtered by (derived ones are computed per view, not stored). */
const SORTABLE = METRICS.filter((m) => !m.derived);

function MetricSelect({
  id,
  label,
  value,
  onChange,
  empty,
}: {
  id: string;
  label: string;
  value: string | undefined;
  onChange: (v: string | undefined) => void;
  empty: string;
}) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-slate-600">
        {label}
      </label>
      <select
        id={id}
        className={fieldClass}
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value || undefined)}
      >
        <option value="">{empty}</option>
        {SORTABLE.map((m) => (
          <option key={m.key} value={m.key}>
            {m.label}
          </option>
        ))}
        {value && !SORTABLE.some((m) => m.key === value) && <option value={value}>{value}</option>}
      </select>
    </div>
  );
}

/** With "By metric…": which metric, and which end first (by default its better end). */
export function MetricSortControls({ filters, onChange }: { filters: Filters; onChange: (patch: Filters) => void }) {
  return (
    <>
      <MetricSelect
        id="sort-metric"
        label="Sort metric"
        value={filters.metric}
        empty="Choose a metric"
        onChange={(metric) => onChange({ metric })}
      />
      <div className="flex flex-col gap-1">
        <label htmlFor="sort-order" className="text-xs font-medium text-slate-600">
          Order
        </label>
        <select
          id="sort-order"
          className={fieldClass}
          value={filters.order ?? ""}
          onChange={(e) => onChange({ order: e.target.value || undefined })}
        >
          <option value="">Better first</option>
          <option value="desc">Highest first</option>
          <option value="asc">Lowest first</option>
        </select>
      </div>
    </>
  );
}

/** A bound typed in a box, applied when it stops changing. */
function BoundInput({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string | undefined;
  onChange: (v: string | undefined) => void;
}) {
  const [text, setText] = useState(value ?? "");
  useEffect(() => setText(value ?? ""), [value]);
  useEffect(() => {
    if (text === (value ?? "")) return;
    const timer = setTimeout(() => onChange(text.trim() || undefined), 400);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  const invalid = text.trim() !== "" && !Number.isFinite(Number(text));
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-xs font-medium text-slate-600">
        {label}
      </label>
      <input
        id={id}
        inputMode="decimal"
        className={fieldClass}
        value={text}
        aria-invalid={invalid || undefined}
        onChange={(e) => setText(e.target.value)}
      />
      {invalid && <span className="text-xs text-rose-700">a number</span>}
    </div>
  );
}

/** Only runs whose metric lies within a range (either bound may be left empty). */
export function MetricRangeFilter({ filters, onChange }: { filters: Filters; onChange: (patch: Filters) => void }) {
  return (
    <>
      <MetricSelect
        id="filter-metric"
        label="Metric range"
        value={filters.mkey}
        empty="Any metric"
        onChange={(mkey) => onChange(mkey ? { mkey } : { mkey: undefined, mmin: undefined, mmax: undefined })}
      />
      {filters.mkey && (
        <>
          <BoundInput
            id="filter-metric-min"
            label="At least"
            value={filters.mmin}
            onChange={(mmin) => onChange({ mmin })}
          />
          <BoundInput
            id="filter-metric-max"
            label="At most"
            value={filters.mmax}
            onChange={(mmax) => onChange({ mmax })}
          />
        </>
      )}
    </>
  );
}
