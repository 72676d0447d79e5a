import type { Redis } from "ioredis";

export interface RateLimiter {
  /** Count one hit for `key`; `allowed` is false once `limit` hits happened in the window. */
  hit(key: string, limit: number, windowS: number): Promise<{ allowed: boolean; retryAfterS: number }>;
  /** Failures counted under `key` in the current window (0 when none). */
  failures(key: string): Promise<{ count: number; lastAt: number }>;
  /** Count one failure under `key`, kept `windowS` after the last one; the new count. */
  recordFailure(key: string, windowS: number): Promise<number>;
  /** Forget the failures under `key` (after a success). */
  clearFailures(key: string): Promise<void>;
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
    async failures(key) {
      const [count, lastAt] = await redis.hmget(`${prefix}f:${key}`, "count", "lastAt");
      return { count: Number(count ?? 0), lastAt: Number(lastAt ?? 0) };
    },
    async recordFailure(key, windowS) {
      const k = `${prefix}f:${key}`;
      const [[, count]] = (await redis
        .multi()
        .hincrby(k, "count", 1)
        .hset(k, "lastAt", Date.now())
        .expire(k, windowS)
        .exec()) as [[null, number]];
      return count;
    },
    async clearFailures(key) {
      await redis.del(`${prefix}f:${key}`);
    },
  };
}

/** For callers without Redis (tests of pure routing): never limits. */
export const noRateLimit: RateLimiter = {
  hit: async () => ({ allowed: true, retryAfterS: 0 }),
  failures: async () => ({ count: 0, lastAt: 0 }),
  recordFailure: async () => 0,
  clearFailures: async () => {},
};

/** Failures allowed before an address must wait between attempts on one account. */
export const SIGN_IN_FREE_FAILURES = 5;
/** Longest wait between attempts, however many failures. */
export const SIGN_IN_MAX_DELAY_S = 900;

/**
 * Seconds an address must wait after `failures` wrong passwords for one account before it may
 * try that account again: none for the first few, then doubling from 1 s up to 15 minutes.
 */
export function signInDelayS(failures: number): number {
  if (failures < SIGN_IN_FREE_FAILURES) return 0;
  return Math.min(SIGN_IN_MAX_DELAY_S, 2 ** (failures - SIGN_IN_FREE_FAILURES));
}
