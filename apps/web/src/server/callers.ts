import "server-only";
import { createCaller } from "@benchboard/api";
import { getDb } from "@benchboard/db";
import { env } from "~/env";
import { clientIp, getQueue, getRateLimiter, resolveCaller } from "./context";

/**
 * A tRPC caller with no session and no organization: only public procedures answer it. Given
 * the request's headers, its address counts against the public pages' rate limits.
 */
export function publicCaller(headers?: Headers) {
  return createCaller({
    db: getDb(env.DATABASE_URL),
    queue: getQueue(),
    orgId: null,
    userId: null,
    role: null,
    ...(headers
      ? { rateLimit: getRateLimiter(), clientIp: clientIp(new Request("http://app.invalid/", { headers })) }
      : {}),
  });
}

/** A tRPC caller acting as whoever sent the request (session cookie and chosen organization). */
export async function requestCaller(req: Request) {
  const caller = await resolveCaller(req);
  return createCaller({
    db: caller.db,
    queue: getQueue(),
    orgId: caller.orgId,
    userId: caller.user?.id ?? null,
    role: caller.role,
  });
}
