import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createCaller, runLifecycleDeps } from "@benchboard/api";
import { ensureLocalOrganization, startRunWatchdog } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createQueueFor, createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEnded, workerProcesses } from "../test/worker-processes";

// A run's life across process failures, with real worker processes, Redis, PostgreSQL and an
// HTTP target: groups never stall, and a worker told to stop ends its runs cleanly.
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bblife-${randomBytes(4).toString("hex")}`;

let t: TestDatabase;
let queue: Queue;
let caller: ReturnType<typeof createCaller>;
let server: http.Server;
let url: string;
const workers = workerProcesses(() => ({
  DATABASE_URL: t.url,
  REDIS_URL: redisUrl,
  BENCHBOARD_QUEUE_PREFIX: prefix,
  BENCHBOARD_RUN_STALE_AFTER_MS: "3000",
}));

async function launchGroup(spec: object, repetitions: number) {
  const project = await caller.project.create({ name: `p-${randomBytes(3).toString("hex")}` });
  const target = await caller.target.create({ projectId: project.id, name: "svc", kind: "http", baseUrl: url });
  const scenario = await caller.scenario.create({ projectId: project.id, name: "s", spec: spec as never });
  return caller.run.launch({ targetId: target.id, scenarioId: scenario.id, repetitions });
}

const runOf = (id: string) => caller.run.byId({ id });

beforeAll(async () => {
  server = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 20));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await createTestDatabase();
  // Test servers listen on 127.0.0.1, which this install's operator allows as a target.
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(redisUrl, prefix);
  const org = await ensureLocalOrganization(t.db);
  caller = createCaller({ db: t.db, queue, orgId: org.id, userId: null, role: "owner" });
});

afterAll(async () => {
  await workers.stopAll();
  await queue?.close().catch(() => {});
  server?.closeAllConnections();
  server?.close();
  await t?.drop();
});

describe("run lifecycle", () => {
  it("with only the web app's watchdog alive, a group whose worker was killed mid-run ends every run", async () => {
    // The web app's watchdog, wired as apps/web/src/server/context.ts wires it.
    const queueFor = createQueueFor(redisUrl, prefix, queue);
    const stopWatchdog = startRunWatchdog(t.db, { ...runLifecycleDeps(queueFor), staleAfterMs: 3_000, everyMs: 500 });
    try {
      workers.start("w-only");
      await workers.announced(t.db, "w-only");
      const launched = await launchGroup({ engine: "http-closed", concurrency: 2, durationS: 2 }, 3);
      const [first, second, third] = launched.groupRunIds as [string, string, string];
      await workers.until(
        () => runOf(first),
        (r) => r.status === "running",
        20_000,
        "the first run to start",
      );
      await workers.signal("w-only", "SIGKILL");

      // No worker is alive: the web app's watchdog ends the run and queues the next of the group.
      const dead = await workers.until(
        () => runOf(first),
        (r) => isEnded(r.status),
        20_000,
        "the watchdog to end the first run",
      );
      expect(dead.status).toBe("failed");
      expect(dead.error).toMatch(/^its worker stopped responding/);
      await workers.until(
        () => t.db.run.findUnique({ where: { id: second } }),
        (r) => r.dispatchedAt !== null,
        10_000,
        "the second run to be queued again",
      );
      expect((await runOf(second)).status).toBe("queued");

      // The worker comes back: the rest of the group runs, one after another.
      workers.start("w-only-again");
      const all = await workers.until(
        () => Promise.all([first, second, third].map(runOf)),
        (runs) => runs.every((r) => isEnded(r.status)),
        60_000,
        "every run of the group to end",
      );
      expect(all.map((r) => r.status)).toEqual(["failed", "succeeded", "succeeded"]);
      expect(await t.db.run.count({ where: { groupId: first, status: { in: ["queued", "running"] } } })).toBe(0);
      // Back to back: the third started after the second ended.
      expect(all[2]!.startedAt!.getTime()).toBeGreaterThanOrEqual(all[1]!.endedAt!.getTime());
    } finally {
      stopWatchdog();
      await workers.stopAll();
    }
  });

  it("on SIGTERM a worker ends its run canceled with what it measured, and the group goes on elsewhere", async () => {
    workers.start("w-stopping", { BENCHBOARD_WORKER_SHUTDOWN_S: "10" });
    await workers.announced(t.db, "w-stopping");
    const launched = await launchGroup({ engine: "http-closed", concurrency: 2, durationS: 120 }, 2);
    const [first, second] = launched.groupRunIds as [string, string];
    await workers.until(
      () => runOf(first),
      (r) => r.status === "running",
      20_000,
      "the first run to start",
    );
    // A second worker joins; the first is told to stop after measuring for a while.
    workers.start("w-staying", { BENCHBOARD_WORKER_SHUTDOWN_S: "10" });
    await workers.announced(t.db, "w-staying");
    await new Promise((r) => setTimeout(r, 2_000));
    const signaledAt = Date.now();
    const stopping = await workers.signal("w-stopping", "SIGTERM");
    const tookMs = Date.now() - signaledAt;

    const run = await runOf(first);
    expect(stopping.exitCode).toBe(0);
    expect(tookMs).toBeLessThan(10_000);
    expect(run.status).toBe("canceled");
    expect(run.error).toBe("worker shutting down; partial results kept");
    const metrics = run.result?.metrics as Record<string, number>;
    expect(metrics.requests).toBeGreaterThan(20);
    expect(metrics.success).toBe(metrics.requests);
    expect(await t.db.series.count({ where: { runId: first, metric: "rps" } })).toBe(1);
    // The worker left the list of workers.
    expect(await t.db.worker.findUnique({ where: { id: "w-stopping" } })).toBeNull();

    // The group goes on on the other worker.
    const next = await workers.until(
      () => runOf(second),
      (r) => r.status === "running",
      20_000,
      "the second run to start on the other worker",
    );
    expect(next.workerIds).toEqual(["w-staying"]);
    await caller.run.cancel({ id: second });
    const canceled = await workers.until(
      () => runOf(second),
      (r) => isEnded(r.status),
      20_000,
      "the second run to stop",
    );
    expect(canceled.status).toBe("canceled");
    expect(canceled.error).toBe("canceled by request");
    await workers.stopAll();
  });
});
