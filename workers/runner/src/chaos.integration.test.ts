import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createCaller } from "@benchboard/api";
import { ensureLocalOrganization } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { type PrivatePostgres, startPrivatePostgres } from "@benchboard/db/testing-server";
import { createQueueFor, createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { type PrivateRedis, startPrivateRedis } from "@benchboard/jobs/testing";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isEnded, workerProcesses } from "../test/worker-processes";

// Infrastructure failing under real processes: a worker process, a Redis and a PostgreSQL of
// the test's own (stopped and started again here; the shared services are never touched), and an
// HTTP target. Each case asserts exact end states and counts.
let server: http.Server;
let targetUrl: string;
const workers = workerProcesses();
const { logs, waitFor } = workers;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function setUp(t: TestDatabase, queue: Queue, queueFor?: ReturnType<typeof createQueueFor>) {
  await allowLoopbackTargets(t.db);
  const org = await ensureLocalOrganization(t.db);
  const caller = createCaller({
    db: t.db,
    queue,
    ...(queueFor ? { queueFor } : {}),
    orgId: org.id,
    userId: null,
    role: "owner",
  });
  const project = await caller.project.create({ name: `p-${randomBytes(3).toString("hex")}` });
  const target = await caller.target.create({ projectId: project.id, name: "svc", kind: "http", baseUrl: targetUrl });
  const launch = async (spec: object, repetitions = 1) => {
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: `s-${randomBytes(3).toString("hex")}`,
      spec: spec as never,
    });
    return caller.run.launch({ targetId: target.id, scenarioId: scenario.id, repetitions });
  };
  return { caller, launch };
}

beforeAll(async () => {
  server = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 10));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await workers.stopAll();
  server?.closeAllConnections();
  server?.close();
});

describe("chaos: Redis stopped mid-group and started again empty", () => {
  let redis: PrivateRedis;
  let t: TestDatabase;
  let queue: Queue;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    t = await createTestDatabase();
    queue = createRunsQueue(redis.url, "chaos");
  });
  afterAll(async () => {
    await workers.stopAll();
    await queue?.close().catch(() => {});
    await redis?.stop().catch(() => {});
    await t?.drop();
  });

  it("ends every run of the group succeeded, each run once, and a launch made while Redis was down runs too", async () => {
    const queueFor = createQueueFor(redis.url, "chaos", queue);
    const { caller, launch } = await setUp(t, queue, queueFor);
    workers.start("w-redis", { DATABASE_URL: t.url, REDIS_URL: redis.url, BENCHBOARD_QUEUE_PREFIX: "chaos" });
    await workers.announced(t.db, "w-redis");

    const group = await launch({ engine: "http-closed", concurrency: 2, durationS: 3 }, 3);
    const [first, second, third] = group.groupRunIds as [string, string, string];
    await workers.until(
      () => t.db.run.findUnique({ where: { id: first } }),
      (r) => r.status === "running",
      20_000,
      "the first run to start",
    );

    // Redis goes away (SIGKILL, no persistence) while the first run is measuring.
    await redis.stop();
    // A launch while Redis is away is stored and answered; its run waits for the queue.
    const during = await launch({ engine: "http-closed", concurrency: 1, requests: 20 });
    expect(during.status).toBe("queued");

    // The first run ends on its worker; the next of the group cannot be queued and waits.
    await waitFor(
      async () => logs.join("").includes(`run ${second} stays queued until the job queue answers`),
      30_000,
      "the worker to leave the second run queued",
    );
    const waiting = await t.db.run.findMany({ where: { groupId: first }, orderBy: { groupIndex: "asc" } });
    expect(waiting.map((r) => r.status)).toEqual(["succeeded", "queued", "queued"]);
    expect(waiting[1]!.dispatchedAt).toBeNull();
    expect((await t.db.run.findUniqueOrThrow({ where: { id: during.id } })).status).toBe("queued");

    // Redis comes back empty: every job it held is gone.
    await sleep(2_000);
    await redis.start();

    const ids = [first, second, third, during.id];
    const runs = await workers.until(
      () => t.db.run.findMany({ where: { id: { in: ids } } }),
      (found) => found.length === 4 && found.every((r) => isEnded(r.status)),
      90_000,
      "every run to end",
    );
    const byId = new Map(runs.map((r) => [r.id, r]));
    expect(ids.map((id) => [byId.get(id)!.status, byId.get(id)!.error])).toEqual(Array(4).fill(["succeeded", null]));
    // Each run was taken by a worker exactly once, and the group ran back to back.
    expect(ids.map((id) => byId.get(id)!.workerIds)).toEqual(Array(4).fill(["w-redis"]));
    expect(byId.get(second)!.startedAt!.getTime()).toBeGreaterThanOrEqual(byId.get(first)!.endedAt!.getTime());
    expect(byId.get(third)!.startedAt!.getTime()).toBeGreaterThanOrEqual(byId.get(second)!.endedAt!.getTime());
    expect(await t.db.runResult.count({ where: { runId: { in: ids } } })).toBe(4);
    // Nothing else was created or left behind.
    expect(await t.db.run.count({ where: { status: { in: ["queued", "running"] } } })).toBe(0);
    const view = await caller.run.byId({ id: third });
    expect(view.status).toBe("succeeded");
    await workers.stopAll();
  });
});

