import type { Command } from "commander";
import type { z } from "zod";
import { CliError } from "./exit-codes";
import type { CliIo } from "./io";

/** Where the server is and who is calling; the token is never printed. */
export interface ServerConfig {
  url: string;
  token: string;
  org?: string;
}

export interface ServerOptions {
  url?: string;
  token?: string;
  org?: string;
}

/** Options every command that talks to the server takes (each also read from the environment). */
export function addServerOptions(command: Command): Command {
  return command
    .option("--url <url>", "the Benchboard web app, e.g. https://bench.example.com (env BENCHBOARD_URL)")
    .option("--token <token>", "API token; prefer the env var BENCHBOARD_TOKEN, flags show in process lists")
    .option("--org <slug>", "refuse a token of any other organization (env BENCHBOARD_ORG)");
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
  // Accept the app's address with or without the API's path.
  const base = url.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
  return { url: base, token, ...(org ? { org } : {}) };
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

interface RequestOptions<T> {
  method: "GET" | "POST" | "PUT";
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Safe to send again after a network error or a 502/503/504 (reads, and uploads with an idempotency key). */
  retry?: boolean;
  schema: z.ZodType<T>;
  /** What the request was for, in error messages: "upload", "launch", … */
  what: string;
  /** Aborts the request (a long poll when the agent stops). */
  signal?: AbortSignal;
}

const RETRY_DELAYS_MS = [1_000, 2_000, 4_000];
const MAX_RETRY_AFTER_S = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

/** Calls REST /api/v1 with the bearer token, retrying what is safe to retry. */
export class ApiClient {
  constructor(readonly config: ServerConfig) {}

  async request<T>(options: RequestOptions<T>): Promise<{ status: number; body: T; raw: unknown }> {
    const url = `${this.config.url}/api/v1${options.path}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.config.token}`,
      accept: "application/json",
      ...(this.config.org ? { "benchboard-org": this.config.org } : {}),
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...options.headers,
    };
    const payload = options.body !== undefined ? JSON.stringify(options.body) : undefined;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(url, { method: options.method, headers, body: payload, signal: options.signal });
      } catch (err) {
        if (options.retry && attempt < RETRY_DELAYS_MS.length) {
          await sleep(RETRY_DELAYS_MS[attempt]!);
          continue;
        }
        const tries = attempt > 0 ? ` (${attempt + 1} attempts)` : "";
        throw new CliError(`${options.what}: cannot reach ${this.config.url}: ${networkReason(err)}${tries}`);
      }
      const text = await res.text();
      if (options.retry && attempt < RETRY_DELAYS_MS.length) {
        if (res.status === 502 || res.status === 503 || res.status === 504) {
          await sleep(RETRY_DELAYS_MS[attempt]!);
          continue;
        }
        if (res.status === 429) {
          const wait = Math.min(Number(res.headers.get("retry-after")) || 1, MAX_RETRY_AFTER_S);
          await sleep(wait * 1000);
          continue;
        }
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
        throw new ApiError(
          `${options.what} refused (HTTP ${res.status}): ${message}`,
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
