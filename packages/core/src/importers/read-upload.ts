/**
 * An upload's content read into a normalized run with canonical histograms and bounded series:
 * the whole CPU-bound part of an upload, so that it can run off the request thread
 * (`parse-pool.ts`). Every format in `IMPORT_FORMATS` is read through `importRun`, so a format
 * added to the importers index is read here without further wiring.
 */
import { findReservedKey } from "../record-keys";
import { canonicalUploadResult } from "../result-input";
import { ImportError } from "./import-error";
import { detectFormat, IMPORT_FORMATS, type ImportFormat, importRun, resolveImportFormat } from "./index";
import { parseRequestJson, refuseReservedKey } from "./json";
import { looksLikeNativeRun, parseNativeRun } from "./native";
import type { TNormalizedRun } from "./normalized-run";

export interface UploadContent {
  /** `native`, `auto`, a format of `IMPORT_FORMATS` or one of its aliases. */
  format: string;
  content: string;
  /** bifrost-benchmarking: which provider's run to take when the file holds several. */
  provider?: string;
}

export interface ReadUpload {
  run: TNormalizedRun;
  format: "native" | ImportFormat;
}

/** The run in the content, in its format; histograms and series checked and made canonical. */
export function readUploadContent(input: UploadContent): ReadUpload {
  const read = readFormat(input);
  // Whatever the format, nothing stored may hold a reserved key at any depth.
  const reserved = findReservedKey(read.run);
  if (reserved) {
    throw new ImportError(read.format, `${String(reserved.at(-1))} is a reserved name`, { field: reserved.join(".") });
  }
  const result = canonicalUploadResult(read.format, read.run.result, runTimes(read.run));
  return { format: read.format, run: { ...read.run, result } };
}

function readFormat(input: UploadContent): ReadUpload {
  if (input.format === "native" || (input.format === "auto" && isNativeJson(input.content))) {
    return { run: parseNativeRun(input.content), format: "native" };
  }
  const format = input.format === "auto" ? detectFormat(input.content) : resolveImportFormat(input.format);
  if (!format) {
    throw new ImportError(
      "input",
      `could not tell the format from the content: expected Benchboard run JSON, or a load tool's output (${IMPORT_FORMATS.join(", ")}); name it with format`,
      { field: "format" },
    );
  }
  const options = input.provider !== undefined ? { provider: input.provider } : {};
  return { run: importRun(format, input.content, options), format };
}

function isNativeJson(text: string): boolean {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (!source.trimStart().startsWith("{")) return false;
  try {
    return looksLikeNativeRun(JSON.parse(source));
  } catch {
    return false;
  }
}

function toDate(iso: string | undefined): Date | null {
  return iso ? new Date(iso) : null;
}

/** Start and end from the data: both when given, else one from the other and the duration. */
export function runTimes(run: TNormalizedRun): { startedAt: Date | null; endedAt: Date | null } {
  let startedAt = toDate(run.startedAt);
  let endedAt = toDate(run.endedAt);
  const ms = run.durationS !== undefined ? run.durationS * 1000 : null;
  if (startedAt && !endedAt && ms !== null) endedAt = new Date(startedAt.getTime() + ms);
  if (endedAt && !startedAt && ms !== null) startedAt = new Date(endedAt.getTime() - ms);
  return { startedAt, endedAt };
}

/**
 * A JSON upload body split into its parts: an envelope's fields (with `content`, the tool's
 * output as text, as sent) and the native run it carries as JSON text, or, for a body that is a
 * native run itself, no envelope. Parsing a large body is CPU work, so it runs on the parse pool
 * like the reading of the run; the caller checks the envelope's small fields.
 */
export interface UploadBody {
  envelope: Record<string, unknown> | null;
  /** The envelope's `run` (an object), as JSON text; a `run` of another type stays in `envelope`. */
  run?: string;
}

export function splitUploadBody(text: string): UploadBody {
  const body = parseRequestJson(text);
  // A body that is the run itself is read (and checked) again as the upload's content.
  if (body === null || typeof body !== "object" || !("content" in body || "run" in body)) return { envelope: null };
  refuseReservedKey(body);
  const { run, ...envelope } = body as Record<string, unknown>;
  if (run === undefined) return { envelope };
  // Anything but an object stays in the envelope, where the caller refuses it by name.
  if (run === null || typeof run !== "object" || Array.isArray(run)) return { envelope: { ...envelope, run } };
  return { envelope, run: JSON.stringify(run) };
}
