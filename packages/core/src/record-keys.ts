import { z } from "zod";

/**
 * Keys no record may have: on a plain object they reach its prototype, and the API's serializer
 * refuses them on the way out, so one stored key would break every view of the project.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** A record key (metric, status, stage, series, knob or header name) that is not reserved. */
export const ZRecordKey = z
  .string()
  .refine((key) => !RESERVED_KEYS.has(key), { error: (issue) => `${String(issue.input)} is a reserved name` })
  // The same rule in the JSON Schema (the OpenAPI document), where a refinement does not reach.
  .meta({ not: { enum: [...RESERVED_KEYS] } });

/**
 * The path of the first reserved key anywhere in a parsed JSON value, or null. JSON.parse keeps a
 * `__proto__` key as an own property, but schemas drop it silently; a boundary refuses it instead.
 * One pass over the value; the path is built only for the key found.
 */
export function findReservedKey(value: unknown, path: (string | number)[] = [], depth = 0): (string | number)[] | null {
  const trail: (string | number)[] = [];
  const walk = (node: unknown, level: number): boolean => {
    if (node === null || typeof node !== "object" || level > 64) return false;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        if (walk(node[i], level + 1)) {
          trail.push(i);
          return true;
        }
      }
      return false;
    }
    for (const key of Object.keys(node)) {
      if (RESERVED_KEYS.has(key) || walk((node as Record<string, unknown>)[key], level + 1)) {
        trail.push(key);
        return true;
      }
    }
    return false;
  };
  return walk(value, depth) ? [...path, ...trail.reverse()] : null;
}
