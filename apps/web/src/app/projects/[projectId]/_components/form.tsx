"use client";

import { Button } from "@benchboard/ui";
import type { QueryKey } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { errorMessage, fieldErrors } from "~/trpc/errors";
import { useRefreshKind } from "./use-refresh-kind";

/**
 * Errors to show at fields: the form's own checks first (empty or non-numeric input never goes to
 * the server), then the server's, keyed by the input path ("spec.rate", "headers.0.value").
 */
export function mergeErrors(client: Record<string, string>, serverError: unknown): Record<string, string> {
  return { ...fieldErrors(serverError), ...client };
}

/** The message of a failed request that names no field (no role, server down, …), else null. */
export function generalError(error: unknown): string | null {
  if (!error) return null;
  return Object.keys(fieldErrors(error)).length > 0 ? null : errorMessage(error);
}

/** A form's numeric text: undefined when empty, NaN when it is not a number. */
export function numberOrEmpty(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  return Number(trimmed.replace(/_/g, ""));
}

/**
 * Read numeric fields, recording "required" and "must be a number" at their paths. Returns the
 * values with undefined for empty optional fields.
 */
export function readNumbers<K extends string>(
  fields: Record<K, { text: string; path: string; required?: boolean }>,
  errors: Record<string, string>,
): Record<K, number | undefined> {
  const out = {} as Record<K, number | undefined>;
  for (const [key, f] of Object.entries(fields) as [K, { text: string; path: string; required?: boolean }][]) {
    const n = numberOrEmpty(f.text);
    if (n === undefined && f.required) errors[f.path] = "required";
    else if (n !== undefined && !Number.isFinite(n)) errors[f.path] = "must be a number";
    out[key] = n;
  }
  return out;
}

export const numText = (n: number | null | undefined) => (n === null || n === undefined ? "" : String(n));

/** A form-level message for errors that belong to no field shown. */
export function FormAlert({ children }: { children: ReactNode }) {
  if (!children) return null;
  return (
    <p role="alert" className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-800">
      {children}
    </p>
  );
}

/** Server errors whose field the form does not show (so they still reach the user). */
export function unshownErrors(errors: Record<string, string>, shown: (path: string) => boolean): string | null {
  const rest = Object.entries(errors).filter(([path]) => !shown(path));
  return rest.length ? rest.map(([path, message]) => `${path}: ${message}`).join("; ") : null;
}

export const smallInputClass =
  "w-full rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900 shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-200 aria-[invalid=true]:border-rose-400";

export function InlineError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="mt-0.5 text-xs font-medium text-rose-700">
      {message}
    </p>
  );
}

/**
 * The foot of an editor: errors that belong to no field shown, the failed save's own message,
 * then save and cancel.
 */
export function EditorActions({
  unshown,
  saveError,
  pending,
  label,
  cancelHref,
}: {
  unshown: string | null;
  saveError: unknown;
  pending: boolean;
  label: string;
  cancelHref: string;
}) {
  return (
    <>
      <FormAlert>{unshown}</FormAlert>
      <FormAlert>{generalError(saveError)}</FormAlert>
      <div className="flex items-center gap-3">
        <Button type="submit" disabled={pending}>
          {pending ? "Saving…" : label}
        </Button>
        <Link href={cancelHref} className="text-sm text-slate-600 hover:underline">
          Cancel
        </Link>
      </div>
    </>
  );
}

/**
 * What an editor does once saved: refresh the edited kind's queries and the project's (its
 * counts), then go back to the list.
 */
export function useSavedThenBack(kindKey: QueryKey, listUrl: string): () => Promise<void> {
  const refresh = useRefreshKind(kindKey);
  const router = useRouter();
  return async () => {
    await refresh();
    router.push(listUrl);
  };
}
