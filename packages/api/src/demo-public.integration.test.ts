import { randomBytes } from "node:crypto";
import { DEMO_ORG_SLUG, seedPublishedDemo } from "@benchboard/db/seed";
import { createTestDatabase, rerunMigration, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "./root";
import { createMailbox, signUpForSession } from "./testing/mailbox";
import { sessionContext } from "./testing/org-fixture";

// The demo organization's published benchmarks are public data for every signed-in account: read
// through the account's session without any membership, so a reader lists no one.
let t: TestDatabase;
let queue: Queue;
let demoId: string;
const mailbox = createMailbox();

function signUp(email: string) {
  return signUpForSession({ db: t.db, queue }, mailbox, { email, password: `${email} password` });
}

beforeAll(async () => {
  t = await createTestDatabase();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, `bbdemo-${randomBytes(4).toString("hex")}`);
  // The operator signs up first (owner of the install), then the demo is seeded.
  await signUp("operator@example.test");
  demoId = (await seedPublishedDemo(t.db)).orgId;
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

describe("the demo organization for a fresh account", () => {
  it("is readable without a membership: runs listed, opened and compared", async () => {
    const token = await signUp("fresh@example.test");
    const fresh = await t.db.user.findUniqueOrThrow({ where: { email: "fresh@example.test" } });
    expect(await t.db.membership.count({ where: { orgId: demoId } })).toBe(0);
    expect(await t.db.membership.count({ where: { userId: fresh.id } })).toBe(1);

    const ctx = await sessionContext({ db: t.db, queue }, token, DEMO_ORG_SLUG);
    expect(ctx).toMatchObject({ orgId: demoId, userId: fresh.id, role: "viewer" });
    const reader = createCaller(ctx);
    const orgs = await reader.org.list();
    expect(orgs.find((o) => o.demo)).toMatchObject({ id: demoId, role: "viewer", current: true });

    const runs = await reader.run.list({ limit: 200 });
    expect(runs.items.length).toBeGreaterThan(1);
    const [a, b] = runs.items;
    expect((await reader.run.byId({ id: a!.id })).id).toBe(a!.id);
    const compared = await reader.comparison.view({ runIds: [a!.id, b!.id], baselineRunId: a!.id });
    expect(JSON.stringify(compared)).toContain(b!.id);
    expect((await reader.comparison.list()).length).toBeGreaterThan(0);
  });

  it("lists no member of the demo, and cannot write to it", async () => {
    const token = await signUp("curious@example.test");
    const reader = createCaller(await sessionContext({ db: t.db, queue }, token, DEMO_ORG_SLUG));
    const listed = await reader.member.list().catch((e: unknown) => e);
    expect(listed).toMatchObject({ code: "FORBIDDEN" });
    expect(JSON.stringify(listed)).not.toContain("operator@example.test");
    expect(JSON.stringify(listed)).not.toContain("fresh@example.test");
    await expect(reader.member.invitations()).rejects.toMatchObject({ code: "FORBIDDEN" });
    const runs = await reader.run.list({ limit: 2 });
    await expect(
      reader.comparison.create({
        title: "mine",
        runIds: runs.items.map((r) => r.id),
        baselineRunId: runs.items[0]!.id,
      }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("does not become a membership when the demo is seeded again", async () => {
    await seedPublishedDemo(t.db);
    expect(await t.db.membership.count({ where: { orgId: demoId } })).toBe(0);
  });

  it("loses the viewer rows stored before to the migration; owners and members of the demo stay", async () => {
    const users = await Promise.all(
      ["old-viewer", "demo-owner", "demo-member"].map((n) =>
        t.db.user.create({ data: { email: `${n}@example.test` } }),
      ),
    );
    const [viewer, owner, member] = users as [(typeof users)[0], (typeof users)[0], (typeof users)[0]];
    await t.db.membership.createMany({
      data: [
        { orgId: demoId, userId: viewer.id, role: "viewer" },
        { orgId: demoId, userId: owner.id, role: "owner" },
        { orgId: demoId, userId: member.id, role: "member" },
      ],
    });
    // A viewer of a real organization is untouched.
    const operator = await t.db.user.findUniqueOrThrow({ where: { email: "operator@example.test" } });
    const local = await t.db.membership.findFirstOrThrow({ where: { userId: operator.id } });
    const realViewer = await t.db.membership.create({
      data: { orgId: local.orgId, userId: viewer.id, role: "viewer" },
    });

    await rerunMigration(t, "20261126200010_demo_public_data");
    const left = await t.db.membership.findMany({ where: { orgId: demoId }, select: { userId: true, role: true } });
    expect(left.sort((a, b) => a.role.localeCompare(b.role))).toEqual([
      { userId: member.id, role: "member" },
      { userId: owner.id, role: "owner" },
    ]);
    expect(await t.db.membership.findUnique({ where: { id: realViewer.id } })).not.toBeNull();
  });
});
