import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, endActiveRuns, type TestDatabase, verifyLoopbackOrigin } from "../testing";
import { type CreatedRun, type DispatchableRun, launchRuns, type MergeShards, reapStaleRuns } from "./run-lifecycle";

// The run lifecycle against real PostgreSQL. Dispatch is the module's own seam (the queue is
// another package): here it records what would be queued, or refuses like a Redis that is down.
let t: TestDatabase;
let orgId: string;
let targetId: string;
let scenarioId: string;
let chatScenarioId: string;
const dispatched: DispatchableRun[] = [];
const dispatch = async (run: DispatchableRun) => {
  dispatched.push(run);
};
const noMerge: MergeShards = () => null;

beforeAll(async () => {
  t = await createTestDatabase();
  const org = await t.db.organization.create({ data: { name: "L", slug: "l", caps: { maxConcurrentRuns: 2 } } });
  orgId = org.id;
  // A tenant that has verified its target's origin.
  await verifyLoopbackOrigin(t.db, orgId);
  const project = await t.db.project.create({ data: { orgId, name: "P", slug: "p" } });
  const target = await t.db.target.create({
    data: { orgId, projectId: project.id, name: "svc", kind: "http", baseUrl: "http://127.0.0.1:9" },
  });
  targetId = target.id;
  const scenario = await t.db.scenario.create({
    data: {
      orgId,
      projectId: project.id,
      name: "open",
      engine: "http-open",
      spec: { engine: "http-open", rate: 100, durationS: 10, maxConnections: 4 },
    },
  });
  scenarioId = scenario.id;
  const chat = await t.db.scenario.create({
    data: {
      orgId,
      projectId: project.id,
      name: "chat",
      engine: "ws-chat",
      spec: { engine: "ws-chat", users: 4, rooms: 2, messagesPerUser: 1 },
    },
  });
  chatScenarioId = chat.id;
});

afterAll(async () => {
  await t?.drop();
});

const endAll = () => endActiveRuns(t.db, orgId);

