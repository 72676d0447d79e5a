import type { TRequestSpec } from "@benchboard/core";
import type { Dispatcher } from "undici";
import { Client, Pool } from "undici";
import { type PinnedAddress, pinnedLookup } from "../target-safety";
import { resolveTargetUrl } from "../url";

/**
 * The hot path of every HTTP engine: `Pool.dispatch` with a small handler object instead of
 * `pool.request()`, which builds a Readable stream and promises per request (measured ~40% more
 * CPU per request here). The handler keeps only what the recorder needs: status, body size, the
 * Server-Timing header and, when a later step needs it, the body and headers.
 */
export interface CallOptions {
  /** Collect the body (for `assign`, or an LLM response); otherwise only its size is counted. */
  keepBody?: boolean;
  /** Keep the raw response headers (for `assign`'s `name.headers.x`). */
  keepHeaders?: boolean;
  /** Called for each body chunk as it arrives (streaming), with the time it arrived. */
  onChunk?: (chunk: Buffer, nowPerf: number) => void;
}

export type CallDone = (call: HttpCall, error: Error | null) => void;

export class HttpCall implements Dispatcher.DispatchHandler {
  status = 0;
  resBytes = 0;
  /** performance.now() when the request was handed to a socket. */
  sentAt = 0;
  /** performance.now() when an open model fired it (before any wait for a free connection). */
  firedAt = 0;
  serverTiming: string | null = null;
  rawHeaders: Buffer[] | null = null;
  chunks: Buffer[] | null;
  protected abortFn: ((err?: Error) => void) | null = null;
  private settled = false;

  constructor(
    /** performance.now() the request was due (open model) or started (closed model). */
    readonly startAt: number,
    private readonly done: CallDone,
    private readonly options: CallOptions | null = null,
    /** Engine-owned slot (user index, step, …) so one `done` function serves every call. */
    public tag: number = 0,
  ) {
    this.chunks = options?.keepBody ? [] : null;
  }

  /**
   * performance.now() after which the request is refused instead of sent: an open-model request
   * that waited in the client queue past its timeout has already failed from the user's view.
   */
  deadline = Number.POSITIVE_INFINITY;

  onConnect(abort: (err?: Error) => void): void {
    this.abortFn = abort;
    this.sentAt = performance.now();
    if (this.sentAt > this.deadline) abort(new CallTimeoutError("timed out waiting for a free connection"));
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true;
    this.status = statusCode;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i];
      if (name !== undefined && name.length === 13 && isServerTiming(name)) {
        const value = rawHeaders[i + 1]?.toString("latin1") ?? "";
        this.serverTiming = this.serverTiming === null ? value : `${this.serverTiming}, ${value}`;
      }
    }
    if (this.options?.keepHeaders) this.rawHeaders = rawHeaders;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.resBytes += chunk.length;
    if (this.chunks !== null) this.chunks.push(chunk);
    this.options?.onChunk?.(chunk, performance.now());
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    this.settled = true;
    this.done(this, null);
  }

  onError(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    // undici fails a client's queued requests in one synchronous loop and then asserts the queue
    // is empty; a caller that dispatches its next request from this callback would refill it
    // mid-loop and crash the process. Reporting the error a microtask later avoids that.
    queueMicrotask(() => this.done(this, err));
  }

  abort(err: Error): void {
    if (this.abortFn) this.abortFn(err);
    else this.onError(err);
  }

  body(): Buffer {
    return this.chunks ? Buffer.concat(this.chunks) : Buffer.alloc(0);
  }

  headers(): Record<string, string> {
    const out: Record<string, string> = {};
    const raw = this.rawHeaders ?? [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toString("latin1").toLowerCase();
      const value = raw[i + 1]!.toString("latin1");
      out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
    }
    return out;
  }
}

/**
 * A closed-model call: it is sent as soon as it is started, so nothing reads its send time and
 * it has no queueing deadline. Skips the clock read `onConnect` makes for the open model.
 */
export class ClosedLoopCall extends HttpCall {
  override onConnect(abort: (err?: Error) => void): void {
    this.abortFn = abort;
  }
}

const SERVER_TIMING = Buffer.from("server-timing");

