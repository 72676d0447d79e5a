// The checkpoint route end to end, as the web app serves it: how long the thread that answers
// requests stalls while an agent posts the largest checkpoint a run makes (100 series of 3,900
// one-second points, ~6.4 MB), over HTTP to the real handler, which stores it in PostgreSQL.
// A ticker on the server's own thread (1 ms timers) records its longest gap during each post;
// the same with nothing posted is printed beside it as the machine's noise.
//
//   pnpm exec tsx bench/agent-checkpoint-route.ts
//
// Knobs: BENCH_ROUNDS (5). Needs PostgreSQL and Redis (`bash scripts/services.sh`).
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { createRedisRateLimiter } from "../packages/api/src/rate-limit.ts";
import { createCaller } from "../packages/api/src/root.ts";
import { MAX_AGENT_SERIES_POINTS } from "../packages/core/src/importers/agent-body.ts";
import { parsePool } from "../packages/core/src/importers/parse-pool.ts";
import { createAgentToken } from "../packages/db/src/index.ts";
import { allowLoopbackTargets, createTestDatabase } from "../packages/db/src/testing.ts";
import {
  createAgentJobTaker,
  createQueueFor,
  createRunsQueue,
  DEFAULT_REDIS_URL,
  workerConnection,
} from "../packages/jobs/src/index.ts";
import { startRestServer } from "../workers/runner/test/rest-server.ts";
import { envNumber, fmt, loadAverage, median } from "./lib";

const ROUNDS = envNumber("BENCH_ROUNDS", 5);
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbbench-ckpt-${randomBytes(4).toString("hex")}`;

/** Longest gap between 1 ms timer ticks on this thread while `work` runs. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let done = false;
  let longest = 0;
  const ticking = (async () => {
    let last = performance.now();
    while (!done) {
      await new Promise((r) => setTimeout(r, 1));
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }
  })();
  await new Promise((r) => setTimeout(r, 5));
  await work();
  done = true;
  await ticking;
  return longest;
}

const t = await createTestDatabase();
await allowLoopbackTargets(t.db);
const queue = createRunsQueue(redisUrl, prefix);
const queueFor = createQueueFor(redisUrl, prefix, queue);
const redis = workerConnection(redisUrl);
const agentJobs = createAgentJobTaker(redisUrl, prefix);
const rest = await startRestServer({
  db: t.db,
  queue,
  queueFor,
  rateLimit: createRedisRateLimiter(redis, `${prefix}:rl:`),
  agentJobs,
});

async function post(path: string, token: string, body: string | object) {
  const res = await fetch(`${rest.url}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as Record<string, unknown>) };
}

try {
  const org = await t.db.organization.create({
    data: { name: "Bench", slug: `bench-${randomBytes(3).toString("hex")}` },
  });
  const caller = createCaller({
    db: t.db,
    queue,
    queueFor,
    orgId: org.id,
    userId: null,
    role: "owner",
    secretKey: randomBytes(32),
  });
  const { token } = await createAgentToken(t.db, org.id, { name: "bench", createdById: null });
  const project = await caller.project.create({ name: "bench" });
  const target = await caller.target.create({
    projectId: project.id,
    name: "t",
    kind: "http",
    baseUrl: "http://127.0.0.1:9",
    agentLabel: "lab",
  } as never);
  const scenario = await caller.scenario.create({
    projectId: project.id,
    name: "s",
    spec: { engine: "http-open", rate: 10, durationS: 60 } as never,
  });
  const announced = await post("/agent/announce", token, { name: "bench", labels: ["lab"] });
  const agentId = (announced.body as { agent: { id: string } }).agent.id;
  const run = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id });
  const claimed = await post("/agent/claim", token, { agentId, waitS: 5 });
  if (claimed.status !== 200) throw new Error(`claim: ${claimed.status} ${JSON.stringify(claimed.body)}`);

  const start = Date.now();
  const values = Array.from({ length: MAX_AGENT_SERIES_POINTS }, (_, i) => ((i * 7_919) % 100_000) / 7);
  const text = JSON.stringify({
    agentId,
    result: {
      metrics: { requests: MAX_AGENT_SERIES_POINTS },
      series: Object.fromEntries(Array.from({ length: 100 }, (_, k) => [`m${k}`, { start, intervalMs: 1000, values }])),
      startedAt: start,
      endedAt: start + MAX_AGENT_SERIES_POINTS * 1000,
    },
  });

  console.log(`load average before: ${loadAverage()}`);
  const idle: number[] = [];
  const posted: number[] = [];
  const took: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    idle.push(await longestStall(() => new Promise((r) => setTimeout(r, 1_000))));
    let status = 0;
    const began = performance.now();
    posted.push(
      await longestStall(async () => {
        status = (await post(`/agent/runs/${run.id}/checkpoint`, token, text)).status;
      }),
    );
    took.push(performance.now() - began);
    if (status !== 200) throw new Error(`checkpoint answered ${status}`);
  }
  const row = (xs: number[]) => `${fmt(median(xs), 1)} / ${fmt(Math.max(...xs), 1)} ms`;
  console.log(
    `checkpoint of ${(text.length / 1_000_000).toFixed(1)} MB (100 × ${MAX_AGENT_SERIES_POINTS} points), ${ROUNDS} rounds, median / max:`,
  );
  console.log(`  request thread's longest stall during the post: ${row(posted)}`);
  console.log(`  the same with nothing posted (noise):           ${row(idle)}`);
  console.log(`  time to answer the post:                        ${row(took)}`);
  console.log(`load average after: ${loadAverage()}`);
  await post(`/agent/runs/${run.id}/result`, token, { agentId, status: "failed", error: "bench over" });
} finally {
  await parsePool().close();
  await rest.close();
  await agentJobs.close();
  await queueFor.closeAll();
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  redis.disconnect();
  await t.drop();
}
