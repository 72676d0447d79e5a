import { installSettingsFromEnv } from "@benchboard/core";
import { defaultWorkerId, readEnv } from "./env";
import { startRunner } from "./worker";

const env = readEnv();
const workerId = env.BENCHBOARD_WORKER_ID ?? defaultWorkerId();
const runner = await startRunner({
  databaseUrl: env.DATABASE_URL,
  redisUrl: env.REDIS_URL,
  prefix: env.BENCHBOARD_QUEUE_PREFIX,
  concurrency: env.BENCHBOARD_WORKER_CONCURRENCY,
  workerId,
  labels: env.BENCHBOARD_WORKER_LABELS.split(",").filter(Boolean),
  healthPort: env.BENCHBOARD_WORKER_HEALTH_PORT,
  staleRunAfterMs: env.BENCHBOARD_RUN_STALE_AFTER_MS,
  queueGiveUpS: env.BENCHBOARD_QUEUE_GIVE_UP_S,
  shardStartWaitMs: env.BENCHBOARD_SHARD_START_WAIT_MS,
  shutdownS: env.BENCHBOARD_WORKER_SHUTDOWN_S,
  retainDetailDays: env.BENCHBOARD_RETAIN_DETAIL_DAYS ?? null,
  secretKey: env.BENCHBOARD_SECRET_KEY ? Buffer.from(env.BENCHBOARD_SECRET_KEY, "base64") : null,
  // The same variables the web app reads; a bad entry stops the worker with its name.
  install: installSettingsFromEnv(process.env),
  publicUrl: env.BENCHBOARD_PUBLIC_URL,
  notify: { baseDelayMs: env.BENCHBOARD_NOTIFY_RETRY_BASE_MS },
});

let closing = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    console.log(`[worker ${workerId}] ${signal}: stopping in-flight runs (they keep what they measured)`);
    runner.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
