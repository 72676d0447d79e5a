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

/**
 * Fixed-window counters in this process's memory: what limits fall back to while Redis is away.
 * Each web process then counts on its own, so a client may get up to one limit per process.
 */
export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const hits = new Map<string, { count: number; resetAt: number }>();
  const failed = new Map<string, { count: number; lastAt: number; expiresAt: number }>();
  const sweep = () => {
    if (hits.size + failed.size < 10_000) return;
    const t = now();
    for (const [k, v] of hits) if (v.resetAt <= t) hits.delete(k);
    for (const [k, v] of failed) if (v.expiresAt <= t) failed.delete(k);
  };
  return {
    async hit(key, limit, windowS) {
      sweep();
      const t = now();
      let entry = hits.get(key);
      if (!entry || entry.resetAt <= t) {
        entry = { count: 0, resetAt: t + windowS * 1000 };
        hits.set(key, entry);
      }
      entry.count++;
      return { allowed: entry.count <= limit, retryAfterS: Math.max(1, Math.ceil((entry.resetAt - t) / 1000)) };
    },
    async failures(key) {
      const entry = failed.get(key);
      if (!entry || entry.expiresAt <= now()) return { count: 0, lastAt: 0 };
      return { count: entry.count, lastAt: entry.lastAt };
    },
    async recordFailure(key, windowS) {
      sweep();
      const t = now();
      const entry = failed.get(key);
      const count = entry && entry.expiresAt > t ? entry.count + 1 : 1;
      failed.set(key, { count, lastAt: t, expiresAt: t + windowS * 1000 });
      return count;
    },
    async clearFailures(key) {
      failed.delete(key);
    },
  };
}

/** How long a call to Redis may take before the limiter counts in memory instead. */
const SHARED_TIMEOUT_MS = 1_000;
/** After Redis failed, how long the limiter counts in memory before asking Redis again. */
const RETRY_SHARED_AFTER_MS = 5_000;

/**
 * Limits that never take the API down: counted in `shared` (Redis) while it answers, and in
 * this process's memory while it does not — so reads and writes keep working through a Redis
 * outage, still limited. The outage is logged once when it starts and once when it ends.
 */
export function createFallbackRateLimiter(
  shared: RateLimiter,
  log: (line: string) => void = (line) => console.warn(`[rate-limit] ${line}`),
  local: RateLimiter = createMemoryRateLimiter(),
): RateLimiter & { readonly degraded: boolean } {
  let downSince = 0;
  let retryAt = 0;
  async function call<K extends keyof RateLimiter>(
    method: K,
    args: Parameters<RateLimiter[K]>,
  ): Promise<Awaited<ReturnType<RateLimiter[K]>>> {
    const invoke = (limiter: RateLimiter) =>
      (limiter[method] as (...a: Parameters<RateLimiter[K]>) => ReturnType<RateLimiter[K]>)(...args);
    if (downSince && Date.now() < retryAt) return invoke(local) as Awaited<ReturnType<RateLimiter[K]>>;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const result = await Promise.race([
        invoke(shared),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${SHARED_TIMEOUT_MS} ms`)), SHARED_TIMEOUT_MS);
        }),
      ]);
      if (downSince) {
        log(`Redis answers again after ${Math.round((Date.now() - downSince) / 1000)} s; limits are shared again`);
        downSince = 0;
      }
      return result as Awaited<ReturnType<RateLimiter[K]>>;
    } catch (err) {
      if (!downSince) {
        downSince = Date.now();
        log(`Redis is unreachable (${(err as Error).message}); counting limits in this process until it answers`);
      }
      retryAt = Date.now() + RETRY_SHARED_AFTER_MS;
      return invoke(local) as Awaited<ReturnType<RateLimiter[K]>>;
    } finally {
      clearTimeout(timer);
    }
  }
  return {
    get degraded() {
      return downSince !== 0;
    },
    hit: (...args) => call("hit", args),
    failures: (...args) => call("failures", args),
    recordFailure: (...args) => call("recordFailure", args),
    clearFailures: (...args) => call("clearFailures", args),
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
