import { randomBytes } from "node:crypto";
import { createInvitation, ensureLocalOrganization, verifyApiToken } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "./root";
import { createMailbox, signUpThroughMail } from "./testing/mailbox";
import { startTestServices, type TestServices } from "./testing/services";
import type { Context, Role } from "./trpc";

// Accounts against real PostgreSQL and a real Redis rate limiter.
let t: TestDatabase;
let queue: Queue;
let services: TestServices;
const prefix = `bbtest-${randomBytes(4).toString("hex")}`;
const mailbox = createMailbox();

beforeAll(async () => {
  services = await startTestServices(prefix);
  ({ t, queue } = services);
});
afterAll(async () => {
  await services?.close();
});

function anonymous(cookies: { token: string | null; set: string[] }, ip = "10.0.0.1"): Context {
  return services.anonymous(
    { ip, cookies: cookies.set },
    {
      mailer: mailbox,
      session: { token: cookies.token, set: (token) => cookies.set.push(token), clear: () => cookies.set.push("") },
    },
  );
}

function as(userId: string, orgId: string, role: Role): Context {
  return { db: t.db, queue, orgId, userId, role };
}

describe("sign-up and sign-in", () => {
  it("makes the first account owner of the local organization and later ones owners of their own", async () => {
    const jar = { token: null, set: [] as string[] };
    const answer = await createCaller(anonymous(jar)).auth.signUp({
      email: "First@Example.com",
      password: "a long password 1",
    });
    // The install's first account is signed in at once (the setup token, when set, is its proof).
    expect(answer).toMatchObject({ signedIn: true, email: "first@example.com" });
    expect(jar.set).toHaveLength(1);
    const first = await t.db.user.findUniqueOrThrow({ where: { email: "first@example.com" } });
    const local = await ensureLocalOrganization(t.db);
    const owner = await t.db.membership.findFirst({ where: { orgId: local.id, userId: first.id } });
    expect(owner?.role).toBe("owner");

    await signUpThroughMail(createCaller(anonymous({ token: null, set: [] })), mailbox, {
      email: "two@example.com",
      password: "a long password 2",
    });
    const second = await t.db.user.findUniqueOrThrow({ where: { email: "two@example.com" } });
    const memberships = await t.db.membership.findMany({ where: { userId: second.id }, include: { org: true } });
    expect(memberships).toHaveLength(1);
    expect(memberships[0]?.org.id).not.toBe(local.id);
    expect(memberships[0]?.role).toBe("owner");
    const user = await t.db.user.findUniqueOrThrow({ where: { id: second.id } });
    expect(user.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(user.passwordHash).not.toContain("a long password 2");
  });

  it("refuses bad input naming the field and stores nothing", async () => {
    const before = await t.db.user.count();
    const caller = createCaller(anonymous({ token: null, set: [] }, "10.0.0.2"));
    await expect(caller.auth.signUp({ email: "not-an-email", password: "a long password" })).rejects.toMatchObject({
      cause: { issues: [{ path: ["email"] }] },
    });
    await expect(caller.auth.signUp({ email: "x@example.com", password: "short" })).rejects.toMatchObject({
      cause: { issues: [{ path: ["password"], message: "use at least 10 characters" }] },
    });
    await expect(caller.auth.signUp({ email: "x@example.com", password: "p".repeat(201) })).rejects.toThrow();
    await expect(
      caller.auth.signUp({
        email: "y@example.com",
        password: "a long password",
        name: "<script>alert(1)</script>".repeat(10),
      }),
    ).rejects.toMatchObject({ cause: { issues: [{ path: ["name"] }] } });
    expect(await t.db.user.count()).toBe(before);
  });

  it("accepts unicode and markup in names as plain data", async () => {
    const jar = { token: null, set: [] as string[] };
    await signUpThroughMail(createCaller(anonymous(jar, "10.0.0.9")), mailbox, {
      email: "zoë@example.com",
      password: "pässwörd with ümlauts",
      name: 'Zoë <b>\'; DROP TABLE "User"; --',
    });
    const stored = await t.db.user.findUniqueOrThrow({ where: { email: "zoë@example.com" } });
    const u = stored;
    expect(stored.name).toBe('Zoë <b>\'; DROP TABLE "User"; --');
    const signedIn = await createCaller(anonymous({ token: null, set: [] }, "10.0.0.9")).auth.signIn({
      email: "ZOË@example.com",
      password: "pässwörd with ümlauts",
    });
    expect(signedIn.id).toBe(u.id);
  });

  it("says the same thing for an unknown email and a wrong password, and rate-limits guessing", async () => {
    const caller = createCaller(anonymous({ token: null, set: [] }, "10.0.0.3"));
    await expect(caller.auth.signIn({ email: "nobody@example.com", password: "whatever123" })).rejects.toThrow(
      "email or password is incorrect",
    );
    await expect(caller.auth.signIn({ email: "first@example.com", password: "wrong password" })).rejects.toThrow(
      "email or password is incorrect",
    );
    // Ten attempts per account per 15 minutes (two used above for other accounts/this one).
    for (let i = 0; i < 9; i++) {
      await expect(caller.auth.signIn({ email: "first@example.com", password: `wrong ${i}` })).rejects.toThrow();
    }
    await expect(
      caller.auth.signIn({ email: "first@example.com", password: "a long password 1" }),
    ).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
    });
  });

  it("slows an address guessing one account without locking the owner out", async () => {
    const jar = { token: null as string | null, set: [] as string[] };
    await signUpThroughMail(createCaller(anonymous(jar, "10.0.1.1")), mailbox, {
      email: "owner2@example.com",
      password: "owner password 1",
    });
    const attacker = createCaller(anonymous({ token: null, set: [] }, "198.51.100.66"));
    for (let i = 0; i < 5; i++) {
      await expect(attacker.auth.signIn({ email: "owner2@example.com", password: `guess ${i}` })).rejects.toMatchObject(
        {
          code: "UNAUTHORIZED",
        },
      );
    }
    // The sixth wrong try must wait; so would the right password, from this address.
    await expect(attacker.auth.signIn({ email: "owner2@example.com", password: "guess 6" })).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
      message: expect.stringMatching(/try again in \d+ s/),
    });
    for (let i = 0; i < 10; i++) {
      await attacker.auth.signIn({ email: "owner2@example.com", password: `more ${i}` }).catch(() => {});
    }
    // The owner, from their own address, signs in at once.
    const owner = await createCaller(anonymous({ token: null, set: [] }, "10.0.1.1")).auth.signIn({
      email: "owner2@example.com",
      password: "owner password 1",
    });
    expect(owner.email).toBe("owner2@example.com");
  });

  it("signs out by deleting the session", async () => {
    const jar = { token: null as string | null, set: [] as string[] };
    await createCaller(anonymous(jar, "10.0.0.4")).auth.signIn({
      email: "two@example.com",
      password: "a long password 2",
    });
    const token = jar.set[0] ?? "";
    expect(await t.db.session.count({ where: { user: { email: "two@example.com" } } })).toBeGreaterThan(0);
    const sessionsBefore = await t.db.session.count();
    await createCaller(anonymous({ token, set: [] }, "10.0.0.4")).auth.signOut();
    expect(await t.db.session.count()).toBe(sessionsBefore - 1);
  });
});

