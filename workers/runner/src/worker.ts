import http from "node:http";
import os from "node:os";
import { createDb, type Db, failStaleRuns } from "@benchboard/db";
import { createRunsQueue, enqueue, JOBS, RUNS_QUEUE, workerConnection } from "@benchboard/jobs";
import { Worker } from "bullmq";
import { handleRunExecute } from "./processors/run-execute";

export interface RunnerOptions {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  concurrency: number;
  workerId: string;
  labels: string[];
  healthPort: number;
  staleRunAfterMs?: number;
  log?: (line: string) => void;
  /** Decrypts target secrets; runs whose target has secret headers fail without it. */
  secretKey?: Buffer | null;
}

const HEARTBEAT_MS = 5_000;
const WATCHDOG_MS = 5_000;

/** Start consuming run jobs. Returns a handle whose close() finishes in-flight work first. */
export async function startRunner(options: RunnerOptions) {
  const log = options.log ?? ((line: string) => console.log(`[worker ${options.workerId}] ${line}`));
  const db: Db = createDb(options.databaseUrl, { max: 5 });
  const connection = workerConnection(options.redisUrl);
  // Queues the next repetition of a group when one ends.
  const producer = createRunsQueue(options.redisUrl, options.prefix);
  let active = 0;

  const worker = new Worker(
    RUNS_QUEUE,
    async (job) => {
      if (job.name !== JOBS.runExecute.name) throw new Error(`unknown job ${job.name}`);
      const payload = JOBS.runExecute.schema.parse(job.data);
      active++;
      try {
        await handleRunExecute(
          {
            db,
            workerId: options.workerId,
            log,
            secretKey: options.secretKey ?? null,
            enqueueRun: (runId) => enqueue(producer, JOBS.runExecute, { runId }, { jobId: runId }).then(() => {}),
          },
          payload,
        );
      } finally {
        active--;
      }
    },
    { connection, prefix: options.prefix, concurrency: options.concurrency, autorun: true },
  );
  worker.on("failed", (job, err) => log(`job ${job?.id ?? "?"} failed: ${err.message}`));
  worker.on("error", (err) => log(`queue error: ${err.message}`));

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
      .then((n) => n && log(`watchdog ended ${n} run(s) whose worker stopped responding`))
      .catch(() => {});
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
  await worker.waitUntilReady();
  log(`ready (concurrency ${options.concurrency}, queue prefix ${options.prefix})`);

  return {
    worker,
    async close() {
      clearInterval(heartbeat);
      clearInterval(watchdog);
      await worker.close();
      await producer.close();
      health?.close();
      await db.worker.delete({ where: { id: options.workerId } }).catch(() => {});
      await db.$disconnect();
      connection.disconnect();
    },
  };
}
