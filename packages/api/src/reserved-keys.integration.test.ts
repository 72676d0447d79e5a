import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createApiToken, createProject } from "@benchboard/db";
import { createTestDatabase, rerunMigration, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noRateLimit } from "./rate-limit";
import { uploadRunHandler } from "./rest/runs";
import { createCaller } from "./root";

// Record keys that reach an object's prototype (`__proto__`, `constructor`, `prototype`) are
// refused at every boundary with the field named, and rows stored before are repaired so the
// views that serialize them answer again. Real PostgreSQL, the REST handler and the tRPC router.

let t: TestDatabase;
let queue: Queue;
let token = "";
let caller: ReturnType<typeof createCaller>;
const project = { id: "", slug: "" };

beforeAll(async () => {
  t = await createTestDatabase();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, `bbkeys-${randomBytes(4).toString("hex")}`);
  const org = await t.db.organization.create({
    data: { name: "Acme", slug: `acme-${randomBytes(3).toString("hex")}` },
  });
  Object.assign(project, await createProject(t.db, org.id, { name: "p" }));
  token = (
    await createApiToken(t.db, org.id, {
      name: "ci",
      scopes: ["runs:read", "runs:write"],
      projectId: null,
      createdById: null,
    })
  ).token;
  caller = createCaller({ db: t.db, queue, orgId: org.id, userId: null, role: "owner" });
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

const upload = (body: string) =>
  uploadRunHandler(
    new Request(`http://bench.test/api/v1/runs?project=${project.slug}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    }),
    { db: t.db, queue, rateLimit: noRateLimit },
  );

const send = (query: string, type: string, body: string) =>
  uploadRunHandler(
    new Request(`http://bench.test/api/v1/runs${query}${query ? "&" : "?"}project=${project.slug}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": type },
      body,
    }),
    { db: t.db, queue, rateLimit: noRateLimit },
  );

const k6Summary = readFileSync(
  new URL("../../core/src/importers/fixtures/k6/summary-export.json", import.meta.url),
  "utf8",
);

/** The migration that renames reserved keys at every depth of stored JSON. */
const REPAIR_NESTED = "20261129012600_reserved_keys_nested";

