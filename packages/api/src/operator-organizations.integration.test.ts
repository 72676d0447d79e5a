import { randomBytes } from "node:crypto";
import { createSession, signUp } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "./root";
import { createOrgFixture, type OrgFixture, sessionContext } from "./testing/org-fixture";

// The operator's list of organizations and their caps, against real PostgreSQL and a real queue
// (private prefix, no worker): a cap the operator lowers refuses the tenant's next launch past it.
let t: TestDatabase;
let queue: Queue;
let operatorToken: string;
let tenant: OrgFixture;
const prefix = `bbops-${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  t = await createTestDatabase();
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
  // The install's first account is the operator (owner of the install's own organization).
  const operator = await signUp(t.db, { email: "operator@example.test", password: "operator password" });
  operatorToken = (await createSession(t.db, operator.id)).token;
  tenant = await createOrgFixture(t.db, `tenant-${randomBytes(3).toString("hex")}`);
});
afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

const operatorCaller = async () => createCaller(await sessionContext({ db: t.db, queue }, operatorToken, "local"));
const tenantCaller = async (role: "owner" | "member") =>
  createCaller(await sessionContext({ db: t.db, queue }, tenant.users[role].sessionToken, tenant.org.slug));

describe("the operator's organizations", () => {
  it("lists every organization with its members, runs and caps", async () => {
    const orgs = await (await operatorCaller()).install.organizations();
    const local = orgs.find((o) => o.slug === "local");
    const theirs = orgs.find((o) => o.id === tenant.org.id);
    expect(local).toMatchObject({ installOrganization: true, members: 1, runs: 0 });
    expect(theirs).toMatchObject({
      name: tenant.org.name,
      installOrganization: false,
      members: 3,
      runs: await t.db.run.count({ where: { orgId: tenant.org.id } }),
      caps: { maxRate: 10_000, maxConnections: 2_000, maxDurationS: 1_800, maxConcurrentRuns: 4, maxWorkerSlots: 64 },
    });
    expect(theirs!.createdAt).toBeInstanceOf(Date);
  });

  it("changes one organization's caps, and its next launch past them is refused naming the field", async () => {
    const member = await tenantCaller("member");
    const launch = (rate: number) =>
      member.run.launch({ targetId: tenant.target.id, scenarioId: tenant.scenario.id, rate });
    // Within the caps it starts with.
    expect((await launch(200)).status).toBe("queued");
    await t.db.run.updateMany({ where: { orgId: tenant.org.id, status: "queued" }, data: { status: "canceled" } });

    const updated = await (await operatorCaller()).install.updateOrgCaps({
      orgId: tenant.org.id,
      caps: { maxRate: 100, maxDurationS: 60 },
    });
    expect(updated.caps).toMatchObject({ maxRate: 100, maxDurationS: 60, maxConnections: 2_000 });
    // The whole set is written down: a later change of the defaults does not move it.
    const stored = await t.db.organization.findUniqueOrThrow({ where: { id: tenant.org.id }, select: { caps: true } });
    expect(stored.caps).toEqual({
      maxRate: 100,
      maxConnections: 2_000,
      maxDurationS: 60,
      maxConcurrentRuns: 4,
      maxWorkerSlots: 64,
    });
    const runsBefore = await t.db.run.count({ where: { orgId: tenant.org.id } });
    await expect(launch(200)).rejects.toMatchObject({
      code: "CONFLICT",
      message: 'rate: scenario "steady" asks for 200 req/s; the organization allows at most 100 req/s',
    });
    expect(await t.db.run.count({ where: { orgId: tenant.org.id } })).toBe(runsBefore);
    expect((await launch(80)).status).toBe("queued");
    // The tenant's owner sees the caps the operator set.
    expect((await (await tenantCaller("owner")).org.current()).caps).toMatchObject({ maxRate: 100 });
  });

  it("refuses bad caps naming the field, and an unknown organization, changing nothing", async () => {
    const operator = await operatorCaller();
    const before = await t.db.organization.findUniqueOrThrow({ where: { id: tenant.org.id }, select: { caps: true } });
    await expect(
      operator.install.updateOrgCaps({ orgId: tenant.org.id, caps: { maxConnections: 2.5 } }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { issues: [{ path: ["caps", "maxConnections"], message: "must be a whole number" }] },
    });
    await expect(operator.install.updateOrgCaps({ orgId: tenant.org.id, caps: { maxRate: -1 } })).rejects.toMatchObject(
      { cause: { issues: [{ path: ["caps", "maxRate"], message: "must be above 0" }] } },
    );
    await expect(operator.install.updateOrgCaps({ orgId: tenant.org.id, caps: {} })).rejects.toMatchObject({
      cause: { issues: [{ path: ["caps"], message: "change at least one cap" }] },
    });
    await expect(
      operator.install.updateOrgCaps({ orgId: tenant.org.id, caps: { maxRate: 10, unknownCap: 1 } as never }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(operator.install.updateOrgCaps({ orgId: "nope", caps: { maxRate: 10 } })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "orgId: organization not found",
    });
    const after = await t.db.organization.findUniqueOrThrow({ where: { id: tenant.org.id }, select: { caps: true } });
    expect(after.caps).toEqual(before.caps);
  });

  it("is the operator's alone: a tenant's owner is refused both procedures", async () => {
    const owner = await tenantCaller("owner");
    await expect(owner.install.organizations()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(owner.install.updateOrgCaps({ orgId: tenant.org.id, caps: { maxRate: 9_999 } })).rejects.toMatchObject(
      { code: "FORBIDDEN" },
    );
  });
});
