import "server-only";
import { createFallbackRateLimiter, createRedisRateLimiter, type RateLimiter } from "@benchboard/api";
import type { RestDeps } from "@benchboard/api/rest/index";
import { getDb } from "@benchboard/db";
import { createRunsQueue } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { env, installSettings, secretKey } from "~/env";

// The same process-wide queue and rate limiter the tRPC handler uses (same global keys), so the
// app holds one Redis connection of each kind whichever route is hit first.
const globals = globalThis as unknown as { benchboardQueue?: Queue; benchboardRateLimiter?: RateLimiter };

export function restDeps(): RestDeps {
  globals.benchboardQueue ??= createRunsQueue(env.REDIS_URL, env.BENCHBOARD_QUEUE_PREFIX);
  if (!globals.benchboardRateLimiter) {
    const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 3_000 });
    redis.on("error", () => {});
    globals.benchboardRateLimiter = createFallbackRateLimiter(
      createRedisRateLimiter(redis, `${env.BENCHBOARD_QUEUE_PREFIX}:rl:`),
    );
  }
  return {
    db: getDb(env.DATABASE_URL),
    queue: globals.benchboardQueue,
    rateLimit: globals.benchboardRateLimiter,
    secretKey,
    install: installSettings,
  };
}
