import { ConflictError, type Db, NotFoundError } from "@benchboard/db";
import { EnqueueError } from "@benchboard/jobs";
import { initTRPC, TRPCError } from "@trpc/server";
import type { Queue } from "bullmq";
import superjson from "superjson";
import { ZodError } from "zod";

export type Role = "owner" | "member" | "viewer";

export interface Context {
  db: Db;
  queue: Queue;
  /** The organization the caller acts in; null for anonymous callers. */
  orgId: string | null;
  userId: string | null;
  /** The caller's role in `orgId`. */
  role: Role | null;
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

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    return {
      ...shape,
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

/** Domain errors thrown by queries become tRPC errors naming the field. */
const mapErrors = t.middleware(async ({ next }) => {
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
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapErrors);

function requireRole(minimum: Role) {
  return publicProcedure.use(({ ctx, next }) => {
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
