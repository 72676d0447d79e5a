import http from "node:http";
import os from "node:os";
import type { InstallSettings } from "@benchboard/core";
import {
  applyRetention,
  createDb,
  type Db,
  expireOfflineAgents,
  type LifecycleDeps,
  RUN_HEARTBEAT_TIMEOUT_MS,
  removeWorker,
  startRunWatchdog,
  upsertWorker,
} from "@benchboard/db";
import { createDispatch, createQueueFor, JOBS, RUNS_QUEUE, runsQueueName, workerConnection } from "@benchboard/jobs";
import { mergeShardResults } from "@benchboard/loadgen";
import { type Job, Worker } from "bullmq";
import { type NotifierOptions, startNotifier } from "./notifier";
import { handleRunExecute, type ProcessorDeps } from "./processors/run-execute";
import { handleRunShard } from "./processors/run-shard";

export interface RunnerOptions {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  concurrency: number;
  workerId: string;
  labels: string[];
  healthPort: number;
  staleRunAfterMs?: number;
  /** A run the job queue (or, for an agent run, every agent) did not take for this long ends failed (default 15 min). */
  queueGiveUpS?: number;
  /** How long a ready shard waits for the run's other shards before starting anyway. */
  shardStartWaitMs?: number;
  log?: (line: string) => void;
  /** Decrypts target secrets; runs whose target has secret headers fail without it. */
  secretKey?: Buffer | null;
  /** Install settings from the environment (allowed private targets, …). */
  install?: InstallSettings | null;
  /** On close, in-flight runs stop and end `canceled`; after this long the worker stops waiting. */
  shutdownS?: number;
  /** The web app's public address, for links in notifications. */
  publicUrl?: string;
  /** Notification timing (tests shorten it); false: this worker sends no notifications. */
  notify?:
    | false
    | Partial<Omit<NotifierOptions, "db" | "redisUrl" | "prefix" | "publicUrl" | "log" | "secretKey" | "install">>;
  /** Runs that ended this many days ago lose per-second detail (series to 10 s); null: never. */
  retainDetailDays?: number | null;
  /** Offline agents are removed after this many days (`BENCHBOARD_AGENT_RETENTION_DAYS`); null: never. */
  agentRetentionDays?: number | null;
  /** Open-model runs at real-time scheduling where permitted (`BENCHBOARD_ENGINE_REALTIME`). */
  engineRealtime?: boolean;
  /** Runs on a thread of their own (`BENCHBOARD_ENGINE_THREAD`); tests in-process leave it off. */
  engineThread?: boolean;
  /** When retention passes run: the first a minute after start, then hourly (tests shorten both). */
  retentionTiming?: { firstAfterMs?: number; everyMs?: number };
}

export const DEFAULT_SHUTDOWN_S = 20;

const HEARTBEAT_MS = 5_000;
const WATCHDOG_MS = 5_000;
/** How often a worker trims old runs' detail when retention is on (any worker may; runs are locked). */
const RETENTION_EVERY_MS = 60 * 60_000;
/** The first pass waits a minute: a worker starting with the rest of an install lets the app settle. */
const RETENTION_FIRST_AFTER_MS = 60_000;