describe("creating runs", () => {
  it("stores overrides and shards on every run of the launch, in one transaction", async () => {
    const { runs } = await launchRuns(
      t.db,
      orgId,
      { targetId, scenarioId, repetitions: 2, shards: 2, overrides: { rate: 40, durationS: 3 } },
      dispatch,
    );
    expect(runs).toHaveLength(2);
    const stored = await t.db.run.findMany({
      where: { id: { in: runs.map((r) => r.id) } },
      orderBy: { number: "asc" },
    });
    for (const run of stored) {
      expect(run.shardCount).toBe(2);
      expect(run.scenarioSnapshot).toMatchObject({
        spec: { rate: 40, durationS: 3, maxConnections: 4 },
        overrides: { rate: 40, durationS: 3 },
      });
      expect(run.groupId).toBe(runs[0]!.id);
    }
    // Only the first is queued; its shard rows exist.
    expect(dispatched.at(-1)).toMatchObject({ id: runs[0]!.id, shardCount: 2 });
    expect(stored[0]!.dispatchedAt).not.toBeNull();
    expect(stored[1]!.dispatchedAt).toBeNull();
    expect(await t.db.runShard.count({ where: { runId: runs[0]!.id } })).toBe(2);
    await endAll();
  });

  it("refuses, naming the field, an override over the caps, a split the scenario cannot take, or a useless override", async () => {
    const before = await t.db.run.count();
    await expect(
      launchRuns(t.db, orgId, { targetId, scenarioId, overrides: { rate: 50_000 } }, dispatch),
    ).rejects.toMatchObject({ field: "rate", message: expect.stringContaining("the organization allows at most") });
    await expect(launchRuns(t.db, orgId, { targetId, scenarioId, shards: 5 }, dispatch)).rejects.toMatchObject({
      field: "shards",
      message: "maxConnections (4) is below the shard count",
    });
    await expect(
      launchRuns(t.db, orgId, { targetId, scenarioId: chatScenarioId, overrides: { concurrency: 3 } }, dispatch),
    ).rejects.toMatchObject({ field: "concurrency" });
    await expect(
      launchRuns(t.db, orgId, { targetId, scenarioId, workerLabel: "nowhere" }, dispatch),
    ).rejects.toMatchObject({ field: "workerLabel" });
    expect(await t.db.run.count()).toBe(before);
  });

  it("creates a sweep's runs through the same path: one group, each value within the caps, one slot", async () => {
    const { sweep, runs } = await launchRuns(
      t.db,
      orgId,
      {
        targetId,
        scenarioId,
        shards: 2,
        sweep: { name: "rates", parameter: "scenario.rate", values: [10, 20, 30], metric: "rps" },
      },
      dispatch,
    );
    expect(sweep?.name).toBe("rates");
    expect(runs.map((r) => r.sweepValue)).toEqual([10, 20, 30]);
    expect(new Set(runs.map((r) => r.shardCount))).toEqual(new Set([2]));
    const stored = await t.db.run.findMany({ where: { sweepId: sweep!.id }, select: { groupId: true } });
    expect(new Set(stored.map((r) => r.groupId))).toEqual(new Set([runs[0]!.id]));
    // A value over the caps refuses the whole sweep, naming the value.
    await expect(
      launchRuns(
        t.db,
        orgId,
        {
          targetId,
          scenarioId,
          sweep: { name: "too", parameter: "scenario.rate", values: [10, 99_999], metric: "rps" },
        },
        dispatch,
      ),
    ).rejects.toMatchObject({ field: "values.1" });
    await endAll();
  });

  it("keeps a launch the queue refused queued, and the watchdog dispatches it once the queue answers", async () => {
    let redisUp = false;
    const flaky = async (run: DispatchableRun) => {
      if (!redisUp) throw new Error("the job queue (Redis) did not answer within 5 s");
      dispatched.push(run);
    };
    const logged: string[] = [];
    const { runs } = await launchRuns(t.db, orgId, { targetId, scenarioId, repetitions: 3 }, flaky, (l) =>
      logged.push(l),
    );
    expect(logged).toEqual([
      `run ${runs[0]!.id} stays queued until the job queue answers: the job queue (Redis) did not answer within 5 s`,
    ]);
    const stored = await t.db.run.findMany({ where: { groupId: runs[0]!.id }, orderBy: { groupIndex: "asc" } });
    expect(stored.map((r) => [r.status, r.dispatchedAt])).toEqual(Array(3).fill(["queued", null]));

    // Past the launch's own grace, while Redis is still away: nothing changes, nothing fails.
    const later = new Date(Date.now() + 5_000);
    const opts = { dispatch: flaky, mergeShards: noMerge, staleAfterMs: 10_000, now: later };
    expect((await reapStaleRuns(t.db, opts)).continued).toEqual([]);
    expect(await t.db.run.count({ where: { groupId: runs[0]!.id, status: "queued", dispatchedAt: null } })).toBe(3);

    // Redis answers again: exactly the group's first run goes on the queue, once.
    redisUp = true;
    const before = dispatched.length;
    expect((await reapStaleRuns(t.db, opts)).continued).toEqual([runs[0]!.id]);
    expect((await reapStaleRuns(t.db, opts)).continued).toEqual([]);
    expect(dispatched.slice(before).map((r) => r.id)).toEqual([runs[0]!.id]);
    const first = await t.db.run.findUniqueOrThrow({ where: { id: runs[0]!.id } });
    expect(first.dispatchedAt).not.toBeNull();
    await endAll();
  });

  it("re-creates the job of a dispatched run that is still waiting (Redis restarted empty)", async () => {
    const { runs } = await launchRuns(t.db, orgId, { targetId, scenarioId }, dispatch);
    const run = runs[0]!;
    const before = dispatched.length;
    // Dispatched a moment ago: left alone.
    const soon = await reapStaleRuns(t.db, { dispatch, mergeShards: noMerge, staleAfterMs: 10_000 });
    expect(soon.redispatched).toEqual([]);
    // Still queued well after its dispatch: its job is put on the queue again (same job id).
    const later = new Date(Date.now() + 30_000);
    const reaped = await reapStaleRuns(t.db, { dispatch, mergeShards: noMerge, staleAfterMs: 10_000, now: later });
    expect(reaped.redispatched).toEqual([run.id]);
    expect(dispatched.slice(before).map((r) => r.id)).toEqual([run.id]);
    // Once a worker claimed it, it is not dispatched again.
    await t.db.run.update({ where: { id: run.id }, data: { status: "running", heartbeatAt: later, startedAt: later } });
    expect(
      (await reapStaleRuns(t.db, { dispatch, mergeShards: noMerge, staleAfterMs: 60_000, now: later })).redispatched,
    ).toEqual([]);
    await endAll();
  });

  it("fails a launch the queue never took after the give-up time, naming the reason", async () => {
    const down = async () => {
      throw new Error("the job queue (Redis) did not answer within 5 s");
    };
    const { runs } = await launchRuns(t.db, orgId, { targetId, scenarioId, repetitions: 2 }, down);
    const opts = { dispatch: down, mergeShards: noMerge, staleAfterMs: 10_000, queueGiveUpMs: 60_000 };
    // Before the give-up time: still queued.
    expect((await reapStaleRuns(t.db, { ...opts, now: new Date(Date.now() + 30_000) })).gaveUp).toEqual([]);
    const reaped = await reapStaleRuns(t.db, { ...opts, now: new Date(Date.now() + 61_000) });
    expect(reaped.gaveUp.sort()).toEqual(runs.map((r) => r.id).sort());
    const failed = await t.db.run.findMany({ where: { id: { in: runs.map((r) => r.id) } } });
    expect(failed.map((r) => [r.status, r.error])).toEqual(
      Array(2).fill(["failed", "could not queue the run: the job queue (Redis) did not take it for 1 min"]),
    );
    // The slot is free again.
    const next = await launchRuns(t.db, orgId, { targetId, scenarioId }, dispatch);
    expect(next.runs).toHaveLength(1);
    await endAll();
  });
});

