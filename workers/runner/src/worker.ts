import http from "node:http";
import os from "node:os";
import type { InstallSettings } from "@benchboard/core";
import {
  createDb,
  type Db,
  failStaleRuns,
  failStaleShards,
  prepareShards,
  RUN_HEARTBEAT_TIMEOUT_MS,
} from "@benchboard/db";
import { createQueueFor, dispatchRun, JOBS, RUNS_QUEUE, runsQueueName, workerConnection } from "@benchboard/jobs";
import { type Job, Worker } from "bullmq";
import { handleRunExecute, startNextInGroup } from "./processors/run-execute";
import { finalizeShardedRun, handleRunShard } from "./processors/run-shard";

export interface RunnerOptions {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  concurrency: number;
  workerId: string;
  labels: string[];
  healthPort: number;
  staleRunAfterMs?: number;
  /** How long a ready shard waits for the run's other shards before starting anyway. */
  shardStartWaitMs?: number;
  log?: (line: string) => void;
  /** Decrypts target secrets; runs whose target has secret headers fail without it. */
  secretKey?: Buffer | null;
  /** Install settings from the environment (allowed private targets, …). */
  install?: InstallSettings | null;
}

const HEARTBEAT_MS = 5_000;
const WATCHDOG_MS = 5_000;

/** Start consuming run jobs. Returns a handle whose close() finishes in-flight work first. */
export async function startRunner(options: RunnerOptions) {
  const log = options.log ?? ((line: string) => console.log(`[worker ${options.workerId}] ${line}`));
  const db: Db = createDb(options.databaseUrl, { max: 5 });
  const connection = workerConnection(options.redisUrl);
  // Queues the next repetition of a group when one ends (on the queue its label names).
  const queueFor = createQueueFor(options.redisUrl, options.prefix);
  const deps = {
    db,
    workerId: options.workerId,
    log,
    secretKey: options.secretKey ?? null,
    install: options.install ?? null,
    ...(options.shardStartWaitMs !== undefined ? { shardStartWaitMs: options.shardStartWaitMs } : {}),
    enqueueRun: async (runId: string) => {
      const next = await db.run.findUniqueOrThrow({
        where: { id: runId },
        select: { id: true, shardCount: true, workerLabel: true },
      });
      await prepareShards(db, next.id, next.shardCount);
      await dispatchRun(queueFor, next);
    },
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
    db.worker
      .upsert({
        where: { id: options.workerId },
        create: {
          id: options.workerId,
          host: os.hostname(),
          pid: process.pid,
          labels: options.labels,
          capacity: options.concurrency,
          activeJobs: active,
        },
        update: { heartbeatAt: new Date(), activeJobs: active, pid: process.pid, labels: options.labels },
      })
      .catch((err: Error) => log(`heartbeat failed: ${err.message}`));
  await announce();
  const heartbeat = setInterval(announce, HEARTBEAT_MS);
  // Any live worker ends runs whose own worker died; the web app does the same.
  const watchdog = setInterval(() => {
    failStaleRuns(db, new Date(), options.staleRunAfterMs)
      .then(async (ids) => {
        if (ids.length) log(`watchdog ended ${ids.length} run(s) whose worker stopped responding`);
        // A repetition group goes on with its next run.
        for (const id of ids) await startNextInGroup(deps, id);
      })
      .catch(() => {});
    failStaleShards(db, options.staleRunAfterMs ?? RUN_HEARTBEAT_TIMEOUT_MS)
      .then((runIds) => Promise.all(runIds.map((id) => finalizeShardedRun(deps, id))))
      .catch((err: Error) => log(`shard watchdog: ${err.message}`));
  }, WATCHDOG_MS);

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
  log(`ready (concurrency ${options.concurrency}, queue prefix ${options.prefix})`);

  return {
    worker,
    async close() {
      clearInterval(heartbeat);
      clearInterval(watchdog);
      await Promise.all(consumers.map((c) => c.close()));
      await queueFor.closeAll();
      health?.close();
      await db.worker.delete({ where: { id: options.workerId } }).catch(() => {});
      await db.$disconnect();
      connection.disconnect();
    },
  };
}
