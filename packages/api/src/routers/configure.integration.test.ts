import { randomBytes } from "node:crypto";
import { ensureLocalOrganization } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCaller } from "../root";
import type { Context } from "../trpc";

// Instance configs, scenarios, projects and launching against real PostgreSQL and Redis (no
// worker: launched runs stay queued, which is what the caps and group checks need).
let t: TestDatabase;
let queue: Queue;
let orgId: string;

function caller(overrides: Partial<Context> = {}) {
  return createCaller({ db: t.db, queue, orgId, userId: null, role: "member", ...overrides });
}

beforeAll(async () => {
  t = await createTestDatabase();
  // Test servers listen on 127.0.0.1, which this install's operator allows as a target.
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, `bbtest-${randomBytes(4).toString("hex")}`);
  // The install's own organization: the operator trusts its origins, so no verification is needed.
  orgId = (await ensureLocalOrganization(t.db)).id;
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

async function project(name = `p-${randomBytes(3).toString("hex")}`) {
  return caller().project.create({ name });
}

describe("instance configs", () => {
  it("creates, edits, clones and deletes, keeping typed knobs", async () => {
    const p = await project();
    const config = await caller().instanceConfig.create({
      projectId: p.id,
      name: "t3.medium",
      instanceType: "t3.medium",
      vcpu: 2,
      memoryMb: 4096,
      cpuLimit: 1.5,
      replicas: 2,
      knobs: { buffer_size: 15_000, drop_excess_requests: true, mode: "fast" },
    });
    expect(config.knobs).toEqual({ buffer_size: 15_000, drop_excess_requests: true, mode: "fast" });

    const clone = await caller().instanceConfig.clone({ id: config.id, name: "t3.medium pool 10k" });
    expect(clone).toMatchObject({ vcpu: 2, memoryMb: 4096, replicas: 2, clonedFromId: config.id });
    const edited = await caller().instanceConfig.update({
      id: clone.id,
      name: "t3.medium pool 10k",
      instanceType: "t3.medium",
      vcpu: 2,
      memoryMb: 4096,
      replicas: 1,
      knobs: { ...(clone.knobs as object), initial_pool_size: 10_000 },
    });
    expect(edited.knobs).toMatchObject({ initial_pool_size: 10_000, buffer_size: 15_000 });
    expect(edited.cpuLimit).toBeNull();
    // The original is untouched by edits to its variant.
    expect((await caller().instanceConfig.byId({ id: config.id })).knobs).not.toHaveProperty("initial_pool_size");

    const list = await caller().instanceConfig.list({ projectId: p.id });
    expect(list.map((c) => [c.name, c.clonedFrom?.name ?? null])).toEqual([
      ["t3.medium", null],
      ["t3.medium pool 10k", "t3.medium"],
    ]);
    await caller().instanceConfig.delete({ id: config.id });
    expect((await caller().instanceConfig.byId({ id: clone.id })).clonedFromId).toBeNull();
  });

  it("names the field for bad values and stores nothing", async () => {
    const p = await project();
    const base = { projectId: p.id, name: "c" };
    await expect(caller().instanceConfig.create({ ...base, vcpu: -2 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { issues: [{ path: ["vcpu"], message: "must be more than 0" }] },
    });
    await expect(caller().instanceConfig.create({ ...base, replicas: 0 })).rejects.toMatchObject({
      cause: { issues: [{ path: ["replicas"], message: "at least 1" }] },
    });
    await expect(caller().instanceConfig.create({ ...base, knobs: { "9lives": 1 } })).rejects.toMatchObject({
      cause: { issues: [{ path: ["knobs", "9lives"] }] },
    });
    await caller().instanceConfig.create(base);
    await expect(caller().instanceConfig.create(base)).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "name" },
    });
    const original = await t.db.instanceConfig.findFirstOrThrow({ where: { projectId: p.id } });
    await expect(caller().instanceConfig.clone({ id: original.id, name: "c" })).rejects.toMatchObject({
      cause: { field: "name" },
    });
    expect(await t.db.instanceConfig.count({ where: { projectId: p.id } })).toBe(1);
  });
});