/** Start consuming run jobs. Returns a handle whose close() finishes in-flight work first. */
export async function startRunner(options: RunnerOptions) {
  const log = options.log ?? ((line: string) => console.log(`[worker ${options.workerId}] ${line}`));
  const db: Db = createDb(options.databaseUrl, { max: 5 });
  const connection = workerConnection(options.redisUrl);
  // Queues the next run of a group when one ends (on the queue its label names).
  const queueFor = createQueueFor(options.redisUrl, options.prefix);
  const lifecycle: LifecycleDeps = {
    dispatch: createDispatch(queueFor),
    mergeShards: mergeShardResults,
    log,
  };
  const shutdown = new AbortController();
  const deps: ProcessorDeps = {
    db,
    workerId: options.workerId,
    log,
    secretKey: options.secretKey ?? null,
    install: options.install ?? null,
    lifecycle,
    shutdown: shutdown.signal,
    engineRealtime: options.engineRealtime ?? false,
    engineThread: options.engineThread ?? false,
    ...(options.shardStartWaitMs !== undefined ? { shardStartWaitMs: options.shardStartWaitMs } : {}),
  };
  let active = 0;
  const processor = async (job: Job) => {
    active++;
    try {
      if (job.name === JOBS.runExecute.name) await handleRunExecute(deps, JOBS.runExecute.schema.parse(job.data));
      else if (job.name === JOBS.runShard.name) await handleRunShard(deps, JOBS.runShard.schema.parse(job.data));
      else throw new Error(`unknown job ${job.name}`);
    } finally {
      active--;
    }
  };
  // The default queue, plus one queue per label this worker offers (runs that ask for a label).
  const queueNames = [RUNS_QUEUE, ...options.labels.map((l) => runsQueueName(l))];
  const consumers = queueNames.map(
    (name) =>
      new Worker(name, processor, {
        connection: name === RUNS_QUEUE ? connection : workerConnection(options.redisUrl),
        prefix: options.prefix,
        concurrency: options.concurrency,
        autorun: true,
      }),
  );
  const worker = consumers[0]!;
  for (const consumer of consumers) {
    consumer.on("failed", (job, err) => log(`job ${job?.id ?? "?"} failed: ${err.message}`));
    consumer.on("error", (err) => log(`queue error: ${err.message}`));
  }

  const announce = () =>
    upsertWorker(db, {
      id: options.workerId,
      host: os.hostname(),
      pid: process.pid,
      labels: options.labels,
      capacity: options.concurrency,
      activeJobs: active,
    }).catch((err: Error) => log(`heartbeat failed: ${err.message}`));
  await announce();
  const heartbeat = setInterval(announce, HEARTBEAT_MS);
  // Any live worker ends runs and shards whose own worker died, and keeps their groups going;
  // the web app runs the same watchdog.
  const stopWatchdog = startRunWatchdog(db, {
    ...lifecycle,
    staleAfterMs: options.staleRunAfterMs ?? RUN_HEARTBEAT_TIMEOUT_MS,
    ...(options.queueGiveUpS ? { queueGiveUpMs: options.queueGiveUpS * 1000 } : {}),
    everyMs: WATCHDOG_MS,
  });

  // Retention: every worker may run it; each batch locks its runs (SKIP LOCKED), so two workers
  // never trim the same run, and a failure only waits for the next pass.
  const retainDays = options.retainDetailDays ?? null;
  let retaining = false;
  const agentDays = options.agentRetentionDays ?? null;
  const retain = async () => {
    if (retaining) return;
    retaining = true;
    try {
      if (retainDays !== null) {
        const trimmed = await applyRetention(db, retainDays);
        if (trimmed > 0) log(`retention: ${trimmed} run(s) older than ${retainDays} days downsampled to 10 s`);
      }
      if (agentDays !== null) {
        const removed = await expireOfflineAgents(db, agentDays * 86_400_000);
        if (removed > 0) log(`retention: ${removed} agent(s) offline for over ${agentDays} days removed`);
      }
    } catch (err) {
      log(`retention failed: ${(err as Error).message}`);
    } finally {
      retaining = false;
    }
  };
  const retains = retainDays !== null || agentDays !== null;
  const retention = retains ? setInterval(retain, options.retentionTiming?.everyMs ?? RETENTION_EVERY_MS) : null;
  retention?.unref();
  const firstRetention = retains
    ? setTimeout(retain, options.retentionTiming?.firstAfterMs ?? RETENTION_FIRST_AFTER_MS)
    : null;
  firstRetention?.unref();

  let health: http.Server | undefined;
  if (options.healthPort > 0) {
    health = http.createServer((_req, res) => {
      const ok = worker.isRunning();
      res.writeHead(ok ? 200 : 503, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok, workerId: options.workerId, activeJobs: active }));
    });
    await new Promise<void>((resolve) => health?.listen(options.healthPort, "127.0.0.1", resolve));
  }
  await Promise.all(consumers.map((c) => c.waitUntilReady()));
  const notifier =
    options.notify === false
      ? null
      : await startNotifier({
          db,
          redisUrl: options.redisUrl,
          prefix: options.prefix,
          publicUrl: options.publicUrl ?? "http://127.0.0.1:3000",
          log,
          secretKey: options.secretKey ?? null,
          install: options.install ?? null,
          ...options.notify,
        });
  log(`ready (concurrency ${options.concurrency}, queue prefix ${options.prefix})`);

  let closing: Promise<void> | null = null;
  return {
    worker,
    notifier,
    /**
     * Stop taking jobs, stop in-flight runs (they end `canceled`, keeping what they measured, and
     * their groups go on on other workers), then release everything. Past the deadline the
     * worker stops waiting for its jobs; the watchdog of another process ends what is left.
     */
    close(): Promise<void> {
      closing ??= (async () => {
        const deadlineMs = (options.shutdownS ?? DEFAULT_SHUTDOWN_S) * 1000;
        const started = Date.now();
        clearInterval(heartbeat);
        if (retention) clearInterval(retention);
        if (firstRetention) clearTimeout(firstRetention);
        stopWatchdog();
        // No new jobs from here on; in-flight ones are told to stop.
        await Promise.all(consumers.map((c) => c.pause(true).catch(() => {})));
        shutdown.abort();
        const drained = Promise.all(consumers.map((c) => c.close())).then(() => true);
        const timedOut = new Promise<false>((resolve) =>
          setTimeout(() => resolve(false), Math.max(0, deadlineMs - (Date.now() - started))).unref(),
        );
        if (!(await Promise.race([drained, timedOut]))) {
          log(`shutdown: ${active} job(s) still busy after ${deadlineMs / 1000} s; leaving them to the watchdog`);
          await Promise.all(consumers.map((c) => c.close(true).catch(() => {})));
        }
        await queueFor.closeAll();
        await notifier?.close().catch(() => {});
        health?.close();
        await removeWorker(db, options.workerId);
        await db.$disconnect();
        connection.disconnect();
      })();
      return closing;
    },
  };
}