describe("reaping", () => {
  it("continues a group whose worker died between ending one run and queuing the next", async () => {
    const { runs } = await launchRuns(t.db, orgId, { targetId, scenarioId, repetitions: 3 }, dispatch);
    const [first, second] = runs as [CreatedRun, CreatedRun];
    const long = new Date(Date.now() - 60_000);
    // The first ran and ended; the worker died before it queued the second.
    await t.db.run.update({ where: { id: first.id }, data: { status: "succeeded", endedAt: long, queuedAt: long } });
    await t.db.run.updateMany({ where: { groupId: first.id }, data: { queuedAt: long } });
    const reaped = await reapStaleRuns(t.db, { dispatch, mergeShards: noMerge, staleAfterMs: 10_000 });
    expect(reaped.continued).toEqual([second.id]);
    expect(dispatched.at(-1)?.id).toBe(second.id);
    // Reaping again does not queue the group's third run beside the second.
    expect((await reapStaleRuns(t.db, { dispatch, mergeShards: noMerge, staleAfterMs: 10_000 })).continued).toEqual([]);
    await endAll();
  });

  it("ends a run whose heartbeat stopped and starts the next of its group", async () => {
    const { runs } = await launchRuns(t.db, orgId, { targetId, scenarioId, repetitions: 2 }, dispatch);
    const [first, second] = runs as [CreatedRun, CreatedRun];
    const long = new Date(Date.now() - 60_000);
    await t.db.run.update({
      where: { id: first.id },
      data: { status: "running", startedAt: long, heartbeatAt: long, workerIds: ["gone"] },
    });
    const reaped = await reapStaleRuns(t.db, { dispatch, mergeShards: noMerge, staleAfterMs: 10_000 });
    expect(reaped.endedRuns).toEqual([first.id]);
    expect(dispatched.at(-1)?.id).toBe(second.id);
    const ended = await t.db.run.findUniqueOrThrow({ where: { id: first.id } });
    expect(ended.status).toBe("failed");
    expect(ended.error).toMatch(/^its worker stopped responding \(no heartbeat for 60 s\)/);
    await endAll();
  });
});