describe("chaos: PostgreSQL restarted mid-run", () => {
  let pg: PrivatePostgres;
  let t: TestDatabase;
  let queue: Queue;
  const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  const prefix = `bbchaos-${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    t = await createTestDatabase(pg.url);
    queue = createRunsQueue(redisUrl, prefix);
  });
  afterAll(async () => {
    await workers.stopAll();
    await queue?.close().catch(() => {});
    await t?.drop().catch(() => {});
    await pg?.destroy();
  });

  it("the run ends succeeded with its full per-second series when PostgreSQL is down as the load ends", async () => {
    const { launch } = await setUp(t, queue);
    workers.start("w-pg", { DATABASE_URL: t.url, REDIS_URL: redisUrl, BENCHBOARD_QUEUE_PREFIX: prefix });
    await workers.announced(t.db, "w-pg");
    const launched = await launch({ engine: "http-closed", concurrency: 2, durationS: 6 });
    const running = await workers.until(
      () => t.db.run.findUnique({ where: { id: launched.id } }),
      (r) => r.status === "running" && r.startedAt !== null,
      20_000,
      "the run to start",
    );
    const started = running.startedAt!;
    // Down from 3 s into the load until 4 s after it ended: progress, heartbeats and the final
    // write all meet a database that does not answer.
    await sleep(Math.max(0, started.getTime() + 3_000 - Date.now()));
    await pg.stop();
    await sleep(7_000);
    await pg.start();

    const run = await workers.until(
      () => t.db.run.findUnique({ where: { id: launched.id } }),
      (r) => isEnded(r.status),
      60_000,
      "the run to end",
    );
    expect([run.status, run.error]).toEqual(["succeeded", null]);
    expect(run.workerIds).toEqual(["w-pg"]);
    const rps = await t.db.series.findFirstOrThrow({ where: { runId: run.id, metric: "rps" } });
    // One point per second of load: nothing measured while the database was away is lost.
    const values = rps.values as (number | null)[];
    expect(values.length).toBeGreaterThanOrEqual(6);
    expect(values.slice(0, 6).every((v) => v !== null && v > 0)).toBe(true);
    const result = await t.db.runResult.findUniqueOrThrow({ where: { runId: run.id } });
    expect((result.metrics as Record<string, number>).requests).toBeGreaterThan(100);
    await workers.stopAll();
  });
});

/**
 * Catch a worker inside the transaction that stores a run's result: the per-second series are
 * the last thing it writes, so their table is held until the worker waits for it, then `act`
 * runs (kill or freeze the worker) and the table is released.
 */
async function whileStoring(t: TestDatabase, act: () => Promise<void>) {
  const released = new Error("released");
  await t.db
    .$transaction(
      async (tx) => {
        await tx.$executeRaw`LOCK TABLE "Series" IN EXCLUSIVE MODE`;
        await waitFor(
          async () => {
            const waiting = await t.db.$queryRaw<{ n: bigint }[]>`
              SELECT count(*) AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%"Series"%'`;
            return Number(waiting[0]?.n ?? 0) > 0;
          },
          20_000,
          "the worker to be storing the result",
        );
        await act();
        throw released;
      },
      { timeout: 60_000, maxWait: 10_000 },
    )
    .catch((err: unknown) => {
      if (err !== released) throw err;
    });
}

