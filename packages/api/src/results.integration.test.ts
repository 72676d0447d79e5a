import { randomBytes } from "node:crypto";
import { createHistogram, encodeHistogram, recordMicros, ZRunResultData } from "@benchboard/core";
import { createUploadedRun, ensureLocalOrganization, finishRun } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "./root";
import type { Context, Role } from "./trpc";

// Results procedures against real PostgreSQL and a real BullMQ queue in Redis.
let t: TestDatabase;
let queue: Queue;
const prefix = `bbtest-${randomBytes(4).toString("hex")}`;
let orgId: string;
let otherOrgId: string;
let projectId: string;
let userId: string;
const runs: string[] = [];

function as(role: Role, org = orgId): Context {
  return { db: t.db, queue, orgId: org, userId, role };
}
const owner = () => createCaller(as("owner"));
const anonymous = () => createCaller({ db: t.db, queue, orgId: null, userId: null, role: null });

async function upload(
  metrics: Record<string, number>,
  extra: { branch?: string; latenciesMs?: number[]; series?: boolean } = {},
) {
  const h = createHistogram();
  for (const ms of extra.latenciesMs ?? []) recordMicros(h, ms * 1000);
  const start = Date.UTC(2026, 0, 1);
  const result = ZRunResultData.parse({
    metrics,
    histogram: extra.latenciesMs ? encodeHistogram(h) : undefined,
    series: extra.series
      ? {
          rps: { start, intervalMs: 1000, values: [100, 110, 120] },
          latency_p99: { start: start + 1000, intervalMs: 1000, values: [9, 12] },
        }
      : {},
  });
  const { run } = await createUploadedRun(t.db, orgId, {
    projectId,
    source: "upload",
    scenarioName: "checkout",
    instanceConfig: { name: "c6i.large", vcpu: 2, knobs: { pool: 8 } },
    result,
    branch: extra.branch ?? "main",
  });
  return run.id;
}

