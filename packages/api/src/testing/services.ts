import { createApiToken, createProject, type Db } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { createRedisRateLimiter } from "../rate-limit";
import type { RestDeps, RestLimits } from "../rest/auth";
import type { Context } from "../trpc";

/**
 * What an API test file runs against: a fresh database, a runs queue and a Redis connection (for
 * rate limits), their Redis keys under one prefix; `close()` leaves none of them behind.
 */
export interface TestServices {
  t: TestDatabase;
  queue: Queue;
  redis: Redis;
  /**
   * A signed-out visitor's context: from `ip` (a random private address unless given), rate-limited
   * on the test's Redis, its session cookies pushed onto `cookies` ("" when cleared); `extra`
   * adds to it or overrides it (mailer, install settings, another session).
   */
  anonymous(options?: { ip?: string; cookies?: string[] }, extra?: Partial<Context>): Context;
  /** What the REST handlers are given, rate-limited on the test's Redis. */
  restDeps(limits?: Partial<RestLimits>): RestDeps;
  close(): Promise<void>;
}

const randomOctet = () => Math.floor(Math.random() * 250);

export async function startTestServices(prefix: string): Promise<TestServices> {
  const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  const t = await createTestDatabase();
  const queue = createRunsQueue(redisUrl, prefix);
  const redis = new Redis(redisUrl);
  return {
    t,
    queue,
    redis,
    anonymous(options = {}, extra = {}) {
      const cookies = options.cookies ?? [];
      return {
        db: t.db,
        queue,
        orgId: null,
        userId: null,
        role: null,
        clientIp: options.ip ?? `10.${randomOctet()}.${randomOctet()}.${randomOctet()}`,
        rateLimit: createRedisRateLimiter(redis, `${prefix}:`),
        session: { token: null, set: (token) => cookies.push(token), clear: () => cookies.push("") },
        ...extra,
      };
    },
    restDeps(limits = {}) {
      return { db: t.db, queue, rateLimit: createRedisRateLimiter(redis, `${prefix}:rl:`), limits };
    },
    async close() {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      await t.drop();
    },
  };
}

/** A new organization with a "gateway" project and a CI token that may upload and read its runs. */
export async function createUploadingOrg(db: Db, name: string, slug: string) {
  const org = await db.organization.create({ data: { name, slug } });
  const project = await createProject(db, org.id, { name: "gateway" });
  const { token } = await createApiToken(db, org.id, {
    name: "ci",
    scopes: ["runs:read", "runs:write"],
    projectId: null,
    createdById: null,
  });
  return { id: org.id, token, project: project.slug };
}
