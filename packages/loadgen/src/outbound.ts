import { Agent, request } from "undici";
import { pinnedLookup, resolveUrl, type SafetyPolicy } from "./target-safety";

/**
 * Every request the product sends for a tenant that is not load — monitor samples, the instance
 * config PUT, "test connection", origin verification — goes through here:
 *
 * - the URL is checked and resolved once, and the connection goes to that address (no second
 *   lookup, so a name cannot be rebound in between);
 * - redirects are never followed (a 3xx is an answer like any other);
 * - time and bytes read are bounded;
 * - an error says what happened (status, size, refusal) and never carries the response body, so
 *   an internal service's answer cannot flow back to the tenant.
 */
export interface OutboundOptions {
  method?: "GET" | "PUT" | "POST";
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  /** Bytes of body read at most; more fails the request. */
  maxBytes?: number;
  /**
   * Whether the body of an answer with this status is read (default: always). A caller for whom
   * the status is the whole answer says no: the body is dropped unread, however big or slow.
   */
  readBody?: (status: number) => boolean;
  policy: SafetyPolicy;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, for the caller to parse; never to be echoed to a tenant. */
  body: Buffer;
  /** The address the request was sent to (the one checked). */
  address: string;
}

export class OutboundError extends Error {
  override name = "OutboundError";
  constructor(
    message: string,
    /** `refused` (address check), `unreachable`, `timeout`, `too-large`, `status`. */
    readonly kind: "refused" | "unreachable" | "timeout" | "too-large" | "status",
    readonly status?: number,
  ) {
    super(message);
  }
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

export async function outboundRequest(url: string, options: OutboundOptions): Promise<OutboundResponse> {
  const verdict = await resolveUrl(url, options.policy);
  if (!verdict.allowed) throw new OutboundError(`refused: ${verdict.reason}`, "refused");
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const agent = new Agent({
    connect: { lookup: pinnedLookup(verdict.pin), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 1,
    pipelining: 0,
  });
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await request(verdict.url, {
      dispatcher: agent,
      method: options.method ?? "GET",
      headers: options.headers,
      body: options.body,
      signal,
    });
    if (options.readBody && !options.readBody(res.statusCode)) {
      // Dropping the body aborts its reading; that abort is the intent, not an error to raise.
      res.body.on("error", () => {});
      res.body.destroy();
      return { status: res.statusCode, headers: res.headers, body: Buffer.alloc(0), address: verdict.pin.address };
    }
    const length = Number(res.headers["content-length"]);
    if (Number.isFinite(length) && length > maxBytes) {
      res.body.destroy();
      throw new OutboundError(`answer too large (${length} bytes; at most ${maxBytes} are read)`, "too-large");
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        res.body.destroy();
        throw new OutboundError(`answer too large (more than ${maxBytes} bytes)`, "too-large");
      }
      chunks.push(chunk as Buffer);
    }
    return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), address: verdict.pin.address };
  } catch (err) {
    if (err instanceof OutboundError) throw err;
    if (signal.aborted || /TIMEOUT/.test(String((err as { code?: string }).code))) {
      throw new OutboundError(`no answer within ${timeoutMs} ms`, "timeout");
    }
    const code = (err as { code?: string }).code ?? (err as Error).name;
    throw new OutboundError(`unreachable (${code})`, "unreachable");
  } finally {
    agent.close().catch(() => {});
  }
}

/** A status line for an answer that is not what the caller wanted: status and size, no body. */
export function describeStatus(res: OutboundResponse): string {
  const location = res.status >= 300 && res.status < 400 ? " (a redirect; redirects are not followed)" : "";
  return `HTTP ${res.status}${location}, ${res.body.length} bytes`;
}
