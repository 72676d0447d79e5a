import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, endActiveRuns, type TestDatabase, verifyLoopbackOrigin } from "../testing";
import { getRunView } from "./run-detail";
import { launchRuns } from "./run-lifecycle";
import { createTarget, getTarget, updateTarget } from "./target";

// A target's declared overhead stages against real PostgreSQL: stored and edited with the target,
// copied into each run's target snapshot, and ticked by default on the run page.
let t: TestDatabase;
let orgId: string;
let projectId: string;
let plainScenarioId: string;
const dispatch = async () => {};

beforeAll(async () => {
  t = await createTestDatabase();
  const org = await t.db.organization.create({ data: { name: "O", slug: "o" } });
  orgId = org.id;
  await verifyLoopbackOrigin(t.db, orgId);
  const project = await t.db.project.create({ data: { orgId, name: "P", slug: "p" } });
  projectId = project.id;
  const spec = { engine: "http-open", rate: 10, durationS: 1, maxConnections: 1 };
  plainScenarioId = (
    await t.db.scenario.create({ data: { orgId, projectId, name: "plain", engine: "http-open", spec } })
  ).id;
});

afterAll(async () => {
  await t?.drop();
});

const endAll = () => endActiveRuns(t.db, orgId);

describe("a target's overhead stages", () => {
  it("are stored on create, kept by an update that leaves them out, replaced and cleared by one that gives them", async () => {
    const base = { name: "gw", kind: "llm" as const, baseUrl: "http://127.0.0.1:9" };
    const created = await createTarget(t.db, orgId, {
      ...base,
      projectId,
      overheadStages: ["queue_wait", "key_selection"],
    });
    expect(created.overheadStages).toEqual(["queue_wait", "key_selection"]);

    await updateTarget(t.db, orgId, created.id, { ...base, name: "gw2" });
    expect((await getTarget(t.db, orgId, created.id))?.overheadStages).toEqual(["queue_wait", "key_selection"]);

    const replaced = await updateTarget(t.db, orgId, created.id, { ...base, overheadStages: ["json_marshaling"] });
    expect(replaced.overheadStages).toEqual(["json_marshaling"]);
    const cleared = await updateTarget(t.db, orgId, created.id, { ...base, overheadStages: [] });
    expect(cleared.overheadStages).toEqual([]);

    const plain = await createTarget(t.db, orgId, { ...base, name: "plain", projectId });
    expect(plain.overheadStages).toEqual([]);
  });

  it("are copied into the run's target snapshot and ticked by default, unless the scenario names its own", async () => {
    const target = await createTarget(t.db, orgId, {
      projectId,
      name: "gateway",
      kind: "llm",
      baseUrl: "http://127.0.0.1:9",
      overheadStages: ["queue_wait", "response_parsing"],
    });
    const { runs } = await launchRuns(t.db, orgId, { targetId: target.id, scenarioId: plainScenarioId }, dispatch);
    await endAll();
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runs[0]!.id } });
    expect(run.targetSnapshot).toMatchObject({ overheadStages: ["queue_wait", "response_parsing"] });

    // Editing the target later changes new runs, not this one.
    await updateTarget(t.db, orgId, target.id, {
      name: "gateway",
      kind: "llm",
      baseUrl: "http://127.0.0.1:9",
      overheadStages: ["queue_wait"],
    });
    expect((await getRunView(t.db, orgId, run.id))?.overheadStages).toEqual(["queue_wait", "response_parsing"]);

    // A scenario snapshot that names its own stages (as imported published runs do) wins.
    const snapshot = run.scenarioSnapshot as Record<string, unknown>;
    await t.db.run.update({
      where: { id: run.id },
      data: { scenarioSnapshot: { ...snapshot, overheadStages: ["request_setup"] } as never },
    });
    expect((await getRunView(t.db, orgId, run.id))?.overheadStages).toEqual(["request_setup"]);
  });

  it("leave nothing ticked when neither the target nor the scenario declares any", async () => {
    const target = await createTarget(t.db, orgId, {
      projectId,
      name: "bare",
      kind: "http",
      baseUrl: "http://127.0.0.1:9",
    });
    const { runs } = await launchRuns(t.db, orgId, { targetId: target.id, scenarioId: plainScenarioId }, dispatch);
    await endAll();
    expect((await getRunView(t.db, orgId, runs[0]!.id))?.overheadStages).toBeNull();
  });
});

