"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";

/** The look of every control in a list's filter bar. */
export const filterControlClass = "w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm shadow-sm";

/** One labelled control of a filter bar. */
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

/** Typed text that reaches `onChange` (the address) when typing pauses, not on every key. */
function useDebounced(value: string, onChange: (v: string) => void) {
  const [text, setText] = useState(value);
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => latest.current(text.trim()), 350);
    return () => clearTimeout(timer);
  }, [text, value]);
  return [text, setText] as const;
}

/** A free-text filter (a search box when `type` is "search"); empty means no filter. */
export function TextFilter({
  id,
  label,
  value,
  onChange,
  type = "text",
  placeholder,
  className,
}: {
  id: string;
  label: string;
  value: string | undefined;
  onChange: (v: string | undefined) => void;
  type?: "text" | "search";
  placeholder?: string;
  className?: string;
}) {
  const [text, setText] = useDebounced(value ?? "", (v) => onChange(v || undefined));
  return (
    <FilterField id={id} label={label} className={className}>
      <input
        id={id}
        type={type}
        className={filterControlClass}
        placeholder={placeholder}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
    </FilterField>
  );
}

export function DateFilter({
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
  return (
    <FilterField id={id} label={label}>
      <input
        id={id}
        type="date"
        className={filterControlClass}
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value || undefined)}
      />
    </FilterField>
  );
}
