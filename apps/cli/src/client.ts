import { type Command, InvalidArgumentError } from "commander";
import type { z } from "zod";
import { CliError } from "./exit-codes";
import type { CliIo } from "./io";

/** Where the server is and who is calling; the token is never printed. */
export interface ServerConfig {
  url: string;
  token: string;
  org?: string;
  /** How long a request keeps retrying connection errors, 502/503/504 and 429 (seconds). */
  retryForS?: number;
  /** Where the client says that it waits before retrying. */
  log?: (line: string) => void;
  /** The environment whose HTTP_PROXY / HTTPS_PROXY / NO_PROXY the requests honour. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface ServerOptions {
  url?: string;
  token?: string;
  org?: string;
  retryFor?: number;
}

/** Options every command that talks to the server takes (each also read from the environment). */
export function addServerOptions(command: Command): Command {
  return command
    .option("--url <url>", "the Benchboard web app, e.g. https://bench.example.com (env BENCHBOARD_URL)")
    .option("--token <token>", "API token; prefer the env var BENCHBOARD_TOKEN, flags show in process lists")
    .option("--org <slug>", "refuse a token of any other organization (env BENCHBOARD_ORG)")
    .option(
      "--retry-for <seconds>",
      `keep retrying when the server is unreachable or busy (connection errors, 502/503/504, 429) for this long (env BENCHBOARD_RETRY_FOR, default ${DEFAULT_RETRY_FOR_S}; 0 = never)`,
      retrySeconds,
    );
}

function retrySeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError("expected a number of seconds (0 or more).");
  return n;
}

export function serverConfig(options: ServerOptions, io: CliIo): ServerConfig {
  const url = (options.url ?? io.env.BENCHBOARD_URL ?? "").trim();
  const token = (options.token ?? io.env.BENCHBOARD_TOKEN ?? "").trim();
  const org = (options.org ?? io.env.BENCHBOARD_ORG ?? "").trim();
  if (!url) throw new CliError("no server: set BENCHBOARD_URL (or --url) to the Benchboard web app's address");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`BENCHBOARD_URL is not a URL: ${url}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new CliError(`BENCHBOARD_URL must be an http:// or https:// address, not ${parsed.protocol}`);
  }
  if (!token)
    throw new CliError("no API token: set BENCHBOARD_TOKEN (or --token); create one in Settings → API tokens");
  let retryForS = options.retryFor ?? DEFAULT_RETRY_FOR_S;
  const fromEnv = io.env.BENCHBOARD_RETRY_FOR?.trim();
  if (options.retryFor === undefined && fromEnv) {
    retryForS = Number(fromEnv);
    if (!Number.isFinite(retryForS) || retryForS < 0) {
      throw new CliError(`BENCHBOARD_RETRY_FOR must be a number of seconds (0 or more), not ${fromEnv}`);
    }
  }
  // Accept the app's address with or without the API's path.
  const base = url.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
  return { url: base, token, ...(org ? { org } : {}), retryForS, log: io.stderr, env: io.env };
}

/** A refusal from the server, with the field it named. */
export class ApiError extends CliError {
  constructor(
    message: string,
    readonly status: number,
    readonly field: string | undefined,
  ) {
    super(message);
  }
}

/** How a request rides out blips: how long to keep trying, and what may be sent again. */
export interface RetryPolicy {
  /** Keep retrying for this long in total (0: never retry). */
  forMs: number;
  /** First wait; each next one doubles, with jitter, up to `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface RequestOptions<T> {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Under /api/v1, e.g. `/runs/launch`. */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Safe to send again when the request may have reached the server (a reset connection, a
   * proxy's 502/504). Defaults to true for GET and PUT and for requests with an Idempotency-Key.
   * A refused connection, a 429 or a 503 is retried regardless: the server did nothing.
   */
  retry?: boolean;
  /** Overrides the client's retry policy for this request. */
  retryPolicy?: RetryPolicy;
  schema: z.ZodType<T>;
  /** What the request was for, in error messages and wait lines: "upload", "launch", … */
  what: string;
  /** Aborts the request (a long poll when the agent stops). */
  signal?: AbortSignal;
}

export const DEFAULT_RETRY_FOR_S = 120;
const BASE_DELAY_MS = 1_000;
const MAX_DELAY_MS = 15_000;
/** Network errors that mean the request never reached the server. */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), or null. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : null;
}

/** The n-th backoff (from 0): doubling from the base up to the cap, with "equal jitter" (half fixed, half random). */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs ?? MAX_DELAY_MS, (policy.baseDelayMs ?? BASE_DELAY_MS) * 2 ** attempt);
  return Math.round(step / 2 + random() * (step / 2));
}

export interface ApiClientOptions {
  retry?: RetryPolicy;
  /** Where the one line per wait goes (stderr). */
  log?: (line: string) => void;
}

/**
 * Calls REST /api/v1 with the bearer token. Connection errors, 502/503/504 and 429 are retried
 * with jittered backoff (a Retry-After is honoured) until the retry budget is spent, printing
 * one line per wait; what may have reached the server is resent only when that is safe.
 */
export class ApiClient {
  readonly retry: RetryPolicy;
  private readonly log: (line: string) => void;
  private fetcher: Promise<typeof globalThis.fetch> | null = null;

  constructor(
    readonly config: ServerConfig,
    options: ApiClientOptions = {},
  ) {
    this.retry = options.retry ?? { forMs: (config.retryForS ?? DEFAULT_RETRY_FOR_S) * 1000 };
    this.log = options.log ?? config.log ?? (() => {});
  }

