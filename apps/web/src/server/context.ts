import "server-only";
import {
  type Context,
  createFallbackRateLimiter,
  createRedisRateLimiter,
  type Mailer,
  mailerFromSettings,
  type RateLimiter,
  runLifecycleDeps,
} from "@benchboard/api";
import { installPlainZodMessages } from "@benchboard/core";
import { type Db, getDb, getSessionUser, startRunWatchdog } from "@benchboard/db";
import { createQueueFor, createRunsQueue, type QueueFor } from "@benchboard/jobs";
import type { FetchCreateContextFnOptions } from "@trpc/server/adapters/fetch";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { env, installSettings, retainDetailDays, secretKey } from "~/env";

// Every answer names fields in plain words (see apps/web/src/trpc/client.tsx for why it is called).
installPlainZodMessages();

import { clientIp, isHttps, linkBaseUrl } from "./request-origin";

/** Cookie holding the slug of the organization the user is looking at. */
export const ORG_COOKIE = "bb_org";
/** HttpOnly session cookie; the database keeps only its hash. */
export const SESSION_COOKIE = "bb_session";

const globals = globalThis as unknown as {
  benchboardQueue?: Queue;
  benchboardQueueFor?: QueueFor;
  benchboardRateLimiter?: RateLimiter;
  benchboardMailer?: Mailer;
  benchboardWatchdog?: () => void;
};

/**
 * Runs never stay `running` after their worker died, and their groups go on, even when no worker
 * is left to notice: the same watchdog as the workers'.
 */
function ensureWatchdog(db: Db) {
  globals.benchboardWatchdog ??= startRunWatchdog(db, {
    ...runLifecycleDeps(getQueueFor(), (line) => console.log(`[watchdog] ${line}`)),
    staleAfterMs: env.BENCHBOARD_RUN_STALE_AFTER_MS,
    queueGiveUpMs: env.BENCHBOARD_QUEUE_GIVE_UP_S * 1000,
  });
}

export function getQueue(): Queue {
  globals.benchboardQueue ??= createRunsQueue(env.REDIS_URL, env.BENCHBOARD_QUEUE_PREFIX);
  return globals.benchboardQueue;
}

/** Queues by name (default, worker labels, agents), shared by tRPC, REST and the watchdog. */
export function getQueueFor(): QueueFor {
  globals.benchboardQueueFor ??= createQueueFor(env.REDIS_URL, env.BENCHBOARD_QUEUE_PREFIX, getQueue());
  return globals.benchboardQueueFor;
}

export function getRateLimiter(): RateLimiter {
  if (!globals.benchboardRateLimiter) {
    const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 3_000 });
    redis.on("error", () => {});
    globals.benchboardRateLimiter = createFallbackRateLimiter(
      createRedisRateLimiter(redis, `${env.BENCHBOARD_QUEUE_PREFIX}:rl:`),
    );
  }
  return globals.benchboardRateLimiter;
}

/** Account mail: the operator's SMTP server when configured, else a file only the server's user reads. */
export function getMailer(): Mailer {
  globals.benchboardMailer ??= mailerFromSettings({
    smtpUrl: env.BENCHBOARD_SMTP_URL,
    mailFrom: env.BENCHBOARD_MAIL_FROM,
    mailLog: env.BENCHBOARD_MAIL_LOG,
  });
  return globals.benchboardMailer;
}

export function readCookie(header: string | null, name: string): string | null {
  for (const part of header?.split(";") ?? []) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return null;
}

export { clientIp } from "./request-origin";

/** Resolve who is calling from the session cookie, and in which organization. */
export async function resolveCaller(req: Request) {
  const db = getDb(env.DATABASE_URL);
  ensureWatchdog(db);
  const cookie = req.headers.get("cookie");
  const token = readCookie(cookie, SESSION_COOKIE);
  const found = await getSessionUser(db, token);
  if (!found) return { db, token, user: null, orgId: null, role: null } as const;
  const wanted = readCookie(cookie, ORG_COOKIE);
  // Memberships first, then demo organizations read as public data (a viewer, never a member).
  const orgs = found.orgs;
  const chosen = orgs.find((m) => m.org.slug === wanted) ?? orgs.find((m) => !m.org.demo) ?? orgs[0] ?? null;
  return { db, token, user: found.user, orgId: chosen?.orgId ?? null, role: chosen?.role ?? null } as const;
}

export async function createContext({ req, resHeaders }: FetchCreateContextFnOptions): Promise<Context> {
  const caller = await resolveCaller(req);
  const secure = isHttps(req) ? "; Secure" : "";
  return {
    db: caller.db,
    queue: getQueue(),
    queueFor: getQueueFor(),
    orgId: caller.orgId,
    userId: caller.user?.id ?? null,
    role: caller.role,
    secretKey,
    install: installSettings,
    retainDetailDays,
    rateLimit: getRateLimiter(),
    clientIp: clientIp(req),
    userAgent: req.headers.get("user-agent"),
    mailer: getMailer(),
    publicUrl: linkBaseUrl,
    passwordResetTtlMs: env.BENCHBOARD_PASSWORD_RESET_TTL_MIN * 60_000,
    session: {
      token: caller.token,
      set(token, expiresAt) {
        resHeaders.append(
          "set-cookie",
          `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Expires=${expiresAt.toUTCString()}${secure}`,
        );
      },
      clear() {
        resHeaders.append("set-cookie", `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`);
      },
    },
  };
}
