/**
 * Aggregate achieved rate of one sharded run with 1 vs 2 worker processes against nginx.
 *
 *   pnpm exec tsx bench/workers.ts
 *
 * Each worker is pinned to its own core (`taskset`); nginx answers from config (no access log)
 * on one worker process that may use any core. The same closed-model scenario runs once on
 * one worker (one shard) and once split across two (two shards, merged exactly), in the same
 * process start, against the same nginx. Knobs: BENCH_DURATION_S (10), BENCH_CONNECTIONS (64).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createCaller } from "../packages/api/src/root.ts";
import { ensureLocalOrganization } from "../packages/db/src/index.ts";
import { createTestDatabase } from "../packages/db/src/testing.ts";
import { createQueueFor, createRunsQueue, DEFAULT_REDIS_URL } from "../packages/jobs/src/index.ts";
import { envNumber, fmt, loadAverage, ROOT, startNginx, stop } from "./lib.ts";

const durationS = envNumber("BENCH_DURATION_S", 10);
const connections = envNumber("BENCH_CONNECTIONS", 64);
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbbench-${randomBytes(4).toString("hex")}`;

console.log(`load before: ${loadAverage()}`);
const nginx = await startNginx("0-1", "minimal");
const db = await createTestDatabase();
const queue = createRunsQueue(redisUrl, prefix);
const queueFor = createQueueFor(redisUrl, prefix, queue);
const org = await ensureLocalOrganization(db.db);
const caller = createCaller({ db: db.db, queue, queueFor, orgId: org.id, userId: null, role: "owner" });
const workers: ChildProcess[] = [];

function startWorker(core: string, id: string): ChildProcess {
  const child = spawn(
    "taskset",
    ["-c", core, process.execPath, "--import", "tsx", path.join(ROOT, "workers/runner/src/index.ts")],
    {
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        REDIS_URL: redisUrl,
        BENCHBOARD_QUEUE_PREFIX: prefix,
        BENCHBOARD_WORKER_ID: id,
        BENCHBOARD_WORKER_CONCURRENCY: "1",
      },
      stdio: "ignore",
    },
  );
  workers.push(child);
  return child;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 120_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function measure(shards: number): Promise<{ rps: number; p50: number; p99: number; requests: number }> {
  const project = await caller.project.create({ name: `bench ${shards}` });
  const target = await caller.target.create({ projectId: project.id, name: "nginx", kind: "http", baseUrl: nginx.url });
  const scenario = await caller.scenario.create({
    projectId: project.id,
    name: "closed",
    spec: {
      engine: "http-closed",
      concurrency: connections,
      durationS,
      rampUpS: 0,
      timeoutMs: 10_000,
      request: { method: "GET", path: "/", headers: {} },
    },
  });
  const run = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id, shards });
  await until(
    async () => ["succeeded", "failed", "canceled"].includes((await caller.run.byId({ id: run.id })).status),
    "the run",
  );
  const done = await caller.run.byId({ id: run.id });
  if (done.status !== "succeeded") throw new Error(`run ${done.status}: ${done.error}`);
  const m = done.result?.metrics as Record<string, number>;
  return { rps: m.rps ?? 0, p50: m.latency_p50 ?? 0, p99: m.latency_p99 ?? 0, requests: m.requests ?? 0 };
}

try {
  startWorker("0", "bench-w1");
  await until(async () => (await db.db.worker.count()) === 1, "worker 1");
  const one = await measure(1);
  startWorker("1", "bench-w2");
  await until(async () => (await db.db.worker.count()) === 2, "worker 2");
  const two = await measure(2);
  console.log(`\nclosed model, ${connections} connections, ${durationS} s, against nginx (minimal, 1 nginx worker)`);
  console.log(
    `  1 worker  (1 shard):  ${fmt(one.rps)} req/s  p50 ${one.p50.toFixed(2)} ms  p99 ${one.p99.toFixed(2)} ms  (${one.requests} requests)`,
  );
  console.log(
    `  2 workers (2 shards): ${fmt(two.rps)} req/s  p50 ${two.p50.toFixed(2)} ms  p99 ${two.p99.toFixed(2)} ms  (${two.requests} requests)`,
  );
  console.log(`  ratio 2 workers / 1 worker: ${(two.rps / one.rps).toFixed(2)}`);
  console.log(`load after: ${loadAverage()}`);
} finally {
  for (const w of workers) await stop(w);
  await queueFor.closeAll();
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  await db.drop();
  await nginx.stop();
}
