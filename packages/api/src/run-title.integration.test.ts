import { randomBytes } from "node:crypto";
import { ensureLocalOrganization } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "./root";
import type { Context } from "./trpc";

// A run is named for the load it ran wherever it is named: run page, lists (project overview,
// compare picker), comparisons and share links. Real PostgreSQL and Redis.
let t: TestDatabase;
let queue: Queue;
const prefix = `bbtest-${randomBytes(4).toString("hex")}`;
let orgId: string;
let userId: string;
let projectId: string;
/** The sweep's runs in launch order: rates 100, 200, 400, 800, each twice. */
const sweepRuns: string[] = [];

const owner = () => createCaller({ db: t.db, queue, orgId, userId, role: "owner" } satisfies Context);
const anonymous = () => createCaller({ db: t.db, queue, orgId: null, userId: null, role: null });

const SCENARIO = "checkout 200 rps, 20 s";
const RATES = [100, 200, 400, 800];
const THIRD_VALUE_TITLE = "Run #5 · 400 req/s · 20 s · t3.xlarge · rate = 400 (value 3 of 4) · repetition 1 of 2";

beforeAll(async () => {
  t = await createTestDatabase();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
  orgId = (await ensureLocalOrganization(t.db)).id;
  userId = (await t.db.user.create({ data: { email: "titles@example.com" } })).id;
  projectId = (await t.db.project.create({ data: { orgId, name: "Checkout", slug: "checkout" } })).id;
  // Stored as a sweep launch stores them: value by value, each value's repetitions back to back,
  // the swept value written into the scenario snapshot the run ran with.
  const sweep = await t.db.sweep.create({
    data: { orgId, projectId, name: "rate sweep", parameter: "scenario.rate", values: RATES, repetitions: 2 },
  });
  const groupId = `group-${randomBytes(4).toString("hex")}`;
  for (const [v, rate] of RATES.entries()) {
    for (let r = 0; r < 2; r++) {
      const groupIndex = v * 2 + r;
      const run = await t.db.run.create({
        data: {
          orgId,
          projectId,
          number: groupIndex + 1,
          status: "succeeded",
          source: "launched",
          scenarioName: SCENARIO,
          sweepId: sweep.id,
          sweepValue: rate,
          groupId,
          groupIndex,
          scenarioSnapshot: { name: SCENARIO, engine: "http-open", spec: { engine: "http-open", rate, durationS: 20 } },
          configSnapshot: { name: "gateway", instanceType: "t3.xlarge", vcpu: 4 },
          createdAt: new Date(Date.UTC(2026, 10, 1, 0, groupIndex)),
        },
      });
      await t.db.runResult.create({ data: { runId: run.id, metrics: { rps: rate * 0.99, latency_p99: 12 } } });
      sweepRuns.push(run.id);
    }
  }
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

describe("a run's title says the load that ran", () => {
  it("names a sweep value's rate, its place among the values and its repetition on the run page", async () => {
    const third = sweepRuns[4]!;
    expect((await owner().run.byId({ id: third })).title).toBe(THIRD_VALUE_TITLE);
    expect((await owner().run.view({ id: third })).run.title).toBe(THIRD_VALUE_TITLE);
    // Not the scenario's "200 rps": the run ran at 400.
    expect(THIRD_VALUE_TITLE).not.toContain("200");
  });

  it("uses the same title in the runs list (project overview, compare picker)", async () => {
    const list = await owner().run.list({ projectId, limit: 20 });
    const byId = new Map(list.items.map((r) => [r.id, r.title]));
    expect(byId.get(sweepRuns[4]!)).toBe(THIRD_VALUE_TITLE);
    expect(byId.get(sweepRuns[7]!)).toBe(
      "Run #8 · 800 req/s · 20 s · t3.xlarge · rate = 800 (value 4 of 4) · repetition 2 of 2",
    );
  });

  it("uses it in a comparison and on its share link, instance type included", async () => {
    const saved = await owner().comparison.create({
      title: "rates",
      runIds: [sweepRuns[0]!, sweepRuns[4]!],
      baselineRunId: sweepRuns[0]!,
    });
    const signedIn = (await owner().comparison.byId({ id: saved.id })).view;
    expect(signedIn.runs.map((r) => r.title)).toEqual([
      "Run #1 · 100 req/s · 20 s · t3.xlarge · rate = 100 (value 1 of 4) · repetition 1 of 2",
      THIRD_VALUE_TITLE,
    ]);
    const comparison = await anonymous().share.view({
      token: (await owner().share.create({ comparisonId: saved.id })).token,
    });
    if (comparison.kind !== "comparison") throw new Error(`expected a comparison, got ${comparison.kind}`);
    expect(comparison.comparison.view.runs.map((r) => [r.title, r.identity])).toEqual(
      signedIn.runs.map((r) => [r.title, r.identity]),
    );
    const run = await anonymous().share.view({ token: (await owner().share.create({ runId: sweepRuns[4]! })).token });
    if (run.kind !== "run") throw new Error(`expected a run, got ${run.kind}`);
    expect(run.run.run.title).toBe(THIRD_VALUE_TITLE);
  });
});

describe("repetitions launched without a sweep", () => {
  it("say which of how many each is in a comparison, as on the run page", async () => {
    const groupId = `plain-${randomBytes(4).toString("hex")}`;
    // A project of their own, so the trend filter's configs below stay the sweep's.
    const project = await t.db.project.create({ data: { orgId, name: "Repeats", slug: "repeats" } });
    const ids: string[] = [];
    for (let r = 0; r < 3; r++) {
      const run = await t.db.run.create({
        data: {
          orgId,
          projectId: project.id,
          number: 100 + r,
          status: "succeeded",
          source: "launched",
          scenarioName: SCENARIO,
          groupId,
          groupIndex: r,
          scenarioSnapshot: {
            name: SCENARIO,
            engine: "http-open",
            spec: { engine: "http-open", rate: 200, durationS: 20 },
          },
          configSnapshot: { name: "gateway", instanceType: "t3.xlarge", vcpu: 4 },
        },
      });
      await t.db.runResult.create({ data: { runId: run.id, metrics: { rps: 198, latency_p99: 12 } } });
      ids.push(run.id);
    }
    const saved = await owner().comparison.create({
      title: "repeats",
      runIds: [ids[0]!, ids[2]!],
      baselineRunId: ids[0]!,
    });
    const titles = (await owner().comparison.byId({ id: saved.id })).view.runs.map((r) => r.title);
    expect(titles).toEqual([
      "Run #100 · 200 req/s · 20 s · t3.xlarge · repetition 1 of 3",
      "Run #102 · 200 req/s · 20 s · t3.xlarge · repetition 3 of 3",
    ]);
    // The run page says the same.
    expect((await owner().run.view({ id: ids[2]! }))?.run.title).toBe(titles[1]);
  });
});

describe("Trends' config filter", () => {
  it("lists instance configs by name, so two configs on one instance type are two choices", async () => {
    for (let i = 0; i < 6; i++) {
      const workers = i < 3 ? 4 : 8;
      const run = await t.db.run.create({
        data: {
          orgId,
          projectId,
          number: 100 + i,
          status: "succeeded",
          scenarioName: "steady",
          scenarioSnapshot: { engine: "http-open", spec: { engine: "http-open", rate: 500, durationS: 20 } },
          configSnapshot: { name: `gateway ${workers} workers`, instanceType: "t3.xlarge", knobs: { workers } },
          createdAt: new Date(Date.UTC(2026, 10, 2, 0, i)),
        },
      });
      await t.db.runResult.create({ data: { runId: run.id, metrics: { rps: 500 } } });
    }
    const trend = await owner().trend.view({ projectId, scenarioName: "steady", metric: "rps" });
    expect(trend.configs).toEqual(["gateway 4 workers (t3.xlarge)", "gateway 8 workers (t3.xlarge)"]);
    const eight = await owner().trend.view({
      projectId,
      scenarioName: "steady",
      metric: "rps",
      config: "gateway 8 workers (t3.xlarge)",
    });
    expect(eight.points.map((p) => p.number)).toEqual([103, 104, 105]);
  });
});
