"use client";

import { METRICS } from "@benchboard/core";
import { useEffect, useState } from "react";
import { FilterField, FilterSelect, filterControlClass } from "~/app/_components/list-kit";
import type { Filters } from "./run-filters";

/** Stored metrics a run can be sorted or filtered by (derived ones are computed per view, not stored). */
const SORTABLE = METRICS.filter((m) => !m.derived).map((m) => ({ value: m.key, label: m.label }));

const ORDERS = [
  { value: "desc", label: "Highest first" },
  { value: "asc", label: "Lowest first" },
];

/** With "By metric…": which metric, and which end first (by default its better end). */
export function MetricSortControls({ filters, onChange }: { filters: Filters; onChange: (patch: Filters) => void }) {
  return (
    <>
      <FilterSelect
        id="sort-metric"
        label="Sort metric"
        value={filters.metric}
        options={SORTABLE}
        empty="Choose a metric"
        unknownLabel={(key) => key}
        onChange={(metric) => onChange({ metric })}
      />
      <FilterSelect
        id="sort-order"
        label="Order"
        value={filters.order}
        options={ORDERS}
        empty="Better first"
        onChange={(order) => onChange({ order })}
      />
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
    <FilterField id={id} label={label}>
      <input
        id={id}
        inputMode="decimal"
        className={filterControlClass}
        value={text}
        aria-invalid={invalid || undefined}
        onChange={(e) => setText(e.target.value)}
      />
      {invalid && <span className="text-xs text-rose-700">a number</span>}
    </FilterField>
  );
}

/** Only runs whose metric lies within a range (either bound may be left empty). */
export function MetricRangeFilter({ filters, onChange }: { filters: Filters; onChange: (patch: Filters) => void }) {
  return (
    <>
      <FilterSelect
        id="filter-metric"
        label="Metric range"
        value={filters.mkey}
        options={SORTABLE}
        empty="Any metric"
        unknownLabel={(key) => key}
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