function isServerTiming(name: Buffer): boolean {
  for (let i = 0; i < 13; i++) {
    // ASCII lower-casing: header names are tokens, so OR-ing 0x20 is safe for letters and '-'.
    if ((name[i]! | 0x20) !== SERVER_TIMING[i]!) return false;
  }
  return true;
}

/** Raised for a request that ended because it ran past the engine's timeout. */
export class CallTimeoutError extends Error {
  readonly code = "UND_ERR_LOADGEN_TIMEOUT";
  constructor(message: string) {
    super(message);
    this.name = "CallTimeoutError";
  }
}

export interface PreparedRequest {
  path: string;
  method: Dispatcher.HttpMethod;
  headers: string[];
  body: string | Buffer | null;
  headersTimeout: number;
  bodyTimeout: number;
  /** Bytes of request body (what `req_bytes_avg` averages). */
  bodyBytes: number;
}

/**
 * Build dispatch options once; engines reuse the object for every call of the same request.
 * Headers go as a flat array, which undici copies without the object-key walk.
 */
export function prepareRequest(opts: {
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer | null;
  timeoutMs: number;
}): PreparedRequest {
  const headers: string[] = [];
  for (const [k, v] of Object.entries(opts.headers)) {
    if (k.toLowerCase() === "host" || k.toLowerCase() === "content-length") continue;
    headers.push(k, v);
  }
  // Encoded once: undici would otherwise run `Buffer.from` on a string body for every request.
  // An empty body stays as it was (undici sends none either way).
  const body = typeof opts.body === "string" && opts.body.length > 0 ? Buffer.from(opts.body) : (opts.body ?? null);
  return {
    path: opts.path,
    method: opts.method as Dispatcher.HttpMethod,
    headers,
    body,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    bodyBytes: body === null ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.length,
  };
}

/**
 * A scenario's one request (`spec.request`) against the run's target: the URL it resolves to and
 * the dispatch options, with the scenario's headers over the target's.
 */
export function prepareScenarioRequest(
  spec: { request: TRequestSpec; timeoutMs: number },
  ctx: { baseUrl: string; headers?: Record<string, string> },
): { url: URL; request: PreparedRequest } {
  const url = resolveTargetUrl(ctx.baseUrl, spec.request.path);
  const request = prepareRequest({
    path: url.pathname + url.search,
    method: spec.request.method,
    headers: { ...ctx.headers, ...spec.request.headers },
    body: spec.request.body ?? null,
    timeoutMs: spec.timeoutMs,
  });
  return { url, request };
}

function connectionOptions(timeoutMs: number, pin?: PinnedAddress) {
  return {
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // Connect to the address that was checked, never to what a second lookup would say.
    connect: { timeout: Math.min(timeoutMs, 10_000), ...(pin ? { lookup: pinnedLookup(pin) } : {}) },
  };
}

export function createPool(origin: string, connections: number, timeoutMs: number, pin?: PinnedAddress): Pool {
  return new Pool(origin, { connections, ...connectionOptions(timeoutMs, pin) });
}

/**
 * One connection. A closed-model user owns one, as in wrk: dispatching to it directly skips the
 * pool's search for a free connection on every request.
 */
export function createClient(origin: string, timeoutMs: number, pin?: PinnedAddress): Client {
  return new Client(origin, connectionOptions(timeoutMs, pin));
}

/** Promise form for plan steps and setup, where a promise per request costs nothing that matters. */
export function callOnce(
  pool: Dispatcher,
  request: PreparedRequest,
  startAt: number,
  options: CallOptions | null = null,
): Promise<{ call: HttpCall; error: Error | null }> {
  return new Promise((resolve) => {
    const call = new HttpCall(startAt, (c, error) => resolve({ call: c, error }), options);
    pool.dispatch(request, call);
  });
}

/** Classify a transport error into the error kinds of the result (`timeout`, `connect`, `transport`). */
export function errorKind(err: unknown): string {
  const code = String((err as { code?: unknown }).code ?? "");
  if (code.includes("TIMEOUT")) return "timeout";
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "UND_ERR_CONNECT") {
    return "connect";
  }
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET") return "transport";
  return "transport";
}

export function errorMessage(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return [e.code, e.message].filter(Boolean).join(": ") || String(err);
}
