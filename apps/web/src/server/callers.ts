import "server-only";
import { createCaller } from "@benchboard/api";
import { getDb } from "@benchboard/db";
import { env } from "~/env";
import { getQueue, resolveCaller } from "./context";

/** A tRPC caller with no session and no organization: only public procedures answer it. */
export function publicCaller() {
  return createCaller({ db: getDb(env.DATABASE_URL), queue: getQueue(), orgId: null, userId: null, role: null });
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