  /**
   * The proxy requests go through (its address without credentials), or null. Lowercase names
   * win over uppercase ones, as curl reads them; NO_PROXY hosts are reached directly.
   */
  proxy(): string | null {
    const env = this.config.env ?? {};
    const named = (name: string) => (env[name.toLowerCase()] ?? env[name])?.trim() || null;
    const server = new URL(this.config.url);
    const url = server.protocol === "https:" ? (named("HTTPS_PROXY") ?? named("HTTP_PROXY")) : named("HTTP_PROXY");
    if (!url) return null;
    const port = Number(server.port || (server.protocol === "https:" ? 443 : 80));
    const bypassed = (named("NO_PROXY") ?? "").split(/[,\s]/).some((entry) => {
      if (!entry) return false;
      if (entry === "*") return true;
      const m = /^(.+):(\d+)$/.exec(entry);
      const host = (m ? m[1]! : entry).replace(/^\*?\./, "").toLowerCase();
      if (m && Number(m[2]) !== port) return false;
      return server.hostname === host || server.hostname.endsWith(`.${host}`);
    });
    if (bypassed) return null;
    try {
      const u = new URL(url);
      return `${u.protocol}//${u.host}`;
    } catch {
      return url.replace(/\/\/[^@/]*@/, "//");
    }
  }

  /** Global fetch, or — when the environment names a proxy — one through undici's EnvHttpProxyAgent. */
  private fetchFn(): Promise<typeof globalThis.fetch> {
    this.fetcher ??= (async () => {
      const env = this.config.env ?? {};
      const names = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"];
      if (!names.some((n) => env[n]?.trim())) return globalThis.fetch;
      // Loaded only when a proxy is set: every other command starts as fast as before.
      const { proxiedFetch, proxySettings } = await import("@benchboard/loadgen/proxy");
      const settings = proxySettings(env);
      return settings ? proxiedFetch(settings) : globalThis.fetch;
    })();
    return this.fetcher;
  }

  async request<T>(options: RequestOptions<T>): Promise<{ status: number; body: T; raw: unknown }> {
    const url = `${this.config.url}/api/v1${options.path}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.config.token}`,
      accept: "application/json",
      ...(this.config.org ? { "benchboard-org": this.config.org } : {}),
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...options.headers,
    };
    const hasKey = Object.keys(headers).some((h) => h.toLowerCase() === "idempotency-key");
    const resendable = options.retry ?? (options.method === "GET" || options.method === "PUT" || hasKey);
    const policy = options.retryPolicy ?? this.retry;
    const payload = options.body !== undefined ? JSON.stringify(options.body) : undefined;
    const started = Date.now();
    let waits = 0;

    /** Wait before the next attempt, or return false when the budget does not allow it. */
    const waitBefore = async (reason: string, retryAfterS: number | null): Promise<boolean> => {
      const left = policy.forMs - (Date.now() - started);
      const delay =
        retryAfterS !== null ? retryAfterS * 1000 + Math.round(Math.random() * 250) : backoffMs(waits, policy);
      if (left <= 0 || delay > left) return false;
      waits++;
      this.log(
        `benchboard: ${options.what}: ${reason}; retrying in ${(delay / 1000).toFixed(1)} s (attempt ${waits + 1}, giving up ${Math.round(left / 1000)} s from now)\n`,
      );
      await sleep(delay);
      return true;
    };

    const fetch = await this.fetchFn();
    for (;;) {
      let res: Response;
      try {
        res = await fetch(url, { method: options.method, headers, body: payload, signal: options.signal });
      } catch (err) {
        const reason = networkReason(err);
        if ((resendable || NOT_SENT.has(reason)) && (await waitBefore(`cannot reach the server (${reason})`, null))) {
          continue;
        }
        const tries = waits > 0 ? ` (${waits + 1} attempts over ${Math.round((Date.now() - started) / 1000)} s)` : "";
        throw new CliError(`${options.what}: cannot reach ${this.config.url}: ${reason}${tries}`);
      }
      const text = await res.text();
      const transient =
        res.status === 429 || res.status === 503 || (resendable && (res.status === 502 || res.status === 504));
      if (transient) {
        const retryAfter = parseRetryAfter(res.headers.get("retry-after"));
        if (await waitBefore(`HTTP ${res.status}${serverMessage(text)}`, retryAfter)) continue;
      }
      let raw: unknown = null;
      try {
        // 204: nothing to say (a long poll that found no work).
        if (res.status !== 204 || text !== "") raw = JSON.parse(text);
      } catch {
        throw new CliError(
          `${options.what}: ${this.config.url} answered HTTP ${res.status} with something that is not Benchboard's API (is BENCHBOARD_URL right?)`,
        );
      }
      if (!res.ok) {
        const error = (raw as { error?: { message?: unknown; field?: unknown } }).error;
        const message = typeof error?.message === "string" ? error.message : `HTTP ${res.status}`;
        const tries = waits > 0 ? ` (after ${waits + 1} attempts)` : "";
        throw new ApiError(
          `${options.what} refused (HTTP ${res.status}): ${message}${tries}`,
          res.status,
          typeof error?.field === "string" ? error.field : undefined,
        );
      }
      const parsed = options.schema.safeParse(raw);
      if (!parsed.success) {
        throw new CliError(`${options.what}: unexpected answer from the server: ${parsed.error.issues[0]?.message}`);
      }
      return { status: res.status, body: parsed.data, raw };
    }
  }
}

/** ": <the server's message>" from an error body, shortened, or nothing. */
function serverMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    return typeof message === "string" ? `: ${message.slice(0, 160)}` : "";
  } catch {
    return "";
  }
}
