import type { Redis } from "ioredis";

export interface RateLimiter {
  /** Count one hit for `key`; `allowed` is false once `limit` hits happened in the window. */
  hit(key: string, limit: number, windowS: number): Promise<{ allowed: boolean; retryAfterS: number }>;
}

/** Fixed-window counters in Redis, shared by every web process. */
export function createRedisRateLimiter(redis: Redis, prefix = "bb:rl:"): RateLimiter {
  return {
    async hit(key, limit, windowS) {
      const k = `${prefix}${key}`;
      const [[, count], [, ttl]] = (await redis.multi().incr(k).ttl(k).exec()) as [[null, number], [null, number]];
      if (ttl < 0) await redis.expire(k, windowS);
      return { allowed: count <= limit, retryAfterS: ttl > 0 ? ttl : windowS };
    },
  };
}

/** For callers without Redis (tests of pure routing): never limits. */
export const noRateLimit: RateLimiter = { hit: async () => ({ allowed: true, retryAfterS: 0 }) };
