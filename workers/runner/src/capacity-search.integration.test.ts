import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCaller, createRedisRateLimiter } from "@benchboard/api";
import { createApiToken, ensureLocalOrganization } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { type BoundedServer, startBoundedServer } from "@benchboard/loadgen/test/bounded-server";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRestServer } from "../test/rest-server";
import { waitFor } from "../test/wait";

// Capacity search in one launch, end to end: REST and the CLI launch an open-model scenario with
// an SLO and a rate range, a worker runs the plateaus against a target whose capacity is known
// (4 requests at a time, 100 ms each: ~40 req/s), and GET /runs/{id} returns the answer. The
// worker is a process of its own, as installed, so its pacing does not share this one's event loop.

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = fileURLToPath(new URL("../../../apps/cli/bin/benchboard.js", import.meta.url));
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbcapacity-${randomBytes(4).toString("hex")}`;

let t: TestDatabase;
let queue: Queue;
let redis: Redis;
let target: BoundedServer;
let rest: Awaited<ReturnType<typeof startRestServer>>;
let worker: ChildProcess;
let token = "";
let projectId = "";
const log: string[] = [];

beforeAll(async () => {
  target = await startBoundedServer({ slots: 4, serviceMs: 100 });
  t = await createTestDatabase();
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(redisUrl, prefix);
  redis = new Redis(redisUrl);
  rest = await startRestServer({ db: t.db, queue, rateLimit: createRedisRateLimiter(redis, `${prefix}:rl:`) });
  worker = spawn(process.execPath, ["--import", "tsx", path.join(here, "index.ts")], {
    env: {
      ...process.env,
      DATABASE_URL: t.url,
      REDIS_URL: redisUrl,
      BENCHBOARD_QUEUE_PREFIX: prefix,
      BENCHBOARD_WORKER_ID: `test-${prefix}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  worker.stdout?.on("data", (d) => log.push(String(d)));
  worker.stderr?.on("data", (d) => log.push(String(d)));
  await waitFor(
    async () => (await t.db.worker.count()) > 0,
    30_000,
    "worker registration",
    () => log.join(""),
  );
  const org = await ensureLocalOrganization(t.db);
  const caller = createCaller({ db: t.db, queue, orgId: org.id, userId: null, role: "owner" });
  const project = await caller.project.create({ name: "capacity" });
  projectId = project.id;
  await caller.target.create({ projectId, name: "svc", kind: "http", baseUrl: target.url });
  await caller.scenario.create({
    projectId,
    name: "open",
    spec: { engine: "http-open", rate: 10, durationS: 2, maxConnections: 200, timeoutMs: 5_000 } as never,
  });
  await caller.scenario.create({
    projectId,
    name: "closed",
    spec: { engine: "http-closed", concurrency: 1, requests: 5 } as never,
  });
  ({ token } = await createApiToken(t.db, org.id, {
    name: "ci",
    scopes: ["runs:read", "runs:launch"],
    createdById: null,
  }));
}, 60_000);

afterAll(async () => {
  worker?.kill("SIGTERM");
  await new Promise((r) => worker?.once("exit", r));
  await rest?.close();
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  redis?.disconnect();
  await t?.drop();
  await target?.close();
});

const auth = () => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

async function launch(body: Record<string, unknown>) {
  const res = await fetch(`${rest.url}/api/v1/runs/launch`, {
    method: "POST",
    headers: auth(),
    body: JSON.stringify({ project: projectId, scenario: "open", target: "svc", ...body }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer read field by field
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function finished(runId: string) {
  await waitFor(
    async () => {
      const r = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
      return r.status !== "queued" && r.status !== "running";
    },
    110_000,
    `run ${runId} to end`,
    () => log.join(""),
  );
  const res = await fetch(`${rest.url}/api/v1/runs/${runId}`, { headers: auth() });
  expect(res.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer read field by field
  return (await res.json()) as Record<string, any>;
}

function cli(args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: { PATH: process.env.PATH ?? "", BENCHBOARD_URL: rest.url, BENCHBOARD_TOKEN: token },
        timeout: 100_000,
      },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") reject(err);
        else resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
      },
    );
  });
}

const SEARCH = { slo: { p99Ms: 400, errorRatePct: 1 }, resolutionPct: 10, plateauS: 3, warmupS: 0.5 };

