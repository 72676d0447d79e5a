import { ImportError } from "./import-error";
import { isObject, parseJsonDocument } from "./json";
import { type TNormalizedRun, ZNormalizedRun } from "./normalized-run";

/** Whether a JSON document claims to be a Benchboard run (it names a schema version). */
export function looksLikeNativeRun(doc: unknown): boolean {
  return isObject(doc) && "schemaVersion" in doc && "result" in doc;
}

/**
 * A run in Benchboard's own JSON (the normalized run, as `benchboard parse` prints it). Errors
 * name the line of malformed JSON, or the field path of the first invalid value.
 */
export function parseNativeRun(text: string): TNormalizedRun {
  const doc = parseJsonDocument("native", text);
  const parsed = ZNormalizedRun.safeParse(doc);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join(".") || "(document)";
  throw new ImportError("native", issue?.message ?? "not a Benchboard run", { field });
}