describe("reserved record keys", () => {
  it.each([
    ['{"__proto__":1,"constructor":2}', "result.metrics.__proto__"],
    ['{"rps":1,"constructor":2}', "result.metrics.constructor"],
    ['{"rps":1,"prototype":2}', "result.metrics.prototype"],
  ])("are refused in an upload's metrics %s with a 400 naming %s, and nothing is stored", async (metrics, field) => {
    const before = await t.db.run.count();
    const res = await upload(`{"schemaVersion":1,"result":{"metrics":${metrics}}}`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(field);
    expect(await t.db.run.count()).toBe(before);
  });

  it("are refused in status counts, stages and series too", async () => {
    for (const [result, field] of [
      ['{"metrics":{"rps":1},"statusCounts":{"constructor":1}}', "result.statusCounts.constructor"],
      ['{"metrics":{"rps":1},"stages":{"prototype":{"meanMs":1}}}', "result.stages.prototype"],
      ['{"metrics":{"rps":1},"series":{"constructor":{"start":0,"values":[1]}}}', "result.series.constructor"],
    ] as const) {
      const res = await upload(`{"schemaVersion":1,"result":${result}}`);
      expect(res.status, result).toBe(400);
      expect(JSON.stringify(res.body)).toContain(field);
    }
  });

  it("are refused in knobs and scenario headers on the tRPC boundary", async () => {
    await expect(
      caller.instanceConfig.create({ projectId: project.id, name: "c", knobs: { constructor: 1 } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("reserved") });
    await expect(
      caller.scenario.create({
        projectId: project.id,
        name: "s",
        spec: {
          engine: "http-closed",
          concurrency: 1,
          requests: 1,
          request: { method: "GET", path: "/", headers: { prototype: "x" } },
        },
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("reserved") });
  });

  it.each([
    [
      "a k6 summary sent as text/plain with a metric named constructor",
      "?format=k6",
      "text/plain",
      () => {
        const doc = JSON.parse(k6Summary) as { metrics: Record<string, unknown> };
        doc.metrics = { ...doc.metrics, constructor: { count: 1, rate: 1 } };
        return JSON.stringify(doc);
      },
      "metrics.constructor",
    ],
    [
      "a native run sent as text/plain, constructor in extra",
      "?format=native",
      "text/plain",
      () => '{"schemaVersion":1,"result":{"metrics":{"rps":1},"extra":{"a":{"constructor":1}}}}',
      "result.extra.a.constructor",
    ],
    [
      "a native run detected from text, prototype deep in the scenario's settings",
      "",
      "text/plain",
      () => '{"schemaVersion":1,"scenario":{"name":"s","spec":{"x":[{"prototype":1}]}},"result":{"metrics":{"rps":1}}}',
      "scenario.spec.x.0.prototype",
    ],
    [
      "a JSON envelope whose run has constructor in extra",
      "",
      "application/json",
      () => '{"run":{"schemaVersion":1,"result":{"metrics":{"rps":1},"extra":{"a":{"b":{"constructor":1}}}}}}',
      "run.result.extra.a.b.constructor",
    ],
  ])("nested at any depth are refused in %s, naming the field, and nothing is stored", async (_, query, type, body, field) => {
    const before = await t.db.run.count();
    const res = await send(query, type, body());
    expect(res.status).toBe(400);
    expect((res.body as { error: { field?: string } }).error.field).toBe(field);
    expect(JSON.stringify(res.body)).toContain("reserved");
    expect(await t.db.run.count()).toBe(before);
  });

  it("nested are refused in an upload through the UI as well", async () => {
    await expect(
      caller.upload.run({
        project: project.id,
        format: "native",
        content: '{"schemaVersion":1,"result":{"metrics":{"rps":1},"extra":{"a":{"constructor":1}}}}',
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("result.extra.a.constructor") });
  });

  it("stored nested before, are repaired by the migration: the run's page answers again, values kept", async () => {
    const ok = await upload('{"schemaVersion":1,"result":{"metrics":{"rps":6}}}');
    expect(ok.status).toBe(201);
    const runId = (ok.body as { run: { id: string } }).run.id;
    // Rows as imports stored them before every depth was checked.
    await t.db.runResult.update({
      where: { runId },
      data: { extra: { k6Metrics: { constructor: { count: 1 } }, a: [{ prototype: 2 }] } },
    });
    await t.db.run.update({
      where: { id: runId },
      data: { scenarioSnapshot: { spec: { headers: { constructor: "x" } } } },
    });
    await expect(caller.run.byId({ id: runId }).then((run) => superjson.stringify(run))).rejects.toThrow();
    await rerunMigration(t, REPAIR_NESTED);
    const result = await t.db.runResult.findUniqueOrThrow({ where: { runId } });
    expect(result.extra).toEqual({ k6Metrics: { constructor_: { count: 1 } }, a: [{ prototype_: 2 }] });
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.scenarioSnapshot).toEqual({ spec: { headers: { constructor_: "x" } } });
    expect(superjson.stringify(await caller.run.byId({ id: runId }))).toContain("constructor_");
    expect(superjson.stringify(await caller.run.view({ id: runId }))).toContain("constructor_");
  });

  it("stored before, are repaired by the migration: the run list serializes again and the values are kept", async () => {
    const ok = await upload('{"schemaVersion":1,"result":{"metrics":{"rps":5}}}');
    expect(ok.status).toBe(201);
    const runId = (ok.body as { run: { id: string } }).run.id;
    // A row as an upload stored it before the boundary refused such keys.
    await t.db.runResult.update({ where: { runId }, data: { metrics: { rps: 5, constructor: 2 } } });
    const broken = await caller.run.list({ projectId: project.id });
    expect(() => superjson.stringify(broken)).toThrow();
    await rerunMigration(t, "20261126200001_reserved_record_keys");
    const repaired = await t.db.runResult.findUniqueOrThrow({ where: { runId } });
    expect(repaired.metrics).toEqual({ rps: 5, constructor_: 2 });
    expect(() => superjson.stringify(caller.run.list({ projectId: project.id }))).not.toThrow();
    expect(superjson.stringify(await caller.run.list({ projectId: project.id }))).toContain("constructor_");
  });
});
