import type { InstallSettings } from "@benchboard/core";
import type { CreateRunsInput, Dispatch } from "@benchboard/db";
import {
  BusyError,
  ConflictError,
  type Db,
  isDatabaseUnavailable,
  launchRuns,
  NotFoundError,
  SecretKeyError,
} from "@benchboard/db";
import { createDispatch, EnqueueError, type QueueFor, queuesBeside } from "@benchboard/jobs";
import { initTRPC, TRPCError } from "@trpc/server";
import type { Queue } from "bullmq";
import superjson from "superjson";
import { ZodError } from "zod";
import type { NetworkDeps } from "./launch-safety";
import type { Mailer } from "./mail";
import type { RateLimiter } from "./rate-limit";

export type Role = "owner" | "member" | "viewer";

export interface Context {
  db: Db;
  queue: Queue;
  /** Queues by name; without it they are made beside `queue` (same Redis and prefix). */
  queueFor?: QueueFor;
  /** The organization the caller acts in; null for anonymous callers. */
  orgId: string | null;
  userId: string | null;
  /** The caller's role in `orgId`. */
  role: Role | null;
  /** Session cookie control; only the web handler provides it. */
  session?: SessionControl;
  rateLimit?: RateLimiter;
  clientIp?: string | null;
  userAgent?: string | null;
  /** Key for secrets at rest (target headers, monitor passwords); without it none can be stored. */
  secretKey?: Buffer | null;
  /** Install settings from the environment (the operator's stored edits are read on top). */
  install?: InstallSettings | null;
  /** BENCHBOARD_RETAIN_DETAIL_DAYS: days after which runs lose per-second detail; null: never. */
  retainDetailDays?: number | null;
  /** Name resolution; tests point it at their own DNS server. */
  network?: NetworkDeps | null;
  /** Where account mail (password reset links) goes; without it, to the server log. */
  mailer?: Mailer | null;
  /** The first of BENCHBOARD_PUBLIC_URL: the address links in mail point at. */
  publicUrl?: string | null;
  /** How long a password reset link works (BENCHBOARD_PASSWORD_RESET_TTL_MIN). */
  passwordResetTtlMs?: number | null;
}

/** Where a launch says that its run waits for the queue (the watchdog dispatches it later). */
export const queueLog = (line: string) => console.warn(`[queue] ${line}`);

/** Puts a run on the queue its labels name, for the run lifecycle (the one dispatch factory). */
export function dispatcher(ctx: Pick<Context, "queue" | "queueFor">): Dispatch {
  return createDispatch(ctx.queueFor ?? queuesBeside(ctx.queue));
}

export interface SessionControl {
  /** The current session token, if the request carried one. */
  token: string | null;
  set(token: string, expiresAt: Date): void;
  clear(): void;
}

const RANK: Record<Role, number> = { viewer: 0, member: 1, owner: 2 };

/** Zod issues keyed by their dotted input path ("spec.concurrency"), for messages at the field. */
export function issuesByPath(error: ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join(".") || "input";
    out[key] = [...(out[key] ?? []), issue.message];
  }
  return out;
}

/** "spec.rate: must be at most 10000; name: required" — each field with its first message. */
export function describeIssues(error: ZodError): string {
  return Object.entries(issuesByPath(error))
    .map(([path, messages]) => `${path}: ${messages[0]}`)
    .join("; ");
}

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error }) {
      const cause = error.cause;
      // An unexpected failure says nothing about the database or the code: the server log has it.
      if (error.code === "INTERNAL_SERVER_ERROR") {
        return {
          ...shape,
          message: "internal error; the server log has the details",
          data: { ...shape.data, stack: undefined, fieldErrors: null },
        };
      }
      return {
        ...shape,
        // tRPC's own message for invalid input is the issues as JSON: say them as a person reads them.
        message: cause instanceof ZodError ? describeIssues(cause) : shape.message,
        data: {
          ...shape.data,
          // Field-level messages so forms can show the error at the field.
          fieldErrors:
            cause instanceof ZodError
              ? issuesByPath(cause)
              : cause instanceof NotFoundError || cause instanceof ConflictError
                ? { [cause.field]: [cause.message] }
                : null,
        },
      };
    },
  });