beforeAll(async () => {
  t = await createTestDatabase();
  // Test servers listen on 127.0.0.1, which this install's operator allows as a target.
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
  orgId = (await ensureLocalOrganization(t.db)).id;
  otherOrgId = (await t.db.organization.create({ data: { slug: "other", name: "Other" } })).id;
  userId = (await t.db.user.create({ data: { email: "o@example.com" } })).id;
  projectId = (await t.db.project.create({ data: { orgId, name: "Shop", slug: "shop" } })).id;
  runs.push(await upload({ rps: 1000, latency_p99: 20, failed: 0 }, { latenciesMs: [5, 6, 7, 8, 40], series: true }));
  runs.push(await upload({ rps: 1100, latency_p99: 18, failed: 0 }));
  runs.push(await upload({ rps: 900, latency_p99: 30, failed: 3 }, { branch: "feature" }));
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

describe("comparisons", () => {
  it("compares runs against the chosen baseline with derived metrics", async () => {
    const view = await owner().comparison.view({ runIds: [runs[0]!, runs[1]!], baselineRunId: runs[1] });
    expect(view.baselineRunId).toBe(runs[1]);
    const rps = view.table.find((r) => r.key === "rps")!;
    expect(rps.cells[0]!.delta).toBeCloseTo((1000 - 1100) / 1100, 12);
    expect(rps.cells[0]!.verdict).toBe("worse");
    expect(view.table.find((r) => r.key === "rps_per_vcpu")!.cells.map((c) => c.value)).toEqual([500, 550]);
    expect(view.charts.rps).toEqual([
      { t: 0, [runs[0]!]: 100, [runs[1]!]: null },
      { t: 1, [runs[0]!]: 110, [runs[1]!]: null },
      { t: 2, [runs[0]!]: 120, [runs[1]!]: null },
    ]);
  });

  it("saves, renames, lists and deletes a comparison, refusing bad input at the field", async () => {
    const caller = owner();
    await expect(
      caller.comparison.create({ title: "x", runIds: [runs[0]!, runs[1]!], baselineRunId: runs[2]! }),
    ).rejects.toMatchObject({ code: "CONFLICT", message: "baselineRunId: the baseline must be one of the runs" });
    await expect(
      caller.comparison.create({ title: "x", runIds: [runs[0]!], baselineRunId: runs[0]! }),
    ).rejects.toMatchObject({
      cause: { issues: [{ path: ["runIds"] }] },
    });
    const saved = await caller.comparison.create({
      title: "main vs feature",
      runIds: [runs[0]!, runs[2]!],
      baselineRunId: runs[0]!,
    });
    await caller.comparison.update({ id: saved.id, title: "main against feature" });
    const list = await caller.comparison.list();
    expect(list.map((c) => c.title)).toEqual(["main against feature"]);
    const byId = await caller.comparison.byId({ id: saved.id });
    expect(byId.view.runs.map((r) => r.id)).toEqual([runs[0], runs[2]]);
    expect(byId.view.configDiff).toEqual([]);
    await caller.comparison.delete({ id: saved.id });
    await expect(caller.comparison.byId({ id: saved.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("never shows another organization's runs", async () => {
    const stranger = createCaller(as("owner", otherOrgId));
    const view = await stranger.comparison.view({ runIds: [runs[0]!, runs[1]!] });
    expect(view.runs).toEqual([]);
    expect(view.missing).toEqual([runs[0], runs[1]]);
    await expect(
      stranger.comparison.create({ title: "steal", runIds: [runs[0]!, runs[1]!], baselineRunId: runs[0]! }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("lets viewers read but not save", async () => {
    const viewer = createCaller(as("viewer"));
    await expect(viewer.comparison.view({ runIds: [runs[0]!, runs[1]!] })).resolves.toBeTruthy();
    await expect(
      viewer.comparison.create({ title: "v", runIds: [runs[0]!, runs[1]!], baselineRunId: runs[0]! }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});

describe("run page procedures", () => {
  it("decodes the stored histogram and aligns the series on one time axis", async () => {
    const view = await owner().run.view({ id: runs[0]! });
    expect(view.result!.latency!.count).toBe(5);
    expect(view.result!.latency!.buckets.reduce((n, b) => n + b.count, 0)).toBe(5);
    expect(view.result!.latency!.percentiles.find((p) => p.percentile === 50)!.ms).toBeCloseTo(7, 1);
    expect(view.result!.metrics.rps_per_vcpu).toBe(500);
    expect(view.config).toEqual({ name: "c6i.large", vcpu: 2, knobs: { pool: 8 } });
    const chart = await owner().run.chart({ id: runs[0]! });
    expect(chart.metrics).toEqual(["latency_p99", "rps"]);
    expect(chart.points).toEqual([
      { t: 0, rps: 100, latency_p99: null },
      { t: 1, rps: 110, latency_p99: 9 },
      { t: 2, rps: 120, latency_p99: 12 },
    ]);
  });

  it("edits notes and tags, and excludes only with a reason", async () => {
    const caller = owner();
    await caller.run.update({ id: runs[1]!, notes: "warm cache", tags: ["a", "b", "a"] });
    await expect(caller.run.update({ id: runs[1]!, excluded: true })).rejects.toMatchObject({
      cause: { issues: [{ path: ["excludedReason"] }] },
    });
    const updated = await caller.run.update({ id: runs[1]!, excluded: true, excludedReason: "noisy neighbour" });
    expect(updated).toMatchObject({
      notes: "warm cache",
      tags: ["a", "b"],
      excluded: true,
      excludedReason: "noisy neighbour",
    });
    await expect(createCaller(as("viewer")).run.update({ id: runs[1]!, notes: "x" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(createCaller(as("owner", otherOrgId)).run.update({ id: runs[1]!, notes: "x" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("exports the run with every series sample", async () => {
    const data = await owner().run.export({ id: runs[0]! });
    expect(data.result!.metrics.rps).toBe(1000);
    expect(data.series.map((s) => [s.metric, s.values])).toEqual([
      ["latency_p99", [9, 12]],
      ["rps", [100, 110, 120]],
    ]);
  });
});

describe("trends and targets", () => {
  it("plots a metric by branch, keeping excluded runs marked", async () => {
    const trend = await owner().trend.view({ projectId, scenarioName: "checkout", metric: "latency_p99" });
    expect(trend.points.map((p) => [p.branch, p.value, p.excluded])).toEqual([
      ["main", 20, false],
      ["main", 18, true],
      ["feature", 30, false],
    ]);
    const options = await owner().trend.options();
    expect(options.find((p) => p.id === projectId)).toMatchObject({
      scenarios: ["checkout"],
      branches: ["feature", "main"],
    });
  });

  it("filters by config and load, and says when a change point is a config switch", async () => {
    const project = await t.db.project.create({ data: { orgId, name: "Config switch", slug: "config-switch" } });
    const spec = { engine: "http-open", spec: { engine: "http-open", rate: 5000, durationS: 60 } };
    const fast = { engine: "http-open", spec: { engine: "http-open", rate: 500, durationS: 15 } };
    // Eight runs on t3.medium near 4,000 req/s, then eight on t3.xlarge near 5,000, and one
    // lighter run: the jump is the config switch, not a regression or an improvement.
    const runs = [
      ...Array.from({ length: 8 }, (_, i) => ({ config: "t3.medium", rps: 4000 + (i % 3) * 10, snapshot: spec })),
      ...Array.from({ length: 8 }, (_, i) => ({ config: "t3.xlarge", rps: 5000 + (i % 3) * 10, snapshot: spec })),
      { config: "t3.xlarge", rps: 500, snapshot: fast },
    ];
    for (const [i, r] of runs.entries()) {
      const run = await t.db.run.create({
        data: {
          orgId,
          projectId: project.id,
          number: i + 1,
          status: "succeeded",
          scenarioName: "5k",
          branch: "main",
          scenarioSnapshot: r.snapshot,
          configSnapshot: { name: `gw ${r.config}`, instanceType: r.config },
          createdAt: new Date(Date.UTC(2026, 9, 1 + i)),
        },
      });
      await t.db.runResult.create({ data: { runId: run.id, metrics: { rps: r.rps } } });
    }
    const all = await owner().trend.view({ projectId: project.id, scenarioName: "5k", metric: "rps" });
    expect(all.configs).toEqual(["gw t3.medium", "gw t3.xlarge"]);
    expect(all.loads).toEqual(["5,000 req/s · 60 s", "500 req/s · 15 s"]);
    const atSwitch = all.changePoints.find((c) => c.number === 9);
    expect(atSwitch?.configChange).toEqual({ from: "gw t3.medium", to: "gw t3.xlarge" });
    expect(atSwitch?.loadChange).toBeNull();

    const xlarge = await owner().trend.view({
      projectId: project.id,
      scenarioName: "5k",
      metric: "rps",
      config: "gw t3.xlarge",
      load: "5,000 req/s · 60 s",
    });
    expect(xlarge.points.map((p) => p.number)).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
    expect(xlarge.changePoints).toEqual([]);
  });

  it("filters by shard count in the query, and says when a change point is a shard count switch", async () => {
    const project = await t.db.project.create({ data: { orgId, name: "Shard switch", slug: "shard-switch" } });
    const spec = { engine: "http-open", spec: { engine: "http-open", rate: 5000, durationS: 60 } };
    // Eight runs on one shard near 3,000 req/s, then eight split four ways near 5,000.
    for (let i = 0; i < 16; i++) {
      const run = await t.db.run.create({
        data: {
          orgId,
          projectId: project.id,
          number: i + 1,
          status: "succeeded",
          scenarioName: "5k",
          branch: "main",
          shardCount: i < 8 ? 1 : 4,
          scenarioSnapshot: spec,
          configSnapshot: { name: "gw", instanceType: "t3.xlarge" },
          createdAt: new Date(Date.UTC(2026, 9, 1 + i)),
        },
      });
      await t.db.runResult.create({ data: { runId: run.id, metrics: { rps: (i < 8 ? 3000 : 5000) + (i % 3) * 10 } } });
    }
    const all = await owner().trend.view({ projectId: project.id, scenarioName: "5k", metric: "rps" });
    expect(all.shardCounts).toEqual([1, 4]);
    expect(all.points.map((p) => p.shards)).toEqual([...Array(8).fill(1), ...Array(8).fill(4)]);
    const atSwitch = all.changePoints.find((c) => c.number === 9);
    expect(atSwitch?.shardsChange).toEqual({ from: 1, to: 4 });
    expect(atSwitch?.configChange).toBeNull();

    const four = await owner().trend.view({ projectId: project.id, scenarioName: "5k", metric: "rps", shards: 4 });
    expect(four.points.map((p) => p.number)).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
    expect(four.changePoints).toEqual([]);
    // The picker still offers every shard count of the line.
    expect(four.shardCounts).toEqual([1, 4]);
    await expect(
      owner().trend.view({ projectId: project.id, scenarioName: "5k", metric: "rps", shards: 0 }),
    ).rejects.toMatchObject({ cause: { issues: [{ path: ["shards"], message: "shards must be at least 1" }] } });
  });

  it("stores project thresholds and refuses unknown metrics at the field", async () => {
    const caller = owner();
    await expect(
      caller.trend.setThresholds({ projectId, thresholds: [{ metric: "no_such", op: "<", value: 1 }] }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("not a known metric"),
    });
    await caller.trend.setThresholds({ projectId, thresholds: [{ metric: "latency_p99", op: "<", value: 25 }] });
    expect(await caller.trend.thresholds({ projectId })).toEqual([{ metric: "latency_p99", op: "<", value: 25 }]);
    const trend = await caller.trend.view({ projectId, scenarioName: "checkout", metric: "latency_p99" });
    expect(trend.thresholds).toEqual([{ metric: "latency_p99", op: "<", value: 25 }]);
  });
});

describe("verdicts on derived metrics", () => {
  it("judges a launched run's targets on req/s per vCPU from its config snapshot", async () => {
    const project = await t.db.project.create({
      data: {
        orgId,
        name: "Per vCPU",
        slug: "per-vcpu",
        thresholds: [{ metric: "rps_per_vcpu", op: ">", value: 100 }],
      },
    });
    const run = await t.db.run.create({
      data: { orgId, projectId: project.id, number: 1, status: "running", configSnapshot: { vcpu: 4, cpuLimit: 2 } },
    });
    await finishRun(t.db, run.id, { status: "succeeded", result: ZRunResultData.parse({ metrics: { rps: 300 } }) });
    const stored = await t.db.runResult.findUniqueOrThrow({ where: { runId: run.id } });
    expect(stored.thresholdResults).toEqual([
      { metric: "rps_per_vcpu", op: ">", value: 100, actual: 150, passed: true, status: "pass", source: "project" },
    ]);
    // Derived values are computed when read, never stored as if measured.
    expect(stored.metrics).toEqual({ rps: 300 });
  });
});

describe("share links", () => {
  it("shows exactly the linked run to anyone with the token, until revoked", async () => {
    const link = await owner().share.create({ runId: runs[0]! });
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const shared = await anonymous().share.view({ token: link.token });
    expect(shared.kind).toBe("run");
    if (shared.kind !== "run") return;
    expect(shared.run.run.id).toBe(runs[0]);
    expect(shared.run.result!.metrics.rps).toBe(1000);
    expect(JSON.stringify(shared)).not.toContain(orgId);
    const links = await owner().share.list({ runId: runs[0]! });
    expect(links[0]!.lastViewedAt).not.toBeNull();

    await owner().share.revoke({ id: link.id });
    await expect(anonymous().share.view({ token: link.token })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "not found",
    });
  });

  it("shows a comparison with its runs, and answers NOT_FOUND alike for unknown, malformed and expired tokens", async () => {
    const saved = await owner().comparison.create({
      title: "shared",
      runIds: [runs[0]!, runs[2]!],
      baselineRunId: runs[0]!,
    });
    const link = await owner().share.create({ comparisonId: saved.id, expiresInDays: 7 });
    const shared = await anonymous().share.view({ token: link.token });
    expect(shared.kind === "comparison" && shared.comparison.view.runs.map((r) => r.id)).toEqual([runs[0], runs[2]]);

    await t.db.shareLink.update({ where: { id: link.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    for (const token of [link.token, randomBytes(32).toString("base64url"), "short", "../../etc"]) {
      await expect(anonymous().share.view({ token })).rejects.toMatchObject({
        code: "NOT_FOUND",
        message: "not found",
      });
    }
  });

  it("stores only the token's hash, and expires in 30 days unless the sharer says never", async () => {
    const link = await owner().share.create({ runId: runs[0]! });
    const row = await t.db.shareLink.findUniqueOrThrow({ where: { id: link.id } });
    expect(JSON.stringify(row)).not.toContain(link.token);
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    const days = (row.expiresAt!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect("token" in (await owner().share.list({ runId: runs[0]! }))[0]!).toBe(false);
    const never = await owner().share.create({ runId: runs[0]!, expiresInDays: null });
    expect(never.expiresAt).toBeNull();
  });

  it("shows no target URL, hostnames or scenario details unless the sharer includes them", async () => {
    await t.db.run.update({
      where: { id: runs[0]! },
      data: {
        targetSnapshot: { name: "payments", kind: "http", baseUrl: "http://10.20.30.40:8080" },
        scenarioSnapshot: { name: "steady", engine: "http-open", spec: { rate: 100, path: "/internal/admin" } },
        ciUrl: "https://ci.internal.example/job/7",
      },
    });
    const redacted = await anonymous().share.view({ token: (await owner().share.create({ runId: runs[0]! })).token });
    const text = JSON.stringify(redacted);
    for (const secret of ["10.20.30.40", "/internal/admin", "ci.internal.example"]) expect(text).not.toContain(secret);
    expect(redacted.kind === "run" && redacted.run.target).toMatchObject({
      name: "payments",
      baseUrl: "[address hidden]",
    });
    const full = await anonymous().share.view({
      token: (await owner().share.create({ runId: runs[0]!, includeTarget: true })).token,
    });
    expect(JSON.stringify(full)).toContain("http://10.20.30.40:8080");
  });

  it("lets only members of the owning organization create and revoke links", async () => {
    await expect(createCaller(as("viewer")).share.create({ runId: runs[0]! })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(createCaller(as("owner", otherOrgId)).share.create({ runId: runs[0]! })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    const link = await owner().share.create({ runId: runs[0]! });
    await expect(createCaller(as("owner", otherOrgId)).share.revoke({ id: link.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(anonymous().share.view({ token: link.token })).resolves.toBeTruthy();
    await expect(owner().share.create({ runId: runs[0]!, comparisonId: "x" })).rejects.toMatchObject({
      cause: { issues: [{ path: ["runId"] }] },
    });
  });
});

describe("sweeps", () => {
  let targetId: string;
  let scenarioId: string;
  let configId: string;

  beforeAll(async () => {
    const target = await t.db.target.create({
      data: {
        orgId,
        projectId,
        name: "api",
        kind: "http",
        baseUrl: "http://127.0.0.1:9",
        configApplyUrl: "http://127.0.0.1:9/admin/config",
      },
    });
    const bare = await t.db.target.create({
      data: { orgId, projectId, name: "bare", kind: "http", baseUrl: "http://127.0.0.1:9" },
    });
    targetId = target.id;
    scenarioId = (
      await t.db.scenario.create({
        data: {
          orgId,
          projectId,
          name: "closed",
          engine: "http-closed",
          spec: { engine: "http-closed", concurrency: 4, requests: 100 },
        },
      })
    ).id;
    configId = (
      await t.db.instanceConfig.create({
        data: { orgId, projectId, name: "small", vcpu: 2, knobs: { pool: 8, mode: "fast" } },
      })
    ).id;
    await expect(
      owner().sweep.create({
        name: "s",
        targetId: bare.id,
        scenarioId,
        parameter: "knobs.pool",
        values: [1, 2],
        metric: "rps",
      }),
    ).rejects.toMatchObject({ message: expect.stringContaining("has no config-apply URL") });
  });

  it("creates one run per value with the value in its snapshot, runs them as one group and queues only the first", async () => {
    const created = await owner().sweep.create({
      name: "pool sweep",
      targetId,
      scenarioId,
      instanceConfigId: configId,
      parameter: "knobs.pool",
      values: [16, 64, 256],
      metric: "rps",
    });
    const rows = await t.db.run.findMany({
      where: { sweepId: created.id },
      orderBy: { groupIndex: "asc" },
      select: { id: true, status: true, configSnapshot: true, sweepValue: true, groupId: true, groupIndex: true },
    });
    expect(rows.map((r) => (r.configSnapshot as { knobs: Record<string, unknown> }).knobs)).toEqual([
      { pool: 16, mode: "fast" },
      { pool: 64, mode: "fast" },
      { pool: 256, mode: "fast" },
    ]);
    expect(rows.map((r) => r.sweepValue)).toEqual([16, 64, 256]);
    expect(new Set(rows.map((r) => r.groupId))).toEqual(new Set([rows[0]!.id]));
    expect(await queue.getJob(rows[0]!.id)).toBeTruthy();
    expect(await queue.getJob(rows[1]!.id)).toBeUndefined();

    const view = await owner().sweep.byId({ id: created.id });
    expect(view.sweep.status).toBe("running");
    expect(view.rows.map((r) => r.value)).toEqual([16, 64, 256]);
    expect((await owner().sweep.list())[0]).toMatchObject({ name: "pool sweep", runCount: 3, status: "running" });
  });

  it("varies scenario fields within the organization's caps, naming the offending value", async () => {
    const created = await owner().sweep.create({
      name: "concurrency",
      targetId,
      scenarioId,
      parameter: "scenario.concurrency",
      values: [2, 8],
      metric: "rps",
    });
    const specs = await t.db.run.findMany({
      where: { sweepId: created.id },
      select: { scenarioSnapshot: true },
      orderBy: { number: "asc" },
    });
    expect(specs.map((s) => (s.scenarioSnapshot as { spec: { concurrency: number } }).spec.concurrency)).toEqual([
      2, 8,
    ]);
    await expect(
      owner().sweep.create({
        name: "x",
        targetId,
        scenarioId,
        parameter: "scenario.concurrency",
        values: [2, 20_000],
        metric: "rps",
      }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/^values\.1: scenario\.concurrency = 20000/) });
    await expect(
      owner().sweep.create({
        name: "x",
        targetId,
        scenarioId,
        parameter: "target.baseUrl",
        values: [1, 2],
        metric: "rps",
      }),
    ).rejects.toMatchObject({ cause: { issues: [{ path: ["parameter"] }] } });
  });

  it("offers the parameters a scenario and config have", async () => {
    const params = await owner().sweep.parameters({ scenarioId, instanceConfigId: configId });
    expect(params.map((p) => p.path)).toEqual(
      expect.arrayContaining([
        "knobs.pool",
        "knobs.mode",
        "scenario.concurrency",
        "scenario.requests",
        "config.cpuLimit",
      ]),
    );
  });
});
