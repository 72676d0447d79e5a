import "server-only";
import type { Context } from "@benchboard/api";
import { ensureLocalOrganization, getDb } from "@benchboard/db";
import { createRunsQueue } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { env } from "~/env";

const globalForQueue = globalThis as unknown as { benchboardQueue?: Queue };

function getQueue(): Queue {
  globalForQueue.benchboardQueue ??= createRunsQueue(env.REDIS_URL, env.BENCHBOARD_QUEUE_PREFIX);
  return globalForQueue.benchboardQueue;
}

let localOrgId: Promise<string> | undefined;

export async function createContext(): Promise<Context> {
  const db = getDb(env.DATABASE_URL);
  localOrgId ??= ensureLocalOrganization(db).then((o) => o.id);
  return { db, queue: getQueue(), orgId: await localOrgId, userId: null, role: "owner" };
}