/** Where a NUL character is in an input (PostgreSQL stores none), or null. */
function nulPath(value: unknown, path: string[] = [], depth = 0): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path.join(".") || "input" : null;
  if (value === null || typeof value !== "object" || depth > 64) return null;
  for (const [k, v] of Object.entries(value)) {
    if (k.includes("\u0000")) return [...path, k].join(".");
    const found = nulPath(v, [...path, k], depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Domain errors thrown by queries become tRPC errors naming the field; input with a NUL character
 * anywhere is a 400 naming it, before any query sees it.
 */
const mapErrors = t.middleware(async ({ next, getRawInput }) => {
  const at = nulPath(await getRawInput().catch(() => undefined));
  if (at) {
    throw new TRPCError({
      code: "BAD_REQUEST",
      message: `${at}: contains a NUL character (\u0000), which cannot be stored`,
      cause: new ConflictError(at, "contains a NUL character (\u0000), which cannot be stored"),
    });
  }
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof NotFoundError) {
      throw new TRPCError({ code: "NOT_FOUND", message: `${cause.field}: ${cause.message}`, cause });
    }
    if (cause instanceof ConflictError) {
      throw new TRPCError({ code: "CONFLICT", message: `${cause.field}: ${cause.message}`, cause });
    }
    if (cause instanceof EnqueueError) {
      throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: cause.message, cause });
    }
    if (isDatabaseUnavailable(cause)) {
      throw new TRPCError({
        code: "SERVICE_UNAVAILABLE",
        message: "the database is unavailable; nothing was stored, try again shortly",
        cause,
      });
    }
    // The install's secret key is missing or wrong: the operator's to fix, and it says how.
    if (cause instanceof BusyError || cause instanceof SecretKeyError) {
      throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: cause.message, cause });
    }
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapErrors);

export interface ProcedureMeta {
  /** The least role that may call the procedure; absent on public procedures. */
  minRole?: Role;
  /** Signed-in users without an organization context may call it. */
  signedIn?: boolean;
}

function requireRole(minimum: Role) {
  return publicProcedure.meta({ minRole: minimum }).use(({ ctx, next }) => {
    if (!ctx.orgId || !ctx.role) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in to continue" });
    if (RANK[ctx.role] < RANK[minimum]) {
      throw new TRPCError({ code: "FORBIDDEN", message: `this needs the ${minimum} role; you are a ${ctx.role}` });
    }
    return next({ ctx: { ...ctx, orgId: ctx.orgId, role: ctx.role } });
  });
}

/** Reads within the caller's organization (any role). */
export const orgProcedure = requireRole("viewer");
/** Launching, creating, changing and deleting (member or owner). */
export const memberProcedure = requireRole("member");
/** Organization administration: members, tokens, caps (owner). */
export const ownerProcedure = requireRole("owner");

/** Any signed-in user, whatever organization they are in (accepting invitations, switching). */
export const userProcedure = publicProcedure.meta({ signedIn: true }).use(({ ctx, next }) => {
  if (!ctx.userId) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in to continue" });
  return next({ ctx: { ...ctx, userId: ctx.userId } });
});

/** Launches (runs and sweeps) one organization may start per minute, from the UI and REST alike. */
export const LAUNCHES_PER_MINUTE = 30;

/** Count a hit against a limit; TOO_MANY_REQUESTS when it is exceeded. */
export async function enforceRateLimit(ctx: Context, key: string, limit: number, windowS: number, what: string) {
  if (!ctx.rateLimit) return;
  const { allowed, retryAfterS } = await ctx.rateLimit.hit(key, limit, windowS);
  if (!allowed) {
    throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: `too many ${what}; try again in ${retryAfterS} s` });
  }
}

/** Count one launch (a run, a sweep, a probe) against the organization's launches per minute. */
export function enforceLaunchLimit(ctx: Context & { orgId: string }): Promise<void> {
  return enforceRateLimit(ctx, `launch:${ctx.orgId}`, LAUNCHES_PER_MINUTE, 60, "launches in this organization");
}

/** Create runs as the caller and put them on the queues their labels name. */
export function launchAsCaller(ctx: Context & { orgId: string }, input: Omit<CreateRunsInput, "createdById">) {
  return launchRuns(ctx.db, ctx.orgId, { ...input, createdById: ctx.userId }, dispatcher(ctx), queueLog);
}