describe("chaos: a worker SIGKILLed while storing a result", () => {
  let t: TestDatabase;
  let queue: Queue;
  const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  const prefix = `bbkill-${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    t = await createTestDatabase();
    queue = createRunsQueue(redisUrl, prefix);
  });
  afterAll(async () => {
    await workers.stopAll();
    await queue?.close().catch(() => {});
    await t?.drop();
  });

  it("the run ends once, failed with the reason, and its job delivered again does not run it twice", async () => {
    const { launch } = await setUp(t, queue);
    const env = {
      DATABASE_URL: t.url,
      REDIS_URL: redisUrl,
      BENCHBOARD_QUEUE_PREFIX: prefix,
      BENCHBOARD_RUN_STALE_AFTER_MS: "3000",
    };
    workers.start("w-killed", env);
    await workers.announced(t.db, "w-killed");

    const launched = await launch({ engine: "http-closed", concurrency: 2, durationS: 3 });
    await workers.until(
      () => t.db.run.findUnique({ where: { id: launched.id } }),
      (r) => r.status === "running",
      20_000,
      "the run to start",
    );
    await whileStoring(t, async () => {
      await workers.signal("w-killed", "SIGKILL");
    });

    // Nothing of the interrupted write was kept: the run is still running, with no result.
    const interrupted = await t.db.run.findMany({ where: {}, include: { result: true } });
    expect(interrupted.map((r) => [r.status, r.result])).toEqual([["running", null]]);
    const runId = interrupted[0]!.id;

    // Another worker: its watchdog ends the run; the queue delivers the dead worker's job to it again.
    workers.start("w-other", env);
    const ended = await workers.until(
      () => t.db.run.findUniqueOrThrow({ where: { id: runId } }),
      (r) => isEnded(r.status),
      30_000,
      "the watchdog to end the run",
    );
    expect(ended.status).toBe("failed");
    expect(ended.error).toMatch(
      /^its worker stopped responding \(no heartbeat for \d+ s\); results measured until its last checkpoint are kept$/,
    );
    // The queue gives a dead worker's job to another only once its lock (30 s, renewed every 15 s)
    // has lapsed and two of the stall checks, 30 s apart, have found it: up to ~90 s after the kill.
    await waitFor(
      async () => logs.join("").includes(`run ${runId} is no longer queued; skipped`),
      150_000,
      "the stalled job to be delivered again",
    );
    const after = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    // Ended once: the same end state and time, taken by one worker only.
    expect([after.status, after.error, after.endedAt?.getTime()]).toEqual([
      ended.status,
      ended.error,
      ended.endedAt?.getTime(),
    ]);
    expect(after.workerIds).toEqual(["w-killed"]);
    expect(await t.db.run.count()).toBe(1);
    await workers.stopAll();
  }, 240_000);
});

describe("chaos: a worker frozen while storing a result, then declared dead", () => {
  let t: TestDatabase;
  let queue: Queue;
  const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  const prefix = `bbfreeze-${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    t = await createTestDatabase();
    queue = createRunsQueue(redisUrl, prefix);
  });
  afterAll(async () => {
    await workers.stopAll();
    await queue?.close().catch(() => {});
    await t?.drop();
  });

  it("ends the run once: the watchdog and the thawed worker never both end it", async () => {
    const { launch } = await setUp(t, queue);
    const env = {
      DATABASE_URL: t.url,
      REDIS_URL: redisUrl,
      BENCHBOARD_QUEUE_PREFIX: prefix,
      BENCHBOARD_RUN_STALE_AFTER_MS: "3000",
    };
    const frozen = workers.start("w-frozen", env);
    await workers.announced(t.db, "w-frozen");
    const launched = await launch({ engine: "http-closed", concurrency: 2, durationS: 3 });
    await workers.until(
      () => t.db.run.findUnique({ where: { id: launched.id } }),
      (r) => r.status === "running",
      20_000,
      "the run to start",
    );
    // Every end state the run passes through, as a reader polling it would see them.
    const ends: string[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const r = await t.db.run.findUnique({ where: { id: launched.id } });
        const end = r && isEnded(r.status) ? `${r.status}@${r.endedAt?.getTime()}` : null;
        if (end && ends.at(-1) !== end) ends.push(end);
        await sleep(50);
      }
    })();
    // Frozen (SIGSTOP) inside the transaction storing the result; another worker's watchdog
    // then finds the run's heartbeat stale; the frozen worker thaws after that.
    await whileStoring(t, async () => {
      frozen.kill("SIGSTOP");
    });
    workers.start("w-watchdog", env);
    await waitFor(
      async () => logs.join("").includes("[w-watchdog] ") && (await t.db.worker.count()) >= 1,
      30_000,
      "the second worker",
    );
    await sleep(12_000);
    frozen.kill("SIGCONT");
    await waitFor(async () => ends.length > 0, 30_000, "the run to end");
    await sleep(8_000);
    watching = false;
    await watcher;
    expect(ends).toHaveLength(1);
    const run = await t.db.run.findUniqueOrThrow({ where: { id: launched.id }, include: { result: true } });
    expect(`${run.status}@${run.endedAt?.getTime()}`).toBe(ends[0]);
    expect(run.workerIds).toEqual(["w-frozen"]);
    await workers.stopAll();
  }, 180_000);
});