describe("organizations, invitations and tokens", () => {
  it("keeps at least one owner and lets owners change roles", async () => {
    const local = await ensureLocalOrganization(t.db);
    const owner = await t.db.user.findUniqueOrThrow({ where: { email: "first@example.com" } });
    const caller = createCaller(as(owner.id, local.id, "owner"));
    const [me] = await caller.member.list();
    await expect(caller.member.updateRole({ id: me!.id, role: "viewer" })).rejects.toThrow("at least one owner");
    await expect(caller.member.remove({ id: me!.id })).rejects.toThrow("at least one owner");
  });

  it("issues API tokens shown once, stored hashed, revocable", async () => {
    const local = await ensureLocalOrganization(t.db);
    const owner = await t.db.user.findUniqueOrThrow({ where: { email: "first@example.com" } });
    const caller = createCaller(as(owner.id, local.id, "member"));
    const { token, record } = await caller.apiToken.create({ name: "ci" });
    expect(token).toMatch(/^bb_[A-Za-z0-9_-]{43}$/);
    const stored = await t.db.apiToken.findUniqueOrThrow({ where: { id: record.id } });
    expect(stored.tokenHash).not.toContain(token);
    expect(JSON.stringify(await caller.apiToken.list())).not.toContain(token);
    expect((await verifyApiToken(t.db, token))?.orgId).toBe(local.id);
    expect((await t.db.apiToken.findUniqueOrThrow({ where: { id: record.id } })).lastUsedAt).not.toBeNull();
    await caller.apiToken.revoke({ id: record.id });
    expect(await verifyApiToken(t.db, token)).toBeNull();
    expect(await verifyApiToken(t.db, `${token}x`)).toBeNull();
    // Another organization cannot revoke (or see) this organization's tokens.
    const other = await t.db.membership.findFirstOrThrow({ where: { user: { email: "two@example.com" } } });
    const outsider = createCaller(as(other.userId, other.orgId, "owner"));
    const second = await caller.apiToken.create({ name: "ci-2" });
    await expect(outsider.apiToken.revoke({ id: second.record.id })).rejects.toThrow("token not found");
    expect(await verifyApiToken(t.db, second.token)).not.toBeNull();
  });

  it("lets a token act only with its creator's current role, and only its creator or an owner revoke it", async () => {
    const org = await t.db.organization.create({
      data: { name: "Tokens", slug: `tokens-${randomBytes(3).toString("hex")}` },
    });
    const user = (email: string) => t.db.user.create({ data: { email: `${email}-${org.slug}@example.com` } });
    const [boss, ana, ben] = await Promise.all([user("boss"), user("ana"), user("ben")]);
    const [, anaMembership] = await Promise.all([
      t.db.membership.create({ data: { orgId: org.id, userId: boss.id, role: "owner" } }),
      t.db.membership.create({ data: { orgId: org.id, userId: ana.id, role: "member" } }),
      t.db.membership.create({ data: { orgId: org.id, userId: ben.id, role: "member" } }),
    ]);
    const owner = createCaller(as(boss.id, org.id, "owner"));
    const asAna = createCaller(as(ana.id, org.id, "member"));
    const asBen = createCaller(as(ben.id, org.id, "member"));

    // An owner's token acts as a member, never as an owner.
    const bossToken = await owner.apiToken.create({ name: "boss" });
    expect((await verifyApiToken(t.db, bossToken.token))?.role).toBe("member");

    const anaToken = await asAna.apiToken.create({ name: "ana-ci" });
    expect((await verifyApiToken(t.db, anaToken.token))?.role).toBe("member");
    const listed = await asBen.apiToken.list();
    expect(listed.find((x) => x.id === anaToken.record.id)?.createdBy?.id).toBe(ana.id);
    // Another member can see it but not revoke it.
    await expect(asBen.apiToken.revoke({ id: anaToken.record.id })).rejects.toThrow(
      "only the member who created a token, or an owner, can revoke it",
    );
    expect(await verifyApiToken(t.db, anaToken.token)).not.toBeNull();

    // Demoted to viewer: the token keeps reading but carries the viewer role.
    await owner.member.updateRole({ id: anaMembership.id, role: "viewer" });
    expect((await verifyApiToken(t.db, anaToken.token))?.role).toBe("viewer");
    await owner.member.updateRole({ id: anaMembership.id, role: "member" });

    // Removed: every token they made stops working and is listed as revoked.
    const second = await asAna.apiToken.create({ name: "ana-nightly" });
    await owner.member.remove({ id: anaMembership.id });
    expect(await verifyApiToken(t.db, anaToken.token)).toBeNull();
    expect(await verifyApiToken(t.db, second.token)).toBeNull();
    const after = await owner.apiToken.list();
    expect(after.filter((x) => x.createdBy?.id === ana.id).map((x) => x.revokedAt !== null)).toEqual([true, true]);
    // Even a token the removal missed is refused while its creator is not a member.
    await t.db.apiToken.update({ where: { id: second.record.id }, data: { revokedAt: null } });
    expect(await verifyApiToken(t.db, second.token)).toBeNull();

    // An owner revokes anyone's token; a member their own.
    const [benFirst, benSecond] = [
      await asBen.apiToken.create({ name: "a" }),
      await asBen.apiToken.create({ name: "b" }),
    ];
    await owner.apiToken.revoke({ id: benFirst.record.id });
    await asBen.apiToken.revoke({ id: benSecond.record.id });
    expect(await verifyApiToken(t.db, benFirst.token)).toBeNull();
    expect(await verifyApiToken(t.db, benSecond.token)).toBeNull();
    expect(await verifyApiToken(t.db, bossToken.token)).not.toBeNull();
  });

  it("shows where workers run only to the install's own organization", async () => {
    const local = await ensureLocalOrganization(t.db);
    const owner = await t.db.user.findUniqueOrThrow({ where: { email: "first@example.com" } });
    const outsider = await t.db.membership.findFirstOrThrow({
      where: { user: { email: "two@example.com" }, orgId: { not: local.id } },
    });
    await t.db.worker.create({
      data: { id: "build-host-7-4242", host: "build-host-7", pid: 4242, labels: ["eu"], capacity: 2 },
    });
    const inside = await createCaller(as(owner.id, local.id, "viewer")).worker.list();
    expect(inside.find((w) => w.id === "build-host-7-4242")).toMatchObject({ host: "build-host-7", pid: 4242 });
    const outside = await createCaller(as(outsider.userId, outsider.orgId, "owner")).worker.list();
    expect(outside.map((w) => [w.host, w.pid])).toEqual(outside.map(() => [null, null]));
    expect(JSON.stringify(outside)).not.toMatch(/build-host-7|4242/);
    expect(outside.find((w) => w.labels.includes("eu"))).toMatchObject({ capacity: 2, online: true });
  });

  it("accepts an invitation only for the invited email, once", async () => {
    const local = await ensureLocalOrganization(t.db);
    const owner = await t.db.user.findUniqueOrThrow({ where: { email: "first@example.com" } });
    const { path } = await createCaller(as(owner.id, local.id, "owner")).member.invite({
      email: "two@example.com",
      role: "member",
    });
    const token = path.split("/").pop() ?? "";
    const zoe = await t.db.user.findUniqueOrThrow({ where: { email: "zoë@example.com" } });
    await expect(
      createCaller({ ...as(zoe.id, local.id, "viewer"), orgId: null, role: null }).auth.acceptInvitation({ token }),
    ).rejects.toThrow("this invitation is for two@example.com");
    const two = await t.db.user.findUniqueOrThrow({ where: { email: "two@example.com" } });
    const twoCaller = createCaller({ db: t.db, queue, orgId: null, userId: two.id, role: null });
    await twoCaller.auth.acceptInvitation({ token });
    expect((await t.db.membership.findFirst({ where: { orgId: local.id, userId: two.id } }))?.role).toBe("member");
    await expect(twoCaller.auth.acceptInvitation({ token })).rejects.toThrow("invalid, used or expired");
    // A later invitation with a lower role does not demote the member.
    const lower = await createCaller(as(owner.id, local.id, "owner"))
      .member.invite({ email: "two@example.com", role: "viewer" })
      .catch((e: Error) => e);
    expect(lower).toBeInstanceOf(Error);
    const { invitation, token: viewerToken } = await createInvitation(t.db, local.id, {
      email: "zoë@example.com",
      role: "viewer",
      invitedById: owner.id,
    });
    expect(invitation.role).toBe("viewer");
    await t.db.membership.create({ data: { orgId: local.id, userId: zoe.id, role: "member" } });
    await createCaller({ db: t.db, queue, orgId: null, userId: zoe.id, role: null })
      .auth.acceptInvitation({ token: viewerToken })
      .catch(() => {});
    expect((await t.db.membership.findFirst({ where: { orgId: local.id, userId: zoe.id } }))?.role).toBe("member");
  });

  it("makes an account from an invitation link a member of the inviting organization only, and opens it", async () => {
    const local = await ensureLocalOrganization(t.db);
    const owner = await t.db.user.findUniqueOrThrow({ where: { email: "first@example.com" } });
    const { path } = await createCaller(as(owner.id, local.id, "owner")).member.invite({
      email: "ivy@example.com",
      role: "viewer",
    });
    const token = path.split("/").pop() ?? "";
    const orgsBefore = await t.db.organization.count();
    // Someone else's address with the link: refused, naming the field, nothing stored.
    await expect(
      createCaller(anonymous({ token: null, set: [] }, "10.0.9.1")).auth.signUp({
        email: "mallory@example.com",
        password: "a long password 9",
        invitation: token,
      }),
    ).rejects.toThrow("this invitation is for ivy@example.com");
    expect(await t.db.user.count({ where: { email: "mallory@example.com" } })).toBe(0);

    const joined = await createCaller(anonymous({ token: null, set: [] }, "10.0.9.2")).auth.signUp({
      email: "ivy@example.com",
      password: "a long password 9",
      invitation: token,
    });
    expect(joined.orgSlug).toBe(local.slug);
    const ivy = await t.db.user.findUniqueOrThrow({ where: { email: "ivy@example.com" } });
    expect(await t.db.organization.count()).toBe(orgsBefore);
    const memberships = await t.db.membership.findMany({
      where: { userId: ivy.id, org: { demo: false } },
      select: { orgId: true, role: true },
    });
    expect(memberships).toEqual([{ orgId: local.id, role: "viewer" }]);
    // The link is used up.
    expect((await t.db.invitation.findFirstOrThrow({ where: { email: "ivy@example.com" } })).acceptedAt).not.toBeNull();
    await expect(
      createCaller(anonymous({ token: null, set: [] }, "10.0.9.3")).auth.signUp({
        email: "ivy2@example.com",
        password: "a long password 9",
        invitation: token,
      }),
    ).rejects.toThrow("invalid, used or expired");
  });

  it("tells a member where a run of another of their organizations lives, and nobody else", async () => {
    const local = await ensureLocalOrganization(t.db);
    const owner = await t.db.user.findUniqueOrThrow({ where: { email: "first@example.com" } });
    const project = await t.db.project.create({ data: { orgId: local.id, name: "Links", slug: "links" } });
    const run = await t.db.run.create({
      data: { orgId: local.id, projectId: project.id, number: 1, status: "succeeded", scenarioName: "s" },
    });
    const other = await t.db.organization.create({ data: { name: "Side team", slug: "side-team" } });
    await t.db.membership.create({ data: { orgId: other.id, userId: owner.id, role: "owner" } });
    // Looking at the other organization, the run's own one is offered.
    expect(await createCaller(as(owner.id, other.id, "owner")).org.forRun({ runId: run.id })).toEqual({
      id: local.id,
      name: local.name,
      slug: local.slug,
    });
    // Already there: nothing to switch to.
    expect(await createCaller(as(owner.id, local.id, "owner")).org.forRun({ runId: run.id })).toBeNull();
    // A stranger learns nothing, whether the run exists or not.
    const stranger = await t.db.user.create({ data: { email: "stranger@example.com" } });
    await t.db.membership.create({ data: { orgId: other.id, userId: stranger.id, role: "owner" } });
    const asStranger = createCaller(as(stranger.id, other.id, "owner"));
    expect(await asStranger.org.forRun({ runId: run.id })).toBeNull();
    expect(await asStranger.org.forRun({ runId: "no-such-run" })).toBeNull();
  });
});
