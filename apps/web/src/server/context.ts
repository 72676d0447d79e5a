import "server-only";
import type { Context } from "@benchboard/api";
import { ensureLocalOrganization, getDb } from "@benchboard/db";
import { createRunsQueue } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { cookies } from "next/headers";
import { env } from "~/env";

/** Cookie holding the slug of the organization the user is looking at. */
export const ORG_COOKIE = "bb_org";

const globalForQueue = globalThis as unknown as { benchboardQueue?: Queue };

function getQueue(): Queue {
  globalForQueue.benchboardQueue ??= createRunsQueue(env.REDIS_URL, env.BENCHBOARD_QUEUE_PREFIX);
  return globalForQueue.benchboardQueue;
}

let localOrgId: Promise<string> | undefined;

export async function createContext(): Promise<Context> {
  const db = getDb(env.DATABASE_URL);
  localOrgId ??= ensureLocalOrganization(db).then((o) => o.id);
  const slug = (await cookies()).get(ORG_COOKIE)?.value;
  const chosen = slug ? await db.organization.findUnique({ where: { slug }, select: { id: true } }) : null;
  return { db, queue: getQueue(), orgId: chosen?.id ?? (await localOrgId), userId: null, role: "owner" };
}
