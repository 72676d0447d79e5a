/**
 * The same open-model run executed by an install worker and by `benchboard agent`, on the same
 * machine against the same 50 ms server: latency must agree (the agent runs the workers'
 * engine), and the agent's reporting traffic to the server is measured in bytes per run-second.
 *
 *   pnpm exec tsx bench/agent.ts
 *
 * The worker process and the agent process are pinned to the client core, the delay server to
 * the server core; the REST routes the agent calls are served in this process by the same
 * handlers the web app uses. Knobs: BENCH_RATE (5000), BENCH_DURATION_S (30), BENCH_DELAY_MS (50),
 * BENCH_ROUNDS (1: each round runs the worker, then the agent).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createRedisRateLimiter } from "../packages/api/src/rate-limit.ts";
import { createCaller } from "../packages/api/src/root.ts";
import { createAgentToken, ensureLocalOrganization } from "../packages/db/src/index.ts";
import { allowLoopbackTargets, createTestDatabase } from "../packages/db/src/testing.ts";
import {
  createAgentJobTaker,
  createQueueFor,
  createRunsQueue,
  DEFAULT_REDIS_URL,
  workerConnection,
} from "../packages/jobs/src/index.ts";
import { startRestServer } from "../workers/runner/test/rest-server.ts";
import {
  BENCH_DIR,
  CLIENT_CORE,
  envNumber,
  fmt,
  freePort,
  loadAverage,
  ROOT,
  SERVER_CORE,
  startPinned,
  stop,
  waitForPort,
} from "./lib.ts";

const RATE = envNumber("BENCH_RATE", 5_000);
const DURATION_S = envNumber("BENCH_DURATION_S", 30);
const DELAY_MS = envNumber("BENCH_DELAY_MS", 50);
const ROUNDS = envNumber("BENCH_ROUNDS", 1);
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbbench-agent-${randomBytes(4).toString("hex")}`;

console.log(
  `agent vs worker: http-open ${fmt(RATE)} req/s for ${DURATION_S} s against a ${DELAY_MS} ms server; ` +
    `worker/agent on core ${CLIENT_CORE}, server on core ${SERVER_CORE}; load before: ${loadAverage()}`,
);

const port = await freePort();
const server = startPinned(SERVER_CORE, process.execPath, [
  "--import",
  "tsx",
  path.join(BENCH_DIR, "delay-server.ts"),
  String(port),
  String(DELAY_MS),
]);
const db = await createTestDatabase();
await allowLoopbackTargets(db.db);
const queue = createRunsQueue(redisUrl, prefix);
const queueFor = createQueueFor(redisUrl, prefix, queue);
const redis = workerConnection(redisUrl);
const agentJobs = createAgentJobTaker(redisUrl, prefix);
const rest = await startRestServer({
  db: db.db,
  queue,
  queueFor,
  rateLimit: createRedisRateLimiter(redis, `${prefix}:rl:`),
  agentJobs,
});
const org = await ensureLocalOrganization(db.db);
const caller = createCaller({ db: db.db, queue, queueFor, orgId: org.id, userId: null, role: "owner" });
const { token: agentToken } = await createAgentToken(db.db, org.id, { name: "bench", createdById: null });
const children: ChildProcess[] = [];

const logs: string[] = [];

function pinned(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn("taskset", ["-c", CLIENT_CORE, process.execPath, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr?.on("data", (d) => logs.push(String(d)));
  children.push(child);
  return child;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 180_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}\n${logs.join("").slice(-2_000)}`);
}

interface Measured {
  p50: number;
  p99: number;
  rps: number;
  requests: number;
  valid: boolean;
  status: string;
}

async function measure(location: { agentLabel?: string }): Promise<Measured> {
  const project = await caller.project.create({ name: `bench ${randomBytes(3).toString("hex")}` });
  const target = await caller.target.create({
    projectId: project.id,
    name: "delay",
    kind: "http",
    baseUrl: `http://127.0.0.1:${port}`,
  });
  const scenario = await caller.scenario.create({
    projectId: project.id,
    name: "open",
    spec: {
      engine: "http-open",
      rate: RATE,
      durationS: DURATION_S,
      warmupS: 1,
      maxConnections: 2_000,
      timeoutMs: 10_000,
    } as never,
  });
  const run = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id, ...location });
  await until(
    async () => ["succeeded", "failed", "canceled"].includes((await caller.run.byId({ id: run.id })).status),
    "the run",
    (DURATION_S + 120) * 1000,
  );
  const done = await caller.run.byId({ id: run.id });
  // A failed run (an overloaded machine) is still shown: its figures say how it failed.
  if (done.status !== "succeeded")
    console.log(`  run on ${location.agentLabel ? "the agent" : "the worker"} ${done.status}: ${done.error}`);
  const m = done.result?.metrics as Record<string, number>;
  return {
    p50: m.latency_p50 ?? 0,
    p99: m.latency_p99 ?? 0,
    rps: m.rps ?? 0,
    requests: m.requests ?? 0,
    valid: done.result?.valid !== false,
    status: done.status,
  };
}

const reportBytes = () =>
  ["heartbeat", "ready", "progress", "checkpoint", "result"].reduce((n, k) => n + (rest.bytesIn[k] ?? 0), 0);

try {
  await waitForPort(port);
  const rows: { who: string; m: Measured; bytesPerS?: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const worker = pinned(["--import", "tsx", path.join(ROOT, "workers/runner/src/index.ts")], {
      DATABASE_URL: db.url,
      REDIS_URL: redisUrl,
      BENCHBOARD_QUEUE_PREFIX: prefix,
      BENCHBOARD_WORKER_ID: `bench-worker-${round}`,
      BENCHBOARD_WORKER_CONCURRENCY: "1",
    });
    await until(async () => (await db.db.worker.count()) === 1, "the worker");
    rows.push({ who: "worker", m: await measure({}) });
    await stop(worker);
    await db.db.worker.deleteMany({});

    const agent = pinned(
      [
        path.join(ROOT, "apps/cli/bin/benchboard.js"),
        "agent",
        "--url",
        rest.url,
        "--name",
        `bench-${round}`,
        "--label",
        "bench",
      ],
      { BENCHBOARD_AGENT_TOKEN: agentToken },
    );
    await until(
      async () => (await db.db.agent.count({ where: { name: `bench-${round}`, stoppedAt: null } })) === 1,
      "the agent",
    );
    const before = reportBytes();
    const m = await measure({ agentLabel: "bench" });
    rows.push({ who: "agent", m, bytesPerS: (reportBytes() - before) / DURATION_S });
    await stop(agent);
  }
  console.log("\n| runner | status | p50 ms | p99 ms | achieved req/s | requests | valid | reporting bytes/run-s |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |");
  for (const r of rows) {
    console.log(
      `| ${r.who} | ${r.m.status} | ${r.m.p50.toFixed(2)} | ${r.m.p99.toFixed(2)} | ${fmt(r.m.rps)} | ${fmt(r.m.requests)} | ${r.m.valid ? "yes" : "no"} | ${r.bytesPerS === undefined ? "—" : fmt(r.bytesPerS)} |`,
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const of = (who: string, k: "p50" | "p99") => median(rows.filter((r) => r.who === who).map((r) => r.m[k]));
  const p50 = of("agent", "p50") / of("worker", "p50");
  const p99 = of("agent", "p99") / of("worker", "p99");
  console.log(
    `\nagent / worker: p50 ${p50.toFixed(3)} (${((p50 - 1) * 100).toFixed(1)} %), p99 ${p99.toFixed(3)} (${((p99 - 1) * 100).toFixed(1)} %); goal within 5 %`,
  );
  console.log(`load after: ${loadAverage()}`);
} finally {
  for (const c of children) await stop(c);
  await stop(server);
  await rest.close();
  await agentJobs.close();
  await queueFor.closeAll();
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  redis.disconnect();
  await db.drop();
}
// Connections of the in-process REST server's dependencies may linger; the figures are printed.
process.exit(0);