describe("scenarios", () => {
  it("saves each engine's spec with defaults filled in and thresholds from the vocabulary", async () => {
    const p = await project();
    const specs = [
      { engine: "http-open", rate: 5_000, durationS: 60, rampFromRate: 100, rampS: 10 },
      { engine: "http-closed", concurrency: 50, durationS: 30, rampUpS: 5 },
      { engine: "llm", rate: 20, durationS: 30, stream: true, model: "gpt-4o" },
      { engine: "ws-chat", users: 50, rooms: 20, messagesPerUser: 500, poolSize: 1000 },
    ] as const;
    for (const spec of specs) {
      const s = await caller().scenario.create({
        projectId: p.id,
        name: spec.engine,
        spec,
        thresholds: [{ metric: "latency_p99", op: "<", value: 100 }],
      });
      expect(s.engine).toBe(spec.engine);
      expect(s.spec).toMatchObject(spec);
    }
    const [open] = await caller().scenario.list({ projectId: p.id });
    expect(open?.spec).toMatchObject({ maxConnections: 1_000, warmupS: 1, request: { method: "GET", path: "/" } });
  });

  it("refuses unknown metrics, bad numbers and a closed model with no end, naming the field", async () => {
    const p = await project();
    const base = { projectId: p.id, name: "s" };
    await expect(
      caller().scenario.create({
        ...base,
        spec: { engine: "http-open", rate: 10, durationS: 10 },
        thresholds: [{ metric: "latency_p42", op: "<", value: 1 }],
      }),
    ).rejects.toMatchObject({ cause: { issues: [{ path: ["thresholds", 0, "metric"] }] } });
    await expect(
      caller().scenario.create({ ...base, spec: { engine: "http-open", rate: 0, durationS: 10 } }),
    ).rejects.toMatchObject({ cause: { issues: [{ path: ["spec", "rate"] }] } });
    await expect(
      caller().scenario.create({ ...base, spec: { engine: "http-closed", concurrency: 5 } }),
    ).rejects.toMatchObject({
      cause: { issues: [{ path: ["spec", "requests"], message: "either requests or durationS is required" }] },
    });
    expect(await t.db.scenario.count({ where: { projectId: p.id } })).toBe(0);
  });

  it("refuses a scenario over the organization's caps at the field that sets it, storing nothing", async () => {
    const p = await project();
    const spec = { engine: "http-open", rate: 100, durationS: 3_600 } as const;
    await expect(caller().scenario.create({ projectId: p.id, name: "an hour", spec })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("the organization allows at most 1,800 s"),
    });
    expect(await caller().scenario.list({ projectId: p.id })).toHaveLength(0);
    const ok = await caller().scenario.create({ projectId: p.id, name: "half", spec: { ...spec, durationS: 1_200 } });
    await expect(caller().scenario.update({ id: ok.id, name: "half", spec })).rejects.toMatchObject({
      code: "CONFLICT",
    });
  });

  it("imports a drill plan into a closed-model spec without saving it", async () => {
    const yaml = [
      "base: 'http://localhost:8000'",
      "iterations: 200",
      "concurrency: 8",
      "rampup: 2",
      "plan:",
      "  - name: list customers",
      "    request:",
      "      url: /api/customers",
      "  - name: one customer",
      "    request:",
      "      url: /api/customers/1",
    ].join("\n");
    const before = await t.db.scenario.count();
    const imported = await caller().scenario.importDrill({ yaml });
    expect(imported.spec).toMatchObject({ engine: "http-closed", concurrency: 8, requests: 200 });
    expect(imported.spec.plan?.map((s) => s.name)).toEqual(["list customers", "one customer"]);
    expect(imported.base).toBe("http://localhost:8000");
    await expect(
      caller().scenario.importDrill({ yaml: "plan:\n  - exec:\n      command: rm -rf /" }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "yaml" },
    });
    expect(await t.db.scenario.count()).toBe(before);
  });

  it("edits a scenario without changing the snapshot of a run launched before", async () => {
    const p = await project();
    const target = await caller().target.create({
      projectId: p.id,
      name: "t",
      kind: "http",
      baseUrl: "http://127.0.0.1:1",
    });
    const s = await caller().scenario.create({
      projectId: p.id,
      name: "v1",
      spec: { engine: "http-closed", concurrency: 2, requests: 10 },
    });
    const run = await caller().run.launch({ targetId: target.id, scenarioId: s.id });
    await t.db.run.update({ where: { id: run.id }, data: { status: "succeeded" } });
    await caller().scenario.update({
      id: s.id,
      name: "v2",
      spec: { engine: "http-closed", concurrency: 9, requests: 99 },
    });
    const stored = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(stored.scenarioSnapshot).toMatchObject({ name: "v1", spec: { concurrency: 2, requests: 10 } });
    await caller().scenario.delete({ id: s.id });
    expect((await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).scenarioName).toBe("v1");
  });
});

describe("projects", () => {
  it("renames, and deletes only with the project's name typed", async () => {
    const p = await project("Chat service");
    const renamed = await caller().project.update({ id: p.id, name: "Chat", description: "WebSocket chat" });
    expect(renamed).toMatchObject({ name: "Chat", slug: "chat-service", description: "WebSocket chat" });
    await expect(caller().project.delete({ id: p.id, confirmName: "Chat service" })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "confirmName" },
    });
    expect(await t.db.project.count({ where: { id: p.id } })).toBe(1);
    await caller().project.delete({ id: p.id, confirmName: "Chat" });
    expect(await t.db.project.count({ where: { id: p.id } })).toBe(0);
  });
});

