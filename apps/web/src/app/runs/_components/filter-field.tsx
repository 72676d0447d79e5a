"use client";

import type { ReactNode } from "react";

/** The look of every control in the runs list's filter bar. */
export const filterControlClass = "w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm shadow-sm";

/** One labelled control of the filter bar. */
export function FilterField({
  id,
  label,
  className,
  children,
}: {
  id: string;
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={`flex flex-col gap-1${className ? ` ${className}` : ""}`}>
      <label htmlFor={id} className="text-xs font-medium text-slate-600">
        {label}
      </label>
      {children}
    </div>
  );
}

/**
 * A filter bar choice: `empty` is the "no choice" option (none when null), and a value the
 * options do not hold (an old link, a list still loading) stays chosen under `unknownLabel`.
 */
export function FilterSelect({
  id,
  label,
  value,
  options,
  onChange,
  empty = "All",
  unknownLabel = () => "(selected)",
}: {
  id: string;
  label: string;
  value: string | undefined;
  options: readonly { value: string; label: string }[] | undefined;
  onChange: (value: string | undefined) => void;
  empty?: string | null;
  unknownLabel?: (value: string) => string;
}) {
  return (
    <FilterField id={id} label={label}>
      <select
        id={id}
        className={filterControlClass}
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value || undefined)}
      >
        {empty !== null && <option value="">{empty}</option>}
        {options?.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
        {value && !options?.some((o) => o.value === value) && <option value={value}>{unknownLabel(value)}</option>}
      </select>
    </FilterField>
  );
}
