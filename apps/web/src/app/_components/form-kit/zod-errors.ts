import type { z } from "zod";

/**
 * The messages a zod schema gives for a value, keyed by input path ("name", "headers.0.value"):
 * the form checks with the very schema the server validates with, so both say the same words at
 * the same field. Only the first message of each path is kept.
 */
export function zodFieldErrors(schema: z.ZodType, value: unknown): Record<string, string> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return {};
  const out: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const path = issue.path.map(String).join(".");
    if (!(path in out)) out[path] = issue.message;
  }
  return out;
}
