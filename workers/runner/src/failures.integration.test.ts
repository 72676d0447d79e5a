import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCaller } from "@benchboard/api";
import { ensureLocalOrganization } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor as waitForIn } from "../test/wait";

// Runs must never stay `running`: a worker killed with SIGKILL, a Redis restart, a target that
// stops mid-run. Real worker processes, a private Redis server (restarted by the test), real
// HTTP targets.
const here = path.dirname(fileURLToPath(import.meta.url));
let t: TestDatabase;
let redisPort: number;
let redis: ChildProcess | undefined;
let queue: Queue;
let caller: ReturnType<typeof createCaller>;
const workers = new Map<string, ChildProcess>();
const logs: string[] = [];
const servers: http.Server[] = [];

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

const waitFor = <T>(check: () => Promise<T | false | null | undefined>, timeoutMs: number, what: string) =>
  waitForIn(check, timeoutMs, what, () => logs.join(""));

async function startRedis(): Promise<void> {
  redis = spawn(
    "redis-server",
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(redisPort, "127.0.0.1", () => {
          s.end();
          resolve(true);
        });
        s.on("error", () => resolve(false));
      }),
    10_000,
    "redis",
  );
}

async function stopRedis(): Promise<void> {
  const r = redis;
  if (!r || r.exitCode !== null) return;
  r.kill("SIGKILL");
  await new Promise((resolve) => r.once("exit", resolve));
}

