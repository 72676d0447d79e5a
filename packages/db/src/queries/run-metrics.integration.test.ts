import { instanceConfigLabel, snapshotLoadLabel } from "@benchboard/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client";
import type { RunStatus } from "../generated/prisma/enums";
import { applyMigrations } from "../migrate";
import { createDatabaseBeforeMigration, createTestDatabase, type TestDatabase } from "../testing";
import { checkpointRun, finishRun, type ListRunsParams, listRuns, type RunMetricFilter } from "./run";
import { getTrend } from "./trend";

// Metric sorts and filters read the RunMetric table. On a fixture with ties, missing metrics,
// values that are not numbers and approximate published figures, every ordering and filter must
// give exactly the runs, in exactly the order, that the query reading each result's JSON gave.
let t: TestDatabase;
let orgId: string;
let otherOrgId: string;
const projectIds: string[] = [];

/** A small seeded generator, so the fixture is the same on every run. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A run's result with only these metrics. */
const result = (metrics: Record<string, number>) => ({
  metrics,
  statusCounts: {},
  errors: [],
  stages: {},
  valid: true,
  invalidReasons: [],
  saturationReasons: [],
  series: {},
});

const STATUSES: RunStatus[] = ["succeeded", "succeeded", "succeeded", "failed", "canceled", "running"];

beforeAll(async () => {
  t = await createTestDatabase();
  const db = t.db;
  orgId = (await db.organization.create({ data: { name: "Org", slug: "org" } })).id;
  otherOrgId = (await db.organization.create({ data: { name: "Other", slug: "other" } })).id;
  for (const slug of ["gw", "chat"]) {
    projectIds.push((await db.project.create({ data: { orgId, name: slug, slug } })).id);
  }
  const otherProject = await db.project.create({ data: { orgId: otherOrgId, name: "gw", slug: "gw" } });
  const rand = random(42);
  for (let i = 1; i <= 90; i++) {
    const run = await db.run.create({
      data: {
        orgId,
        projectId: projectIds[i % 2]!,
        number: i,
        status: STATUSES[i % STATUSES.length]!,
        scenarioName: `scenario ${i % 3}`,
        createdAt: new Date(Date.UTC(2026, 9, 1) + i * 3_600_000),
      },
    });
    if (i % 10 === 0) continue; // no result at all
    const metrics: Record<string, unknown> = {
      // Few distinct values: many ties, broken by id.
      rps: [1_000, 2_000, 2_000, 3_500, 4_990][Math.floor(rand() * 5)],
      requests: Math.floor(rand() * 100_000),
    };
    if (i % 4 !== 0) metrics.latency_p99 = Math.round(rand() * 5_000) / 100;
    if (i % 3 === 0) metrics["stage.queue_wait"] = rand() < 0.5 ? 0.4 : Math.round(rand() * 1000) / 1000;
    if (i % 7 === 0) metrics["custom gauge"] = -Math.floor(rand() * 10);
    if (i % 11 === 0) metrics.rps = "fast"; // not a number: as good as missing
    if (i % 13 === 0) metrics.latency_p99 = null;
    if (i % 17 === 0) metrics.requests = { nested: 1 };
    // Published figures are stored as the number printed (`~20` as 20); the approximation is a
    // note in `extra`, never a different stored value.
    const extra = i % 9 === 0 ? { published: { latency_p99: { approximate: true, printed: "~20" } } } : undefined;
    if (extra) metrics.latency_p99 = 20;
    await db.runResult.create({
      data: { runId: run.id, metrics: metrics as Prisma.InputJsonValue, ...(extra ? { extra } : {}) },
    });
  }
  // A result whose metrics are not an object, and another organization's runs with high values.
  const odd = await db.run.create({ data: { orgId, projectId: projectIds[0]!, number: 91, status: "succeeded" } });
  await db.runResult.create({ data: { runId: odd.id, metrics: [1, 2, 3] } });
  for (let i = 1; i <= 5; i++) {
    const run = await db.run.create({ data: { orgId: otherOrgId, projectId: otherProject.id, number: i } });
    await db.runResult.create({ data: { runId: run.id, metrics: { rps: 9_000 + i, latency_p99: 0.1 } } });
  }
});