describe("the target's own limit signals", () => {
  it("make a valid run's view read saturated at its rate; an invalid run stays invalid", async () => {
    const signal = "the target is the limit: its queue (queue_depth) grew from 0 to 900";
    const valid = await t.db.run.create({ data: { orgId, projectId, number: 501, status: "succeeded" } });
    await t.db.runResult.create({
      data: {
        runId: valid.id,
        metrics: { requests: 10, rps: 180.4, target_rps: 250 },
        valid: true,
        saturationReasons: [signal],
      },
    });
    const invalid = await t.db.run.create({ data: { orgId, projectId, number: 502, status: "succeeded" } });
    await t.db.runResult.create({
      data: {
        runId: invalid.id,
        metrics: { requests: 10 },
        valid: false,
        invalidReasons: ["late", signal],
        saturationReasons: [signal],
      },
    });
    const shown = await getRunView(t.db, orgId, valid.id);
    expect(shown?.result?.reading).toBe("saturated");
    expect(shown?.result?.saturationReasons).toEqual([signal]);
    expect(shown?.result?.saturation).toBe("saturated at ~180 req/s achieved of 250 offered");
    const other = await getRunView(t.db, orgId, invalid.id);
    expect(other?.result?.reading).toBe("invalid");
    expect(other?.result?.saturation).toBeNull();
    expect(other?.result?.invalidReasons).toEqual(["late", signal]);
  });
});

describe("the generator's scheduling", () => {
  /** The run view's result for a run whose engine stored `schedule` as `extra.schedule`. */
  const storedSchedule = async (number: number, schedule: object) => {
    const run = await t.db.run.create({ data: { orgId, projectId, number, status: "succeeded" } });
    await t.db.runResult.create({
      data: { runId: run.id, metrics: { requests: 10 }, valid: true, extra: { schedule } },
    });
    return (await getRunView(t.db, orgId, run.id))?.result;
  };

  it("is in a run's view when real-time was asked for, with the reason it was refused", async () => {
    const stored = async (number: number, schedule: object) => (await storedSchedule(number, schedule))?.scheduling;
    expect(await stored(601, { pacer: "thread", scheduling: "realtime" })).toEqual({ realtime: true, note: null });
    expect(await stored(602, { scheduling: "normal", schedulingNote: "not permitted" })).toEqual({
      realtime: false,
      note: "not permitted",
    });
    // Not asked for (or anything else stored there): nothing to show.
    expect(await stored(603, { pacer: "thread" })).toBeNull();
    expect(await stored(604, { scheduling: 7 })).toBeNull();
  });

  it("says whether the helper threads were put at idle priority, and why not", async () => {
    const stored = async (number: number, schedule: object) => (await storedSchedule(number, schedule))?.helperThreads;
    expect(await stored(611, { helperThreads: "idle" })).toEqual({ idle: true, note: null });
    expect(await stored(612, { helperThreads: "normal", helperThreadsNote: "not on Linux" })).toEqual({
      idle: false,
      note: "not on Linux",
    });
    expect(await stored(613, { pacer: "thread", scheduling: "realtime" })).toBeNull();
    expect(await stored(614, { helperThreads: true })).toBeNull();
  });

  it("says whether the event loop had the shortest slice, and why not", async () => {
    const stored = async (number: number, schedule: object) => (await storedSchedule(number, schedule))?.loopSlice;
    expect(await stored(621, { loopSlice: "short", helperThreads: "idle" })).toEqual({ short: true, note: null });
    expect(await stored(622, { loopSlice: "default", loopSliceNote: "perl is not installed" })).toEqual({
      short: false,
      note: "perl is not installed",
    });
    // "normal" is another field's word: not this one's.
    expect(await stored(623, { loopSlice: "normal" })).toBeNull();
    expect(await stored(624, { helperThreads: "idle" })).toBeNull();
  });

  it("says whether the pacing thread ran at SCHED_BATCH, and why not", async () => {
    const stored = async (number: number, schedule: object) => (await storedSchedule(number, schedule))?.pacingThread;
    expect(await stored(631, { loopSlice: "short", pacingThread: "batch" })).toEqual({ batch: true, note: null });
    expect(
      await stored(632, { pacingThread: "normal", pacingThreadNote: "the pacing thread's id is unknown" }),
    ).toEqual({
      batch: false,
      note: "the pacing thread's id is unknown",
    });
    expect(await stored(633, { pacingThread: "short" })).toBeNull();
    expect(await stored(634, { loopSlice: "short" })).toBeNull();
  });

  it("lists when the generator stalled and what each stall dropped, leaving out malformed records", async () => {
    const stored = async (number: number, schedule: object) => (await storedSchedule(number, schedule))?.stalls;
    expect(
      await stored(641, {
        stalls: [
          { atS: 2.5, gapMs: 3012, dropped: 61, confirmMs: 4 },
          { atS: "soon", gapMs: 1, dropped: 1 },
          { atS: 7, gapMs: 150, dropped: 3, shard: 1 },
        ],
      }),
    ).toEqual([
      { atS: 2.5, gapMs: 3012, dropped: 61, confirmMs: 4, shard: null },
      { atS: 7, gapMs: 150, dropped: 3, confirmMs: 0, shard: 1 },
    ]);
    expect(await stored(642, { stalls: "many" })).toEqual([]);
    expect(await stored(643, { pacer: "thread" })).toEqual([]);
  });
});
