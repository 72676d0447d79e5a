import { errorMessage, fieldErrors } from "~/trpc/errors";

/**
 * Pure helpers every form shares: reading text inputs into values and keeping errors keyed by
 * input path ("spec.rate", "headers.0.value") so the server's and the form's land at one field.
 */

/**
 * Errors to show at fields: the form's own checks first (empty or non-numeric input never goes to
 * the server), then the server's.
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
  return Number(trimmed.replace(/[_,]/g, ""));
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

/** Server errors whose field the form does not show (so they still reach the user). */
export function unshownErrors(errors: Record<string, string>, shown: (path: string) => boolean): string | null {
  const rest = Object.entries(errors).filter(([path]) => !shown(path));
  return rest.length ? rest.map(([path, message]) => `${path}: ${message}`).join("; ") : null;
}

/** `Name: value` per line into a header map, recording a malformed line at `path`. */
export function parseHeaderLines(text: string, path: string, errors: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const at = line.indexOf(":");
    if (at <= 0) errors[path] = "one header per line: Name: value";
    else headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return headers;
}

export function headerLines(headers: Record<string, string> | undefined): string {
  return Object.entries(headers ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");
}

let lastKey = 0;
/** A key for a row the user adds or removes (stable across renders, unique in the page). */
export function nextRowKey(): number {
  lastKey += 1;
  return lastKey;
}