afterAll(async () => {
  await t?.drop();
});

interface Reference {
  key: string;
  descending: boolean;
  filters?: RunMetricFilter[];
  projectId?: string;
  status?: RunStatus;
}

/** What the list read before RunMetric: each result's JSON, numbers only, NULLS LAST, ties by id. */
async function jsonQuery(ref: Reference): Promise<string[]> {
  const value = (key: string) =>
    Prisma.sql`(CASE WHEN jsonb_typeof(rr.metrics -> ${key}) = 'number' THEN (rr.metrics ->> ${key})::float8 END)`;
  const where: Prisma.Sql[] = [Prisma.sql`r."orgId" = ${orgId}`];
  if (ref.projectId) where.push(Prisma.sql`r."projectId" = ${ref.projectId}`);
  if (ref.status) where.push(Prisma.sql`r.status::text = ${ref.status}`);
  for (const f of ref.filters ?? []) {
    where.push(Prisma.sql`${value(f.key)} IS NOT NULL`);
    if (f.min !== undefined) where.push(Prisma.sql`${value(f.key)} >= ${f.min}`);
    if (f.max !== undefined) where.push(Prisma.sql`${value(f.key)} <= ${f.max}`);
  }
  const direction = Prisma.raw(ref.descending ? "DESC" : "ASC");
  const rows = await t.db.$queryRaw<{ id: string }[]>`
    SELECT r.id FROM "Run" r LEFT JOIN "RunResult" rr ON rr."runId" = r.id
    WHERE ${Prisma.join(where, " AND ")}
    ORDER BY ${value(ref.key)} ${direction} NULLS LAST, r.id DESC`;
  return rows.map((r) => r.id);
}

async function pages(params: ListRunsParams, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 200; page++) {
    const res = await listRuns(t.db, orgId, { ...params, limit, cursor });
    seen.push(...res.items.map((r) => r.id));
    if (!res.nextCursor) return seen;
    cursor = res.nextCursor;
  }
  throw new Error("pagination did not end");
}

const CASES: { name: string; ref: Reference; params: ListRunsParams }[] = [
  { name: "rps, highest first", ref: { key: "rps", descending: true }, params: { sort: "rps" } },
  { name: "p99, lowest first", ref: { key: "latency_p99", descending: false }, params: { sort: "p99" } },
  {
    name: "p99 highest first",
    ref: { key: "latency_p99", descending: true },
    params: { sort: "metric", sortMetric: "latency_p99", order: "desc" },
  },
  {
    name: "a stage (lower is better by default)",
    ref: { key: "stage.queue_wait", descending: false },
    params: { sort: "metric", sortMetric: "stage.queue_wait" },
  },
  {
    name: "a custom key with a space",
    ref: { key: "custom gauge", descending: false },
    params: { sort: "metric", sortMetric: "custom gauge", order: "asc" },
  },
  {
    name: "requests (some not numbers; neutral, so lowest first by default)",
    ref: { key: "requests", descending: false },
    params: { sort: "metric", sortMetric: "requests" },
  },
  {
    name: "rps named as a metric (higher is better, so highest first by default)",
    ref: { key: "rps", descending: true },
    params: { sort: "metric", sortMetric: "rps" },
  },
  {
    name: "rps within a project and status",
    ref: { key: "rps", descending: true, projectId: "p0", status: "succeeded" },
    params: { sort: "rps", projectId: "p0", status: "succeeded" },
  },
  {
    name: "p99 filtered to 10–30 ms (published ~20 included)",
    ref: { key: "latency_p99", descending: false, filters: [{ key: "latency_p99", min: 10, max: 30 }] },
    params: { sort: "p99", metrics: [{ key: "latency_p99", min: 10, max: 30 }] },
  },
  {
    name: "rps sorted, filtered on p99 ≤ 20 and a stage",
    ref: {
      key: "rps",
      descending: true,
      filters: [
        { key: "latency_p99", max: 20 },
        { key: "stage.queue_wait", min: 0 },
      ],
    },
    params: {
      sort: "rps",
      metrics: [
        { key: "latency_p99", max: 20 },
        { key: "stage.queue_wait", min: 0 },
      ],
    },
  },
];