describe("launch", () => {
  let targetId: string;
  let scenarioId: string;
  let projectId: string;

  beforeEach(async () => {
    // Each test starts with no active runs and the default caps.
    await t.db.run.updateMany({ where: { status: { in: ["queued", "running"] } }, data: { status: "canceled" } });
    await t.db.organization.update({ where: { id: orgId }, data: { caps: {} } });
    const p = await project();
    projectId = p.id;
    targetId = (await caller().target.create({ projectId, name: "t", kind: "http", baseUrl: "http://127.0.0.1:1" })).id;
    scenarioId = (
      await caller().scenario.create({
        projectId,
        name: "open",
        spec: { engine: "http-open", rate: 500, durationS: 20 },
      })
    ).id;
  });

  it("queues repetitions as one group and enqueues only the first", async () => {
    const configId = (await caller().instanceConfig.create({ projectId, name: "c", knobs: { concurrency: 4 } })).id;
    const launched = await caller().run.launch({
      targetId,
      scenarioId,
      instanceConfigId: configId,
      repetitions: 3,
      tags: ["rep"],
    });
    expect(launched.groupRunIds).toHaveLength(3);
    const runs = await t.db.run.findMany({ where: { id: { in: launched.groupRunIds } }, orderBy: { number: "asc" } });
    expect(runs.map((r) => [r.number, r.groupId, r.groupIndex, r.status])).toEqual([
      [1, launched.id, 0, "queued"],
      [2, launched.id, 1, "queued"],
      [3, launched.id, 2, "queued"],
    ]);
    expect(runs.every((r) => (r.configSnapshot as { knobs: object }).knobs)).toBe(true);
    expect(await queue.getJob(runs[0]!.id)).toBeTruthy();
    expect(await queue.getJob(runs[1]!.id)).toBeUndefined();
    expect(await queue.getJob(runs[2]!.id)).toBeUndefined();
    // A group counts once against the concurrent-run cap.
    expect((await caller().project.caps()).activeRuns).toBe(1);
  });

  it("refuses a scenario over the rate cap at the scenario field, creating nothing", async () => {
    await t.db.organization.update({ where: { id: orgId }, data: { caps: { maxRate: 100 } } });
    expect((await caller().project.caps()).caps).toMatchObject({ maxRate: 100, maxConnections: 2_000 });
    const before = await t.db.run.count();
    await expect(caller().run.launch({ targetId, scenarioId, repetitions: 2 })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: {
        field: "scenarioId",
        message: 'scenario "open" asks for 500 req/s; the organization allows at most 100 req/s',
      },
    });
    expect(await t.db.run.count()).toBe(before);
    expect((await t.db.project.findUniqueOrThrow({ where: { id: projectId } })).runCounter).toBe(0);
  });

  it("refuses a launch beyond the concurrent-run cap", async () => {
    await t.db.organization.update({ where: { id: orgId }, data: { caps: { maxConcurrentRuns: 1 } } });
    await caller().run.launch({ targetId, scenarioId });
    await expect(caller().run.launch({ targetId, scenarioId })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: {
        field: "maxConcurrentRuns",
        message: "1 run is already queued or running; the organization allows 1 at a time",
      },
    });
    expect(await t.db.run.count({ where: { projectId } })).toBe(1);
  });

  it("names the field for bad repetitions, tags and references", async () => {
    await expect(caller().run.launch({ targetId, scenarioId, repetitions: 0 })).rejects.toMatchObject({
      cause: { issues: [{ path: ["repetitions"], message: "at least 1" }] },
    });
    await expect(caller().run.launch({ targetId, scenarioId, tags: ["a,b"] })).rejects.toMatchObject({
      cause: { issues: [{ path: ["tags", 0], message: "tags cannot contain commas" }] },
    });
    await expect(caller().run.launch({ targetId, scenarioId, instanceConfigId: "nope" })).rejects.toMatchObject({
      code: "NOT_FOUND",
      cause: { field: "instanceConfigId" },
    });
    expect(await t.db.run.count({ where: { projectId } })).toBe(0);
  });

  it("lists launched runs through the procedure with filters and cursor", async () => {
    await caller().run.launch({ targetId, scenarioId, repetitions: 3, tags: ["listed"] });
    const first = await caller({ role: "viewer" }).run.list({ projectId, tag: "listed", limit: 2 });
    expect(first.items.map((r) => r.number)).toEqual([3, 2]);
    const second = await caller().run.list({ projectId, tag: "listed", limit: 2, cursor: first.nextCursor });
    expect(second.items.map((r) => r.number)).toEqual([1]);
    expect(second.nextCursor).toBeUndefined();
    const tomorrow = new Date(Date.now() + 86_400_000);
    expect((await caller().run.list({ projectId, from: tomorrow })).items).toEqual([]);
    await expect(caller().run.list({ cursor: "bogus" })).rejects.toMatchObject({ code: "CONFLICT" });
  });
});
