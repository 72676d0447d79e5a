import { ImportError, parseRequestJson, type RequestBodyFailure, refuseReservedKey } from "@benchboard/core/importers";
import { ConflictError, isDatabaseUnavailable, NotFoundError, SecretKeyError } from "@benchboard/db";
import { TRPCError } from "@trpc/server";
import { ZodError, type z } from "zod";

/** What a REST handler reads from a request: a fetch `Request` satisfies it. */
export interface RestRequest {
  method: string;
  url: string;
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
  /** Aborted when the client goes away (a fetch `Request` has it). */
  signal?: AbortSignal;
}

export interface RestResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Every error response: a message naming the field (or the line of a text upload). */
export interface RestErrorBody {
  error: { message: string; field?: string; line?: number };
}

/** A refusal with its HTTP status; handlers throw it and `restErrorResponse` renders it. */
export class RestError extends Error {
  override readonly name = "RestError";
  constructor(
    readonly status: number,
    message: string,
    readonly location: { field?: string; line?: number } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function json(status: number, body: unknown, headers?: Record<string, string>): RestResponse {
  return headers ? { status, body, headers } : { status, body };
}

function errorBody(message: string, location: { field?: string; line?: number }): RestErrorBody {
  return {
    error: {
      message,
      ...(location.field !== undefined ? { field: location.field } : {}),
      ...(location.line !== undefined ? { line: location.line } : {}),
    },
  };
}

/** The first zod issue as `path: message`, with the path as the field. */
export function zodFailure(error: ZodError, prefix = ""): RestError {
  const issue = error.issues[0];
  const path = issue?.path.map(String).join(".") ?? "";
  const field = prefix && path ? `${prefix}.${path}` : prefix || path || undefined;
  const message = issue?.message ?? "invalid input";
  return new RestError(400, field ? `${field}: ${message}` : message, field ? { field } : {});
}

const TRPC_STATUS: Partial<Record<TRPCError["code"], number>> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
  SERVICE_UNAVAILABLE: 503,
};

/**
 * Any error from a handler as a JSON response. Refusals keep their message and location;
 * anything unexpected becomes a 500 whose message reveals nothing (it is logged without input).
 */
export function restErrorResponse(err: unknown, route: string): RestResponse {
  // PostgreSQL restarting: nothing was stored, and the same request will work in a moment.
  if (isDatabaseUnavailable(err)) {
    return json(503, errorBody("the database is unavailable; nothing was stored, try again shortly", {}), {
      "retry-after": "5",
    });
  }
  if (err instanceof RestError) return json(err.status, errorBody(err.message, err.location), err.headers);
  // The install's secret key is missing or wrong: nothing was stored, and the message names the setting.
  if (err instanceof SecretKeyError) return json(503, errorBody(err.message, {}));
  if (err instanceof ImportError) {
    return json(400, errorBody(err.message, { field: err.field, line: err.line }));
  }
  if (err instanceof NotFoundError) return json(404, errorBody(`${err.field}: ${err.message}`, { field: err.field }));
  if (err instanceof ConflictError) return json(409, errorBody(`${err.field}: ${err.message}`, { field: err.field }));
  if (err instanceof ZodError) return restErrorResponse(zodFailure(err), route);
  if (err instanceof TRPCError) {
    const cause = err.cause;
    if (cause instanceof ZodError) return restErrorResponse(zodFailure(cause), route);
    if (cause instanceof ImportError) return restErrorResponse(cause, route);
    const status = TRPC_STATUS[err.code];
    // A busy refusal (the parse pool's) says when to come back; other 503s (the database
    // restarting, the queue gone) say five seconds.
    const retryAfterS = (cause as { retryAfterS?: unknown } | undefined)?.retryAfterS;
    const busyFor = typeof retryAfterS === "number" && retryAfterS >= 1 ? String(Math.ceil(retryAfterS)) : undefined;
    if (status === 503) return json(503, errorBody(err.message, {}), { "retry-after": busyFor ?? "5" });
    if (status !== undefined) {
      const field = cause instanceof NotFoundError || cause instanceof ConflictError ? cause.field : undefined;
      return json(status, errorBody(err.message, { field }), busyFor ? { "retry-after": busyFor } : undefined);
    }
  }
  console.error(`[api/v1] ${route}: ${err instanceof Error ? err.message : String(err)}`);
  return json(500, errorBody("internal error; the server log has the details", {}));
}

/**
 * The request body as text, refusing more than `maxBytes` (413) before buffering it all: the
 * declared length is checked first, then the bytes actually read.
 */
export async function readBodyText(req: RestRequest, maxBytes: number): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  // PostgreSQL stores no NUL character in text or JSON: refuse it here, not with a 500 later.
  if (text.includes("\u0000") || /\\u0000/.test(text)) {
    throw new RestError(400, "the request body contains a NUL character (\\u0000), which cannot be stored");
  }
  return text;
}

function tooLarge(maxBytes: number): RestError {
  return new RestError(413, `the request body is larger than ${maxBytes} bytes (${formatMb(maxBytes)})`);
}

function formatMb(bytes: number): string {
  return `${+(bytes / 1_000_000).toFixed(2)} MB`;
}

/** A JSON body of at most `maxBytes`, checked against `schema`; a 400 names the first bad field. */
export async function readJsonInput<S extends z.ZodType>(
  req: RestRequest,
  schema: S,
  maxBytes: number,
): Promise<z.output<S>> {
  const parsed = schema.safeParse(parseJsonBody(await readBodyText(req, maxBytes)));
  if (!parsed.success) throw zodFailure(parsed.error);
  return parsed.data;
}

const badBody: RequestBodyFailure = (message, location) => new RestError(400, message, location);

/** A JSON request body, or a 400 naming the line where it stops being JSON (or the reserved key). */
export function parseJsonBody(text: string): unknown {
  const parsed = parseRequestJson(text, badBody);
  refuseReservedKey(parsed, badBody);
  return parsed;
}

/**
 * A REST handler whose errors, thrown anywhere in it, become the JSON response
 * `restErrorResponse` renders for `route`.
 */
export function restHandler<D, A extends unknown[]>(
  route: string,
  handle: (req: RestRequest, deps: D, ...args: A) => Promise<RestResponse>,
): (req: RestRequest, deps: D, ...args: A) => Promise<RestResponse> {
  return async (req, deps, ...args) => {
    try {
      return await handle(req, deps, ...args);
    } catch (err) {
      return restErrorResponse(err, route);
    }
  };
}

/** Render a handler's result for a fetch-style server (Next.js route handlers). */
export function toFetchResponse(result: RestResponse): Response {
  // A 204 carries no body at all (the fetch Response refuses one).
  return new Response(result.status === 204 ? null : JSON.stringify(result.body), {
    status: result.status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...result.headers },
  });
}