function startWorker(id: string): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "index.ts")], {
    env: {
      ...process.env,
      DATABASE_URL: t.url,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      BENCHBOARD_QUEUE_PREFIX: "bbfail",
      BENCHBOARD_WORKER_ID: id,
      BENCHBOARD_WORKER_CONCURRENCY: "1",
      BENCHBOARD_RUN_STALE_AFTER_MS: "3000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => logs.push(`[${id}] ${d}`));
  child.stderr?.on("data", (d) => logs.push(`[${id}] ${d}`));
  workers.set(id, child);
  return child;
}

async function httpServer(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return { server, url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` };
}

async function launch(baseUrl: string, spec: object, repetitions = 1) {
  const project = await caller.project.create({ name: `p-${randomBytes(3).toString("hex")}` });
  const target = await caller.target.create({ projectId: project.id, name: "svc", kind: "http", baseUrl });
  const scenario = await caller.scenario.create({ projectId: project.id, name: "s", spec: spec as never });
  return caller.run.launch({ targetId: target.id, scenarioId: scenario.id, repetitions });
}

const ended = (id: string) => async () => {
  const run = await caller.run.byId({ id });
  return ["succeeded", "failed", "canceled"].includes(run.status) ? run : null;
};

beforeAll(async () => {
  redisPort = await freePort();
  await startRedis();
  t = await createTestDatabase();
  // Test servers listen on 127.0.0.1, which this install's operator allows as a target.
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(`redis://127.0.0.1:${redisPort}`, "bbfail");
  const org = await ensureLocalOrganization(t.db);
  caller = createCaller({ db: t.db, queue, orgId: org.id, userId: null, role: "owner" });
});

afterAll(async () => {
  for (const w of workers.values()) if (w.exitCode === null) w.kill("SIGKILL");
  await queue?.close().catch(() => {});
  await stopRedis();
  for (const s of servers) {
    s.closeAllConnections?.();
    s.close();
  }
  await t?.drop();
});

describe("runs survive failures", () => {
  it("ends the run of a worker killed with SIGKILL as failed, through another worker's watchdog", async () => {
    const { url } = await httpServer((_req, res) => setTimeout(() => res.end("ok"), 50));
    startWorker("w-a");
    startWorker("w-b");
    await waitFor(async () => (await t.db.worker.count()) === 2, 30_000, "two workers");

    const launched = await launch(url, { engine: "http-closed", concurrency: 2, durationS: 60 }, 2);
    const running = await waitFor(
      async () => {
        const run = await caller.run.byId({ id: launched.id });
        return run.status === "running" && run.workerIds.length > 0 ? run : null;
      },
      20_000,
      "running",
    );
    const owner = running.workerIds[0] ?? "";
    // Let the worker store a checkpoint of what it measured, then kill it without warning.
    await waitFor(
      async () => (await t.db.runResult.findUnique({ where: { runId: launched.id } })) !== null,
      20_000,
      "a checkpoint",
    );
    workers.get(owner)?.kill("SIGKILL");

    const run = await waitFor(ended(launched.id), 20_000, "the watchdog to end the run");
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/^its worker stopped responding \(no heartbeat for \d+ s\)/);
    expect(run.error).not.toContain(owner);
    // What was measured until the checkpoint is kept, flagged as partial.
    const partial = run.result?.metrics as Record<string, number>;
    expect(partial.requests).toBeGreaterThan(0);
    expect(partial.latency_p50).toBeGreaterThanOrEqual(45);
    expect(run.result?.valid).toBe(false);
    expect(run.result?.invalidReasons[0]).toMatch(/^partial result: checkpoint after \d+ s/);
    expect(await t.db.series.count({ where: { runId: launched.id, metric: "rps" } })).toBe(1);

    // The group goes on: its second repetition starts on the surviving worker.
    const second = launched.groupRunIds[1] ?? "";
    const next2 = await waitFor(
      async () => {
        const r = await caller.run.byId({ id: second });
        return r.status === "running" ? r : null;
      },
      20_000,
      "the next repetition to start",
    );
    expect(next2.workerIds).not.toContain(owner);
    await caller.run.cancel({ id: second });
    expect((await waitFor(ended(second), 20_000, "the repetition to cancel")).status).toBe("canceled");

    // The surviving worker still takes new runs.
    const next = await launch(url, { engine: "http-closed", concurrency: 2, requests: 20 });
    const after = await waitFor(ended(next.id), 30_000, "the next run");
    expect(after.status).toBe("succeeded");
    expect(after.workerIds[0]).not.toBe(owner);
    for (const w of workers.values()) if (w.exitCode === null) w.kill("SIGTERM");
    await waitFor(
      async () => [...workers.values()].every((w) => w.exitCode !== null || w.signalCode !== null),
      15_000,
      "workers to stop",
    );
    workers.clear();
  });

  it("finishes a run whose Redis restarts mid-run, and keeps taking runs afterwards", async () => {
    const { url } = await httpServer((_req, res) => setTimeout(() => res.end("ok"), 5));
    startWorker("w-redis");
    await waitFor(async () => (await t.db.worker.findUnique({ where: { id: "w-redis" } })) !== null, 30_000, "worker");

    const launched = await launch(url, { engine: "http-closed", concurrency: 2, durationS: 4 });
    await waitFor(async () => (await caller.run.byId({ id: launched.id })).status === "running", 20_000, "running");
    await stopRedis();
    await new Promise((r) => setTimeout(r, 1_000));
    await startRedis();

    const run = await waitFor(ended(launched.id), 30_000, "the run to end");
    expect(run.status).toBe("succeeded");
    expect((run.result?.metrics as Record<string, number>).requests).toBeGreaterThan(0);

    // Redis lost its data (no persistence); the worker reconnects and takes the next job.
    const next = await launch(url, { engine: "http-closed", concurrency: 1, requests: 10 });
    const after = await waitFor(ended(next.id), 40_000, "a run after the restart");
    expect(after.status).toBe("succeeded");
    expect((after.result?.metrics as Record<string, number>).requests).toBe(10);
  });

  it("fails a run whose target stops answering mid-run, keeping what was measured before", async () => {
    const target = await httpServer((_req, res) => setTimeout(() => res.end("ok"), 5));
    setTimeout(() => {
      target.server.close();
      target.server.closeAllConnections();
    }, 1_500);
    const launched = await launch(target.url, { engine: "http-closed", concurrency: 2, durationS: 6 });
    const run = await waitFor(ended(launched.id), 30_000, "the run to end");
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/^target stopped answering for the last \d+ s of \d+ s: .*ECONNREFUSED/);
    const m = run.result?.metrics as Record<string, number>;
    expect(m.success).toBeGreaterThan(0);
    expect(m.failed).toBeGreaterThan(0);
  });
});
