"use client";

import { Field, inputClass } from "@benchboard/ui";
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";
import { generalError } from "./values";

/**
 * A labelled text input with its message beside it: `aria-invalid` and `aria-describedby` follow
 * the error, so the field says what is wrong with it to every reader.
 */
export function TextField({
  id,
  label,
  error,
  hint,
  value,
  onValue,
  className,
  ...input
}: {
  id: string;
  label: string;
  error?: string;
  hint?: string;
  value: string;
  onValue: (value: string) => void;
  className?: string;
} & Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "value" | "onChange" | "className">) {
  return (
    <Field label={label} htmlFor={id} error={error} hint={hint}>
      <input
        id={id}
        className={`${inputClass}${className ? ` ${className}` : ""}`}
        value={value}
        onChange={(e) => onValue(e.target.value)}
        aria-invalid={!!error}
        aria-describedby={error ? `${id}-error` : undefined}
        {...input}
      />
    </Field>
  );
}

/** A labelled choice; `options` as value and label pairs, or `children` for groups. */
export function SelectField({
  id,
  label,
  error,
  hint,
  value,
  onValue,
  options,
  children,
  ...select
}: {
  id: string;
  label: string;
  error?: string;
  hint?: string;
  value: string;
  onValue: (value: string) => void;
  options?: readonly { value: string; label: string }[];
  children?: ReactNode;
} & Omit<SelectHTMLAttributes<HTMLSelectElement>, "id" | "value" | "onChange">) {
  return (
    <Field label={label} htmlFor={id} error={error} hint={hint}>
      <select
        id={id}
        className={inputClass}
        value={value}
        onChange={(e) => onValue(e.target.value)}
        aria-invalid={!!error}
        aria-describedby={error ? `${id}-error` : undefined}
        {...select}
      >
        {options?.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
        {children}
      </select>
    </Field>
  );
}

/** A failed request's message when it names no field (the fields show their own). */
export function RequestError({ error }: { error: unknown }) {
  const message = generalError(error);
  if (!message) return null;
  return (
    <p role="alert" className="text-sm text-rose-700">
      {message}
    </p>
  );
}

/** A group of checkboxes (events, endpoints) with a legend and the group's message. */
export function CheckboxGroup<V extends string>({
  id,
  legend,
  options,
  value,
  onValue,
  error,
  empty,
  className = "mt-1 grid gap-1 sm:grid-cols-2",
}: {
  id: string;
  legend: string;
  options: readonly { value: V; label: ReactNode }[];
  value: readonly V[];
  onValue: (value: V[]) => void;
  error?: string;
  empty?: ReactNode;
  className?: string;
}) {
  return (
    <fieldset aria-describedby={error ? `${id}-error` : undefined}>
      <legend className="text-sm font-medium text-slate-700">{legend}</legend>
      {options.length === 0 && empty ? (
        <p className="mt-1 text-sm text-slate-500">{empty}</p>
      ) : (
        <div className={className}>
          {options.map((o) => (
            <label key={o.value} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={value.includes(o.value)}
                onChange={(e) => onValue(e.target.checked ? [...value, o.value] : value.filter((v) => v !== o.value))}
              />
              {o.label}
            </label>
          ))}
        </div>
      )}
      {error && (
        <p id={`${id}-error`} role="alert" className="mt-1 text-sm text-rose-700">
          {error}
        </p>
      )}
    </fieldset>
  );
}
