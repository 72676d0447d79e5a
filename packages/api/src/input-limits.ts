import type { z } from "zod";

export interface JsonLimits {
  /** Longest text (or map key) anywhere in the value. */
  maxText: number;
  /** Most entries in any list or map. */
  maxEntries: number;
  /** Other entry limits for lists and maps under these keys. */
  entriesByKey?: Record<string, number>;
}

const count = (n: number) => n.toLocaleString("en-US");

/**
 * A refinement bounding every text, list and map inside free-form JSON (scenario specs, monitor
 * configs, uploaded knobs), naming the path of the first one over its limit. The shared schemas
 * bound only what the engines and monitors need to run, so without this a form could store
 * megabytes in a header or ten thousand plan steps.
 */
export function withinLimits(limits: JsonLimits) {
  return (value: unknown, ctx: z.RefinementCtx) => {
    const visit = (node: unknown, path: (string | number)[]): boolean => {
      if (typeof node === "string") {
        if (node.length <= limits.maxText) return true;
        ctx.addIssue({ code: "custom", path, message: `at most ${count(limits.maxText)} characters` });
        return false;
      }
      if (!node || typeof node !== "object") return true;
      const entries: [string | number, unknown][] = Array.isArray(node) ? [...node.entries()] : Object.entries(node);
      const key = path.at(-1);
      const max = (typeof key === "string" ? limits.entriesByKey?.[key] : undefined) ?? limits.maxEntries;
      if (entries.length > max) {
        ctx.addIssue({ code: "custom", path, message: `at most ${count(max)} entries` });
        return false;
      }
      for (const [k, v] of entries) {
        if (typeof k === "string" && k.length > limits.maxText) {
          ctx.addIssue({ code: "custom", path, message: `names are at most ${count(limits.maxText)} characters` });
          return false;
        }
        if (!visit(v, [...path, k])) return false;
      }
      return true;
    };
    visit(value, []);
  };
}
