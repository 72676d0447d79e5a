import { findReservedKey } from "../record-keys";
import { ImportError, type ImportErrorLocation } from "./import-error";

/** Deepest nesting of arrays and objects accepted in uploaded JSON. */
export const MAX_JSON_DEPTH = 64;

/**
 * Where JSON text first nests deeper than `max` arrays/objects (its 1-based line), or undefined.
 * A linear scan of the text, without parsing: recursive code later (validation, copying,
 * storing) overflows the stack on a document nested a hundred thousand levels deep.
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): { line: number } | undefined {
  let depth = 0;
  let inString = false;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return { line };
    } else if (c === 125 || c === 93) depth--;
  }
  return undefined;
}

/** An error about an HTTP request body, its message as the client sees it (`field: detail`). */
export function requestBodyError(message: string, location: ImportErrorLocation = {}): ImportError {
  const err = new ImportError("request body", message, location);
  err.message = message;
  return err;
}

/** How a caller turns a refused request body into its own error (a REST handler's 400). */
export type RequestBodyFailure = (message: string, location: ImportErrorLocation) => Error;

/**
 * A request body's JSON, refusing an empty body, one nested too deep, or text that is not JSON
 * (naming the line where it stops being JSON). Reserved keys are the caller's to check: see
 * `refuseReservedKey`.
 */
export function parseRequestJson(text: string, fail: RequestBodyFailure = requestBodyError): unknown {
  if (text.trim() === "") throw fail("the request body is empty", {});
  const deep = jsonTooDeep(text);
  if (deep) throw fail(`the request body nests deeper than ${MAX_JSON_DEPTH} levels (line ${deep.line})`, deep);
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const position = /at position (\d+)/.exec(message);
    const line = position ? text.slice(0, Number(position[1])).split("\n").length : undefined;
    throw fail(`the request body is not valid JSON${line ? ` (line ${line})` : ""}: ${message}`, { line });
  }
}

/** Schemas drop a `__proto__` key silently; a reserved key anywhere in a body is refused by name instead. */
export function refuseReservedKey(body: unknown, fail: RequestBodyFailure = requestBodyError): void {
  const reserved = findReservedKey(body);
  if (reserved) {
    const field = reserved.join(".");
    throw fail(`${field}: ${String(reserved.at(-1))} is a reserved name`, { field });
  }
}

/** Parses a JSON document, turning JSON.parse's position into a line and column. */
export function parseJsonDocument(format: string, text: string): unknown {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (source.trim() === "") throw new ImportError(format, "the input is empty");
  const deep = jsonTooDeep(source);
  if (deep) throw new ImportError(format, `nests deeper than ${MAX_JSON_DEPTH} levels`, deep);
  const start = source.search(/\S/);
  if (source[start] !== "{" && source[start] !== "[") {
    const line = source.slice(0, start).split("\n").length;
    const firstLine = source.slice(start).split("\n", 1)[0] ?? "";
    const shown = firstLine.length > 40 ? `${firstLine.slice(0, 40)}…` : firstLine;
    throw new ImportError(format, `not JSON: expected "{", got "${shown}"`, { line });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(source);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const position = /at position (\d+)/.exec(message);
    const truncated =
      /Unexpected end of JSON input/.test(message) ||
      (position !== null && Number(position[1]) >= source.trimEnd().length - 1);
    if (truncated) {
      throw new ImportError(format, "the JSON ends early (truncated file?)", {
        line: source.trimEnd().split("\n").length,
      });
    }
    if (position) {
      const { line, column } = lineAndColumn(source, Number(position[1]));
      throw new ImportError(format, `not valid JSON at column ${column}: ${message.replace(/ in JSON at.*$/, "")}`, {
        line,
      });
    }
    throw new ImportError(format, `not valid JSON: ${message}`);
  }
  // A reserved key anywhere would reach an object's prototype while read, or break every view
  // of the run once stored (the views' serializer refuses one at any depth).
  const reserved = findReservedKey(doc);
  if (reserved) {
    throw new ImportError(format, `${String(reserved.at(-1))} is a reserved name`, { field: reserved.join(".") });
  }
  return doc;
}

function lineAndColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position);
  const line = before.split("\n").length;
  const column = position - before.lastIndexOf("\n");
  return { line, column };
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `metrics.http_reqs`, `status_code_counts["200"]`: how a field is named in error messages. */
export function fieldPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return base === "" ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

/** Typed reads from parsed JSON that fail with an ImportError naming the field. */
export class JsonFields {
  constructor(readonly format: string) {}

  fail(field: string, detail: string): never {
    throw new ImportError(this.format, detail, { field });
  }

  object(value: unknown, field: string): JsonObject {
    if (!isObject(value)) this.fail(field, `expected an object, got ${describe(value)}`);
    return value;
  }

  optObject(parent: JsonObject, key: string, base: string): JsonObject | undefined {
    const value = parent[key];
    if (value === undefined || value === null) return undefined;
    return this.object(value, fieldPath(base, key));
  }

  array(value: unknown, field: string): unknown[] {
    if (!Array.isArray(value)) this.fail(field, `expected an array, got ${describe(value)}`);
    return value;
  }

  number(parent: JsonObject, key: string, base: string): number {
    const value = this.optNumber(parent, key, base);
    if (value === undefined) this.fail(fieldPath(base, key), "is missing");
    return value;
  }

  optNumber(parent: JsonObject, key: string, base: string): number | undefined {
    const value = parent[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number" || !Number.isFinite(value)) {
      this.fail(fieldPath(base, key), `expected a number, got ${describe(value)}`);
    }
    return value;
  }

  count(parent: JsonObject, key: string, base: string): number {
    const value = this.number(parent, key, base);
    if (!Number.isInteger(value) || value < 0) this.fail(fieldPath(base, key), `expected a count, got ${value}`);
    return value;
  }

  optString(parent: JsonObject, key: string, base: string): string | undefined {
    const value = parent[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") this.fail(fieldPath(base, key), `expected a string, got ${describe(value)}`);
    return value;
  }

  optBoolean(parent: JsonObject, key: string, base: string): boolean | undefined {
    const value = parent[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "boolean") this.fail(fieldPath(base, key), `expected true or false, got ${describe(value)}`);
    return value;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "object") return "an object";
  return String(value);
}
