import { randomBytes } from "node:crypto";
import { isProbe, ZScenarioSpec } from "@benchboard/core";
import { createScenario, createTarget, PROBE_SCENARIO_NAME } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "./root";
import { createOrgFixture, type OrgFixture, sessionContext } from "./testing/org-fixture";

// "Send a probe" on a target whose origin is not verified: real PostgreSQL and a real queue
// (private prefix, no worker).
let t: TestDatabase;
let queue: Queue;
let tenant: OrgFixture;
const prefix = `bbprobe-${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  t = await createTestDatabase();
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
  tenant = await createOrgFixture(t.db, `probe-${randomBytes(3).toString("hex")}`);
});
afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

const as = async (role: "viewer" | "member") =>
  createCaller(await sessionContext({ db: t.db, queue }, tenant.users[role].sessionToken, tenant.org.slug));

describe("sending a probe", () => {
  it("launches the project's probe scenario once at an unverified origin, making the scenario on first use", async () => {
    // No verification for this origin: only a probe may reach it.
    const unverified = await createTarget(t.db, tenant.org.id, {
      projectId: tenant.project.id,
      name: "new service",
      kind: "http",
      baseUrl: "http://127.0.0.1:8",
    });
    const member = await as("member");
    await expect(member.run.launch({ targetId: unverified.id, scenarioId: tenant.scenario.id })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("run a probe"),
    });

    const first = await member.target.probe({ targetId: unverified.id });
    const second = await member.target.probe({ targetId: unverified.id });
    expect(second.number).toBe(first.number + 1);
    const scenarios = await t.db.scenario.findMany({
      where: { projectId: tenant.project.id, name: PROBE_SCENARIO_NAME },
    });
    expect(scenarios).toHaveLength(1);
    expect(isProbe(ZScenarioSpec.parse(scenarios[0]!.spec))).toBe(true);
    const run = await t.db.run.findUniqueOrThrow({ where: { id: first.id } });
    expect(run).toMatchObject({ status: "queued", targetId: unverified.id, tags: ["probe"], shardCount: 1 });
    expect((run.scenarioSnapshot as { spec: unknown }).spec).toMatchObject({
      engine: "http-closed",
      concurrency: 1,
      requests: 10,
      request: { method: "GET", path: "/" },
    });
  });

  it("refuses a viewer, an unknown target, and a scenario of that name that is no probe", async () => {
    await expect((await as("viewer")).target.probe({ targetId: tenant.target.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    const member = await as("member");
    await expect(member.target.probe({ targetId: "missing" })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "targetId: target not found",
    });
    const other = await t.db.project.create({ data: { orgId: tenant.org.id, name: "Other", slug: "other-probe" } });
    const target = await createTarget(t.db, tenant.org.id, {
      projectId: other.id,
      name: "svc",
      kind: "http",
      baseUrl: "http://127.0.0.1:9",
    });
    await createScenario(t.db, tenant.org.id, {
      projectId: other.id,
      name: PROBE_SCENARIO_NAME,
      spec: ZScenarioSpec.parse({ engine: "http-closed", concurrency: 50, requests: 10_000 }),
    });
    const runsBefore = await t.db.run.count({ where: { orgId: tenant.org.id } });
    await expect(member.target.probe({ targetId: target.id })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/^targetId: the project's scenario "Probe: 10 × GET \/" is not a probe/),
    });
    expect(await t.db.run.count({ where: { orgId: tenant.org.id } })).toBe(runsBefore);
  });
});