describe("metric sorts and filters read RunMetric and agree with the JSON query", () => {
  it("the fixture has ties, missing metrics and an approximate published value", async () => {
    const ties = await t.db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM (SELECT value FROM "RunMetric" WHERE key = 'rps' AND "orgId" = ${orgId}
      GROUP BY value HAVING count(*) > 1) tied`;
    expect(Number(ties[0]?.n)).toBeGreaterThanOrEqual(3);
    const withRps = await t.db.runMetric.count({ where: { orgId, key: "rps" } });
    expect(withRps).toBeGreaterThan(40);
    expect(withRps).toBeLessThan(91);
    expect(await t.db.runMetric.count({ where: { orgId, key: "latency_p99", value: 20 } })).toBeGreaterThanOrEqual(9);
  });

  it.each(CASES)("$name: same runs in the same order, whole list and every page size", async ({ ref, params }) => {
    const resolved = { ...ref, projectId: ref.projectId === "p0" ? projectIds[0] : ref.projectId };
    const input = { ...params, projectId: params.projectId === "p0" ? projectIds[0] : params.projectId };
    const expected = await jsonQuery(resolved);
    expect(expected.length).toBeGreaterThan(0);
    expect((await listRuns(t.db, orgId, { ...input, limit: 200 })).items.map((r) => r.id)).toEqual(expected);
    for (const limit of [1, 7, 50]) expect(await pages(input, limit)).toEqual(expected);
  });

  it("a metric filter under the newest-first sort keeps creation order", async () => {
    const filters = [{ key: "rps", min: 2_000, max: 3_500 }];
    const expected = await t.db.$queryRaw<{ id: string }[]>`
      SELECT r.id FROM "Run" r JOIN "RunResult" rr ON rr."runId" = r.id
      WHERE r."orgId" = ${orgId} AND jsonb_typeof(rr.metrics -> 'rps') = 'number'
        AND (rr.metrics ->> 'rps')::float8 BETWEEN 2000 AND 3500
      ORDER BY r."createdAt" DESC, r.id DESC`;
    expect(expected.length).toBeGreaterThan(5);
    expect(await pages({ metrics: filters }, 4)).toEqual(expected.map((r) => r.id));
  });

  it("two metric filters under the oldest-first sort, within a project, page like the JSON query", async () => {
    const expected = await t.db.$queryRaw<{ id: string }[]>`
      SELECT r.id FROM "Run" r JOIN "RunResult" rr ON rr."runId" = r.id
      WHERE r."orgId" = ${orgId} AND r."projectId" = ${projectIds[0]}
        AND jsonb_typeof(rr.metrics -> 'rps') = 'number' AND (rr.metrics ->> 'rps')::float8 >= 1000
        AND jsonb_typeof(rr.metrics -> 'latency_p99') = 'number' AND (rr.metrics ->> 'latency_p99')::float8 <= 30
      ORDER BY r."createdAt" ASC, r.id ASC`;
    expect(expected.length).toBeGreaterThan(3);
    const params = {
      sort: "oldest" as const,
      projectId: projectIds[0],
      metrics: [
        { key: "rps", min: 1_000 },
        { key: "latency_p99", max: 30 },
      ],
    };
    for (const limit of [1, 3, 50]) expect(await pages(params, limit)).toEqual(expected.map((r) => r.id));
  });

  it("metric rows carry their run's creation time, also when it is corrected", async () => {
    const stale = await t.db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM "RunMetric" m JOIN "Run" r ON r.id = m."runId" WHERE m."runCreatedAt" <> r."createdAt"`;
    expect(Number(stale[0]?.n)).toBe(0);
    const row = await t.db.runMetric.findFirstOrThrow({ where: { orgId, key: "rps" } });
    const corrected = new Date(Date.UTC(2020, 0, 2, 3, 4, 5, 678));
    await t.db.run.update({ where: { id: row.runId }, data: { createdAt: corrected } });
    const rows = await t.db.runMetric.findMany({ where: { runId: row.runId }, select: { runCreatedAt: true } });
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.runCreatedAt).toEqual(corrected);
  });

  it("refuses a sort without a metric and an empty range, naming the field", async () => {
    await expect(listRuns(t.db, orgId, { sort: "metric" })).rejects.toMatchObject({ field: "sortMetric" });
    await expect(listRuns(t.db, orgId, { metrics: [{ key: "rps", min: 5, max: 1 }] })).rejects.toMatchObject({
      field: "metrics.0.max",
    });
    const bad = Buffer.from(JSON.stringify({ v: "1e999", id: "x" })).toString("base64url");
    await expect(listRuns(t.db, orgId, { sort: "rps", cursor: bad })).rejects.toMatchObject({ field: "cursor" });
  });

  it("rows follow the result in the same transaction: replaced, rolled back, deleted", async () => {
    const run = await t.db.run.create({
      data: { orgId, projectId: projectIds[0]!, number: 500, status: "running", startedAt: new Date() },
    });
    await finishRun(t.db, run.id, { status: "succeeded", result: result({ rps: 10, latency_p99: 5 }) });
    const rows = () =>
      t.db.runMetric.findMany({
        where: { runId: run.id },
        orderBy: { key: "asc" },
        select: { key: true, value: true },
      });
    expect(await rows()).toEqual([
      { key: "latency_p99", value: 5 },
      { key: "rps", value: 10 },
    ]);
    // A run ends once; its stored result can still be rewritten (a repair, a re-import).
    await t.db.runResult.update({ where: { runId: run.id }, data: { metrics: { rps: 12 } } });
    expect(await rows()).toEqual([{ key: "rps", value: 12 }]);
    await expect(
      t.db.$transaction(async (tx) => {
        await tx.runResult.update({ where: { runId: run.id }, data: { metrics: { rps: 99 } } });
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(await rows()).toEqual([{ key: "rps", value: 12 }]);
    await t.db.run.delete({ where: { id: run.id } });
    expect(await rows()).toEqual([]);
  });
});

describe("a checkpoint beside the run's end", () => {
  it("waits for an ending in flight and then writes nothing over the final result", async () => {
    const run = await t.db.run.create({
      data: { orgId, projectId: projectIds[0]!, number: 501, status: "running", startedAt: new Date() },
    });
    // Another connection ends the run (as finishRun does: the row first, then the result) and
    // has not committed when the checkpoint arrives.
    const ender = new pg.Client({ connectionString: t.url });
    await ender.connect();
    try {
      await ender.query("BEGIN");
      await ender.query(`UPDATE "Run" SET status = 'succeeded', "endedAt" = now() WHERE id = $1`, [run.id]);
      await ender.query(`INSERT INTO "RunResult" ("runId", metrics) VALUES ($1, '{"rps": 100}')`, [run.id]);
      const checkpoint = checkpointRun(t.db, run.id, result({ rps: 1 }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await ender.query("COMMIT");
      expect(await checkpoint).toBe(false);
    } finally {
      await ender.end();
    }
    const stored = await t.db.runResult.findUniqueOrThrow({ where: { runId: run.id }, select: { metrics: true } });
    expect(stored.metrics).toEqual({ rps: 100 });
  });
});

describe("trends read RunMetric", () => {
  it("gives each run of the line the value its result's JSON holds (null where it has none)", async () => {
    for (const metric of ["rps", "latency_p99", "stage.queue_wait"]) {
      const trend = await getTrend(t.db, orgId, { projectId: projectIds[0]!, scenarioName: "scenario 0", metric });
      const expected = await t.db.$queryRaw<{ id: string; v: number | null }[]>`
        SELECT r.id, CASE WHEN jsonb_typeof(rr.metrics -> ${metric}) = 'number' THEN (rr.metrics ->> ${metric})::float8 END AS v
        FROM "Run" r LEFT JOIN "RunResult" rr ON rr."runId" = r.id
        WHERE r."orgId" = ${orgId} AND r."projectId" = ${projectIds[0]!} AND r."scenarioName" = 'scenario 0'
          AND r.status = 'succeeded'
        ORDER BY r."createdAt", r.number`;
      expect(expected.length).toBeGreaterThan(5);
      expect(trend.points.map((p) => [p.runId, p.value])).toEqual(expected.map((r) => [r.id, r.v]));
      expect(trend.metrics).toContain("rps");
    }
  });

  it("labels each point's config and load as its whole snapshots do", async () => {
    const configs = [
      { instanceType: "t3.xlarge", name: "big", cpuLimit: 2, replicas: 3 },
      { name: "laptop" },
      { instanceType: "c6i.large", cpuLimit: 0.5 },
      null,
    ];
    const scenarios = [
      { engine: "http-open", spec: { rate: 5_000, durationS: 60, url: "/x" } },
      { engine: "http-closed", spec: { concurrency: 64, requests: 100_000 } },
      { engine: "ws-chat", spec: { users: 500, rooms: 10, messagesPerUser: 20, durationS: 30 } },
      { engine: "http-open" },
      null,
    ];
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const run = await t.db.run.create({
        data: {
          orgId,
          projectId: projectIds[1]!,
          number: 1_000 + i,
          status: "succeeded",
          scenarioName: "labels",
          createdAt: new Date(Date.UTC(2026, 10, 1, 0, 0, i, 7)),
          ...(i % 3 === 0 ? {} : { startedAt: new Date(Date.UTC(2026, 10, 1, 0, 0, i, 500)) }),
          configSnapshot: configs[i % configs.length] ?? Prisma.DbNull,
          scenarioSnapshot: scenarios[i % scenarios.length] ?? Prisma.DbNull,
        },
      });
      await t.db.runResult.create({ data: { runId: run.id, metrics: { rps: 100 + i } } });
      ids.push(run.id);
    }
    const trend = await getTrend(t.db, orgId, { projectId: projectIds[1]!, scenarioName: "labels", metric: "rps" });
    expect(trend.points.map((p) => p.runId)).toEqual(ids);
    const labels = ids.map((_, i) => ({
      config: instanceConfigLabel(configs[i % configs.length]) ?? null,
      load: snapshotLoadLabel(scenarios[i % scenarios.length]) ?? null,
    }));
    expect(trend.points.map((p) => ({ config: p.config, load: p.load }))).toEqual(labels);
    expect(new Set(labels.map((l) => l.config)).size).toBe(4);
    expect(new Set(labels.map((l) => l.load)).size).toBeGreaterThanOrEqual(4);
    expect(trend.configs).toEqual([...new Set(labels.flatMap((l) => (l.config ? [l.config] : [])))].sort());
    expect(trend.loads).toEqual([...new Set(labels.flatMap((l) => (l.load ? [l.load] : [])))].sort());
    // Times to the millisecond: started where it started, else created.
    expect(trend.points.map((p) => p.at.getTime())).toEqual(
      ids.map((_, i) => Date.UTC(2026, 10, 1, 0, 0, i, i % 3 === 0 ? 7 : 500)),
    );
  });

  it("gives each point its run's number, branch, commit, time and exclusion as stored", async () => {
    const trend = await getTrend(t.db, orgId, { projectId: projectIds[0]!, scenarioName: "scenario 0", metric: "rps" });
    const runs = await t.db.run.findMany({
      where: { id: { in: trend.points.map((p) => p.runId) } },
      select: {
        id: true,
        number: true,
        branch: true,
        commit: true,
        createdAt: true,
        startedAt: true,
        excluded: true,
        excludedReason: true,
      },
    });
    const byId = new Map(runs.map((r) => [r.id, r]));
    expect(trend.points.length).toBeGreaterThan(5);
    for (const p of trend.points) {
      const r = byId.get(p.runId)!;
      expect(p.at).toBeInstanceOf(Date);
      expect([p.number, p.branch, p.commit, p.at.getTime(), p.excluded, p.excludedReason]).toEqual([
        r.number,
        r.branch,
        r.commit,
        (r.startedAt ?? r.createdAt).getTime(),
        r.excluded,
        r.excludedReason,
      ]);
    }
  });
});

describe("the migration back-fills RunMetric from stored results", () => {
  let scratch: Awaited<ReturnType<typeof createDatabaseBeforeMigration>>;

  beforeAll(async () => {
    scratch = await createDatabaseBeforeMigration("_run_metrics");
  });

  afterAll(async () => {
    await scratch?.drop();
  });

  it("writes one row per stored numeric metric, with the run's organization, and nothing else", async () => {
    const c = new pg.Client({ connectionString: scratch.url });
    await c.connect();
    try {
      await c.query(`
        INSERT INTO "Organization" (id, name, slug, "updatedAt") VALUES ('o1', 'One', 'one', now()), ('o2', 'Two', 'two', now());
        INSERT INTO "Project" (id, "orgId", name, slug, "updatedAt") VALUES ('p1', 'o1', 'p', 'p', now()), ('p2', 'o2', 'p', 'p', now());
        INSERT INTO "Run" (id, "orgId", "projectId", number, "updatedAt") VALUES
          ('r1', 'o1', 'p1', 1, now()), ('r2', 'o1', 'p1', 2, now()), ('r3', 'o2', 'p2', 1, now()),
          ('r4', 'o2', 'p2', 2, now()), ('r5', 'o2', 'p2', 3, now());
        INSERT INTO "RunResult" ("runId", metrics) VALUES
          ('r1', '{"rps": 4990.5, "latency_p99": 12.25, "stage.queue_wait": 0.4}'),
          ('r2', '{"rps": "fast", "latency_p99": null, "nested": {"a": 1}, "requests": 60000}'),
          ('r3', '{"rps": 1e-7, "huge": 1e400}'),
          ('r4', '[1, 2]');`);
      const { applied } = await applyMigrations(scratch.url);
      expect(applied.some((m) => m.endsWith("_run_metrics"))).toBe(true);
      const { rows } = await c.query(`SELECT "runId", "orgId", key, value FROM "RunMetric" ORDER BY "runId", key`);
      expect(rows).toEqual([
        { runId: "r1", orgId: "o1", key: "latency_p99", value: 12.25 },
        { runId: "r1", orgId: "o1", key: "rps", value: 4990.5 },
        { runId: "r1", orgId: "o1", key: "stage.queue_wait", value: 0.4 },
        { runId: "r2", orgId: "o1", key: "requests", value: 60000 },
        { runId: "r3", orgId: "o2", key: "rps", value: 1e-7 },
      ]);
      // After the migration the trigger keeps new results in step.
      await c.query(`INSERT INTO "RunResult" ("runId", metrics) VALUES ('r5', '{"rps": 7}')`);
      const later = await c.query(`SELECT key, value FROM "RunMetric" WHERE "runId" = 'r5'`);
      expect(later.rows).toEqual([{ key: "rps", value: 7 }]);
    } finally {
      await c.end();
    }
  });
});
