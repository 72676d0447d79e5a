import os from "node:os";
import { mailerFromSettings } from "@benchboard/api/mail";
import { mailSettingsEnv, secretKeyEnv, sharedRunEnv } from "@benchboard/api/shared-env";
import { installSettingsFromEnv } from "@benchboard/core";
import { DEFAULT_AGENT_RETENTION_DAYS } from "@benchboard/db";
import { z } from "zod";
import type { RunnerOptions } from "./worker";

// The only place the worker reads process.env.
const ZEnv = z.object({
  ...sharedRunEnv,
  BENCHBOARD_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  BENCHBOARD_WORKER_LABELS: z.string().default(""),
  BENCHBOARD_WORKER_ID: z.string().optional(),
  /** How long a ready shard waits for the run's other shards to be ready before starting anyway. */
  BENCHBOARD_SHARD_START_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(15_000),
  /** On SIGTERM, how long in-flight runs get to stop and store what they measured. */
  BENCHBOARD_WORKER_SHUTDOWN_S: z.coerce.number().min(1).max(600).default(20),
  /**
   * The web app's address(es) as people open it, comma-separated as the web app reads it; the
   * first is used for links in notifications.
   */
  BENCHBOARD_PUBLIC_URL: z
    .string()
    .default("")
    .transform(
      (v) =>
        v
          .split(",")
          .map((s) => s.trim())
          .find(Boolean) ?? "http://127.0.0.1:3000",
    )
    .pipe(z.url({ error: "BENCHBOARD_PUBLIC_URL: the first address is not an http(s) URL" })),
  /**
   * Email notifications go through the same mail as the web app's account mail: the operator's
   * SMTP server (with BENCHBOARD_MAIL_FROM), else the mail file.
   */
  ...mailSettingsEnv("must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587"),
  /** First retry delay of a failed notification delivery; each later retry waits twice as long. */
  BENCHBOARD_NOTIFY_RETRY_BASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  /** Days after which a run's per-second series are downsampled to 10 s (unset: kept forever). */
  BENCHBOARD_RETAIN_DETAIL_DAYS: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.coerce.number().int().min(1).max(36_500).optional(),
  ),
  /** Days an offline agent stays listed before it is removed (0: never). */
  BENCHBOARD_AGENT_RETENTION_DAYS: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.coerce
      .number({ error: "BENCHBOARD_AGENT_RETENTION_DAYS: a number of days (0: never)" })
      .min(0)
      .max(36_500)
      .default(DEFAULT_AGENT_RETENTION_DAYS),
  ),
  /**
   * 1: open-model runs (http-open, llm) put their event loop and pacing thread at real-time
   * priority where permitted (see packages/loadgen/src/realtime.ts); refused, a run keeps normal
   * scheduling and says why.
   */
  BENCHBOARD_ENGINE_REALTIME: z.enum(["0", "1"], { error: "BENCHBOARD_ENGINE_REALTIME: 0 or 1" }).default("0"),
  /**
   * 1 (default): runs execute on a thread of their own, so that the worker's other work (progress
   * and checkpoint writes, queue locks, heartbeats, notifications) never holds the engine's event
   * loop; 0 runs them on the worker's main thread.
   */
  BENCHBOARD_ENGINE_THREAD: z.enum(["0", "1"], { error: "BENCHBOARD_ENGINE_THREAD: 0 or 1" }).default("1"),
  /** 0 disables the health endpoint. */
  BENCHBOARD_WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65_535).default(0),
  /** 32 bytes, base64: decrypts target secrets (header values) for runs. */
  BENCHBOARD_SECRET_KEY: secretKeyEnv("must be 32 bytes in base64 (head -c 32 /dev/urandom | base64)"),
});

export type WorkerEnv = z.infer<typeof ZEnv>;

export function readEnv(env: NodeJS.ProcessEnv = process.env): WorkerEnv {
  const parsed = ZEnv.refine((v) => !v.BENCHBOARD_SMTP_URL || v.BENCHBOARD_MAIL_FROM, {
    path: ["BENCHBOARD_MAIL_FROM"],
    message: "needed with BENCHBOARD_SMTP_URL (the sender of email notifications)",
  }).safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid environment: ${issue?.path.join(".")}: ${issue?.message}`);
  }
  return parsed.data;
}

export function defaultWorkerId(): string {
  return `${os.hostname()}-${process.pid}`;
}

/** The runner's options from its environment (`raw`: the same variables, for install settings). */
export function runnerOptionsFromEnv(env: WorkerEnv, raw: NodeJS.ProcessEnv = process.env): RunnerOptions {
  return {
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    prefix: env.BENCHBOARD_QUEUE_PREFIX,
    concurrency: env.BENCHBOARD_WORKER_CONCURRENCY,
    workerId: env.BENCHBOARD_WORKER_ID ?? defaultWorkerId(),
    labels: env.BENCHBOARD_WORKER_LABELS.split(",").filter(Boolean),
    healthPort: env.BENCHBOARD_WORKER_HEALTH_PORT,
    staleRunAfterMs: env.BENCHBOARD_RUN_STALE_AFTER_MS,
    queueGiveUpS: env.BENCHBOARD_QUEUE_GIVE_UP_S,
    shardStartWaitMs: env.BENCHBOARD_SHARD_START_WAIT_MS,
    shutdownS: env.BENCHBOARD_WORKER_SHUTDOWN_S,
    retainDetailDays: env.BENCHBOARD_RETAIN_DETAIL_DAYS ?? null,
    agentRetentionDays: env.BENCHBOARD_AGENT_RETENTION_DAYS || null,
    secretKey: env.BENCHBOARD_SECRET_KEY ? Buffer.from(env.BENCHBOARD_SECRET_KEY, "base64") : null,
    // The same variables the web app reads; a bad entry stops the worker with its name.
    install: installSettingsFromEnv(raw),
    publicUrl: env.BENCHBOARD_PUBLIC_URL,
    notify: {
      baseDelayMs: env.BENCHBOARD_NOTIFY_RETRY_BASE_MS,
      mailer: mailerFromSettings({
        smtpUrl: env.BENCHBOARD_SMTP_URL,
        mailFrom: env.BENCHBOARD_MAIL_FROM,
        mailLog: env.BENCHBOARD_MAIL_LOG,
      }),
    },
    engineRealtime: env.BENCHBOARD_ENGINE_REALTIME === "1",
    engineThread: env.BENCHBOARD_ENGINE_THREAD === "1",
  };
}