describe("capacity search, one launch", () => {
  it("over REST: one run stores the sustainable rate, every plateau and why it stopped", async () => {
    const launched = await launch({ findCapacity: { ...SEARCH, minRate: 5, maxRate: 80 } });
    expect(launched.status, JSON.stringify(launched.body)).toBe(201);
    expect(launched.body.groupRunIds).toHaveLength(1);
    const run = await finished(launched.body.run.id);
    expect(run.status, run.error ?? "").toBe("succeeded");
    const search = run.capacitySearch;
    expect(search).not.toBeNull();
    expect(search.plateaus.length).toBeGreaterThan(2);
    // Stepped ×2 from the minimum (a plateau the busy host distorted is run once more).
    const judged = search.plateaus.filter((p: { verdict: string }) => p.verdict !== "invalid");
    expect(search.plateaus.length - judged.length).toBeLessThanOrEqual(1);
    expect(judged.slice(0, 3).map((p: { offeredRps: number }) => p.offeredRps)).toEqual([5, 10, 20]);
    expect(judged.some((p: { phase: string }) => p.phase === "bisect")).toBe(true);
    expect(["saturated", "slo-broken"]).toContain(search.stop.kind);
    expect(search.sustainableRps).toBeGreaterThanOrEqual(15);
    expect(search.sustainableRps).toBeLessThanOrEqual(target.capacityRps * 1.1);
    expect(search.statement).toMatch(/^Sustains \d+ req\/s with p99 ≤ 400 ms and errors ≤ 1 %/);
    expect(run.result.metrics.capacity_rps).toBe(search.sustainableRps);
    // The snapshot says what ran: a capacity search built from the open-model scenario.
    const stored = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(stored.scenarioSnapshot).toMatchObject({
      engine: "capacity-search",
      spec: { engine: "capacity-search", minRate: 5, maxRate: 80, slo: { p99Ms: 400 } },
    });
  }, 120_000);

  it("from the CLI: --find-capacity launches it, and --wait prints the answer", async () => {
    const out = await cli([
      "run",
      "open",
      "--project",
      projectId,
      "--target",
      "svc",
      "--find-capacity",
      "--slo-p99",
      "400",
      "--min-rate",
      "10",
      "--max-rate",
      "20",
      "--plateau",
      "3",
      "--warmup",
      "0.5",
      "--wait",
    ]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/Capacity search: Sustains 20 req\/s with p99 ≤ 400 ms and errors ≤ 1 %/);
    expect(out.stdout).toContain("reached the range's maximum");

    const noSlo = await cli([
      "run",
      "open",
      "--project",
      projectId,
      "--target",
      "svc",
      "--find-capacity",
      "--min-rate",
      "20",
      "--max-rate",
      "40",
    ]);
    expect(noSlo.code).toBe(2);
    expect(noSlo.stderr).toContain("findCapacity.slo");
    const stray = await cli(["run", "open", "--project", projectId, "--target", "svc", "--min-rate", "20"]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain("need --find-capacity");
  }, 120_000);

  it("refuses bad input naming the field, and stores nothing", async () => {
    const before = await t.db.run.count();
    const minAboveMax = await launch({ findCapacity: { ...SEARCH, minRate: 500, maxRate: 100 } });
    expect(minAboveMax.status).toBe(400);
    expect(minAboveMax.body.error).toMatchObject({
      field: "findCapacity.minRate",
      message: "findCapacity.minRate: minRate (500) is above maxRate (100)",
    });
    const noSlo = await launch({ findCapacity: { minRate: 10, maxRate: 100 } });
    expect(noSlo.status).toBe(400);
    expect(noSlo.body.error.field).toBe("findCapacity.slo");
    const noP99 = await launch({ findCapacity: { slo: { errorRatePct: 1 }, minRate: 10, maxRate: 100 } });
    expect(noP99.status).toBe(400);
    expect(noP99.body.error.field).toBe("findCapacity.slo.p99Ms");
    const sharded = await launch({ shards: 2, findCapacity: { ...SEARCH, minRate: 10, maxRate: 100 } });
    expect(sharded.status).toBe(400);
    expect(sharded.body.error.field).toBe("shards");
    expect(sharded.body.error.message).toContain("runs on one worker or agent");
    const closed = await launch({ scenario: "closed", findCapacity: { ...SEARCH, minRate: 10, maxRate: 100 } });
    expect(closed.status).toBe(409);
    expect(closed.body.error.field).toBe("findCapacity");
    // The worst case is checked against the organization's caps before anything is queued.
    const org = await ensureLocalOrganization(t.db);
    await t.db.organization.update({ where: { id: org.id }, data: { caps: { maxDurationS: 20 } } });
    try {
      const long = await launch({ findCapacity: { ...SEARCH, minRate: 10, maxRate: 1_000 } });
      expect(long.status).toBe(409);
      expect(long.body.error.field).toBe("findCapacity.plateauS");
      expect(long.body.error.message).toMatch(/may run for up to [\d.]+ s \(\d+ plateaus of 3.5 s with warm-up\)/);
    } finally {
      await t.db.organization.update({ where: { id: org.id }, data: { caps: {} } });
    }
    expect(await t.db.run.count()).toBe(before);
  });
});
