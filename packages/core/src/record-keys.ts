import { z } from "zod";

/**
 * Keys no record may have: on a plain object they reach its prototype, and the API's serializer
 * refuses them on the way out, so one stored key would break every view of the project.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** A record key (metric, status, stage, series, knob or header name) that is not reserved. */
export const ZRecordKey = z
  .string()
  .refine((key) => !RESERVED_KEYS.has(key), { error: (issue) => `${String(issue.input)} is a reserved name` });

/**
 * The path of the first reserved key anywhere in a parsed JSON value, or null. JSON.parse keeps a
 * `__proto__` key as an own property, but schemas drop it silently; a boundary refuses it instead.
 */
export function findReservedKey(value: unknown, path: (string | number)[] = [], depth = 0): (string | number)[] | null {
  if (value === null || typeof value !== "object" || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findReservedKey(value[i], [...path, i], depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (RESERVED_KEYS.has(key)) return [...path, key];
    const found = findReservedKey((value as Record<string, unknown>)[key], [...path, key], depth + 1);
    if (found) return found;
  }
  return null;
}
