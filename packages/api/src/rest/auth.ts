import type { InstallSettings } from "@benchboard/core";
import { type ApiTokenScope, type Db, findOrganizationRef, verifyApiToken } from "@benchboard/db";
import type { QueueFor } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import type { NetworkDeps } from "../launch-safety";
import type { RateLimiter } from "../rate-limit";
import { createCaller } from "../root";
import type { Context } from "../trpc";
import { RestError, type RestRequest } from "./http";

export interface RestLimits {
  /** Largest request body accepted (413 beyond it). */
  maxBodyBytes: number;
  /** Requests one token may make per window (429 beyond it). */
  requestsPerWindow: number;
  windowS: number;
}

export const DEFAULT_REST_LIMITS: RestLimits = {
  maxBodyBytes: 10_000_000,
  // A CI job polling a run once a second uses 60 a minute; several jobs share a token.
  requestsPerWindow: 300,
  windowS: 60,
};

/** What the REST handlers need from the process that serves them. */
export interface RestDeps {
  db: Db;
  queue: Queue;
  /** Queues by name (labelled and agent runs); without it they are made beside `queue`. */
  queueFor?: QueueFor;
  rateLimit: RateLimiter;
  secretKey?: Buffer | null;
  /** Install settings from the environment. */
  install?: InstallSettings | null;
  network?: NetworkDeps | null;
  limits?: Partial<RestLimits>;
  /** The install's public URL (the first of BENCHBOARD_PUBLIC_URL): links in responses point there. */
  publicUrl?: string | null;
}

export function restLimits(deps: RestDeps): RestLimits {
  return { ...DEFAULT_REST_LIMITS, ...deps.limits };
}

export interface ApiToken {
  id: string;
  orgId: string;
  projectId: string | null;
  scopes: ApiTokenScope[];
  role: "member" | "viewer";
}

export interface ApiCaller {
  token: ApiToken;
  /** The tRPC context the token acts with, so REST and the UI share every rule. */
  context: Context;
  caller: ReturnType<typeof createCaller>;
}

/** Optional header pinning the organization a token must belong to (slug or id). */
export const ORG_HEADER = "Benchboard-Org";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Resolve the bearer token and check it may do `scope`: 401 for a missing, unknown, revoked or
 * expired token (or one of another organization than the pinned one), 429 over the token's
 * rate limit, 403 without the scope. The token acts with its creator's role, capped at member
 * (see verifyApiToken), so a creator demoted to viewer leaves a read-only token.
 */
export async function authorize(req: RestRequest, deps: RestDeps, scope: ApiTokenScope): Promise<ApiCaller> {
  if (/%00/i.test(new URL(req.url).search)) {
    throw new RestError(400, "the query contains a NUL character (%00), which cannot be stored");
  }
  const header = req.headers.get("authorization");
  const unauthorized = (message: string) =>
    new RestError(401, message, {}, { "www-authenticate": 'Bearer realm="benchboard"' });
  if (!header) throw unauthorized("missing API token: send the header Authorization: Bearer <token>");
  const raw = BEARER.exec(header)?.[1];
  if (!raw) throw unauthorized("the Authorization header must be: Bearer <token>");
  const token = await verifyApiToken(deps.db, raw);
  if (!token) throw unauthorized("the API token is invalid, revoked or expired");
  const pinned = req.headers.get(ORG_HEADER)?.trim();
  if (pinned) {
    const org = await findOrganizationRef(deps.db, token.orgId);
    if (!org || (org.slug !== pinned && org.id !== pinned)) {
      throw unauthorized(`the API token does not belong to the organization "${pinned}"`);
    }
  }
  const { requestsPerWindow, windowS } = restLimits(deps);
  const limit = await deps.rateLimit.hit(`api:${token.id}`, requestsPerWindow, windowS).catch(() => {
    // Refusing is safer than serving unlimited; 503 tells clients (and the CLI) to retry.
    throw new RestError(503, "the rate limiter (Redis) is unavailable; try again shortly", {}, { "retry-after": "5" });
  });
  if (!limit.allowed) {
    throw new RestError(
      429,
      `too many requests with this token: at most ${requestsPerWindow} per ${windowS} s; try again in ${limit.retryAfterS} s`,
      {},
      { "retry-after": String(limit.retryAfterS) },
    );
  }
  if (!token.scopes.includes(scope)) {
    throw new RestError(403, `the API token lacks the ${scope} scope (it has: ${token.scopes.join(", ") || "none"})`);
  }
  const context: Context = {
    db: deps.db,
    queue: deps.queue,
    ...(deps.queueFor ? { queueFor: deps.queueFor } : {}),
    orgId: token.orgId,
    userId: null,
    role: token.role,
    rateLimit: deps.rateLimit,
    secretKey: deps.secretKey ?? null,
    install: deps.install ?? null,
    network: deps.network ?? null,
  };
  return { token, context, caller: createCaller(context) };
}

/**
 * A project-scoped token reaches only its project. Runs and scenarios of other projects are
 * reported as not found, like those of other organizations; naming another project to write to
 * is refused outright.
 */
export function assertProjectAllowed(
  token: ApiToken,
  projectId: string,
  refusal: { status: 403 | 404; field: string; message: string },
): void {
  if (token.projectId && token.projectId !== projectId) {
    throw new RestError(refusal.status, `${refusal.field}: ${refusal.message}`, { field: refusal.field });
  }
}
