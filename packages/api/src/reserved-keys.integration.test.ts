import { randomBytes } from "node:crypto";
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
