import { randomBytes } from "node:crypto";
import { DEFAULT_INSTALL_SETTINGS } from "@benchboard/core";
import { ensureLocalOrganization, signUp } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "./root";
import { createMailbox } from "./testing/mailbox";
import { startTestServices, type TestServices } from "./testing/services";
import type { Context } from "./trpc";

// Sign-up as a stranger tries it: what the answer tells about other people's accounts, closed
// sign-up and invitations, against real PostgreSQL and the real Redis rate limiter.
let t: TestDatabase;
let queue: Queue;
let services: TestServices;
let localId: string;
let operatorId: string;
const prefix = `bbsignup-${randomBytes(4).toString("hex")}`;
const PUBLIC_URL = "https://bench.example.test";
const mailbox = createMailbox();
const unique = () => randomBytes(4).toString("hex");

beforeAll(async () => {
  services = await startTestServices(prefix);
  ({ t, queue } = services);
  operatorId = (await signUp(t.db, { email: "operator@example.test", password: "operator password 1" })).id;
  localId = (await ensureLocalOrganization(t.db)).id;
});
afterAll(async () => {
  await services?.close();
});

function anonymous(options: { ip?: string; cookies?: string[]; signupOpen?: boolean } = {}): Context {
  return services.anonymous(options, {
    install: { ...DEFAULT_INSTALL_SETTINGS, signupOpen: options.signupOpen ?? true },
    mailer: mailbox,
    publicUrl: PUBLIC_URL,
  });
}

async function invite(email: string, role: "member" | "viewer" = "viewer") {
  const owner = createCaller({ db: t.db, queue, orgId: localId, userId: operatorId, role: "owner" });
  const { path } = await owner.member.invite({ email, role });
  return path.split("/").pop() ?? "";
}

describe("an ordinary sign-up", () => {
  it("answers a new and a registered email alike: same answer, no cookie for either", async () => {
    const registered = `taken-${unique()}@example.test`;
    await signUp(t.db, { email: registered, password: "the owner's password" });
    const newcomer = `new-${unique()}@example.test`;
    const freshCookies: string[] = [];
    const takenCookies: string[] = [];
    const fresh = await createCaller(anonymous({ cookies: freshCookies })).auth.signUp({
      email: newcomer,
      password: "new password 123",
    });
    const taken = await createCaller(anonymous({ cookies: takenCookies })).auth.signUp({
      email: registered.toUpperCase(),
      password: "another password 1",
    });
    // Everything but the (normalized) email the caller sent is the same.
    expect({ ...taken, email: "?" }).toEqual({ ...fresh, email: "?" });
    expect(taken.email).toBe(registered);
    expect(fresh.signedIn).toBe(false);
    expect(fresh.message).toContain("Check your inbox");
    expect(freshCookies).toEqual([]);
    expect(takenCookies).toEqual([]);
    // No account yet for the new email; the registered one is as it was.
    expect(await t.db.user.count({ where: { email: newcomer } })).toBe(0);
    expect(await t.db.user.count({ where: { email: registered } })).toBe(1);
    // The registered email's owner is told, by mail only, that it already has an account.
    const told = mailbox.messages.find((m) => m.to === registered);
    expect(told?.text).toContain("already has one");
    expect(told?.text).toContain(`${PUBLIC_URL}/forgot-password`);
    expect(told?.text).not.toContain("/confirm-sign-up/");
  });

  it("makes the account, signed in, when the mailed link is confirmed; the link works once", async () => {
    const email = `confirm-${unique()}@example.test`;
    await createCaller(anonymous()).auth.signUp({ email, password: "confirm password 1", name: "Cora" });
    const token = await mailbox.linkToken(email, "/confirm-sign-up/");
    // Only the token's hash is stored.
    expect(await t.db.signUpConfirmation.count({ where: { tokenHash: token } })).toBe(0);
    const cookies: string[] = [];
    const confirmed = await createCaller(anonymous({ cookies })).auth.confirmSignUp({ token });
    expect(confirmed.email).toBe(email);
    expect(cookies).toHaveLength(1);
    const user = await t.db.user.findUniqueOrThrow({ where: { email }, include: { memberships: true } });
    expect(user.name).toBe("Cora");
    expect(user.memberships.map((m) => m.role)).toEqual(["owner"]);
    expect(user.memberships[0]?.orgId).not.toBe(localId);
    // The password chosen at sign-up is the account's.
    const signedIn = await createCaller(anonymous()).auth.signIn({ email, password: "confirm password 1" });
    expect(signedIn.id).toBe(user.id);
    await expect(createCaller(anonymous()).auth.confirmSignUp({ token })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("already used"),
    });
    await expect(
      createCaller(anonymous()).auth.confirmSignUp({ token: randomBytes(32).toString("base64url") }),
    ).rejects.toMatchObject({ code: "NOT_FOUND", cause: { field: "token" } });
  });

  it("refuses a link whose email got an account meanwhile, and an expired link", async () => {
    const email = `twice-${unique()}@example.test`;
    await createCaller(anonymous()).auth.signUp({ email, password: "first password 12" });
    const first = await mailbox.linkToken(email, "/confirm-sign-up/");
    await createCaller(anonymous()).auth.signUp({ email, password: "second password 12" });
    const second = await mailbox.linkToken(email, "/confirm-sign-up/");
    expect(second).not.toBe(first);
    await createCaller(anonymous()).auth.confirmSignUp({ token: second });
    await expect(createCaller(anonymous()).auth.confirmSignUp({ token: first })).rejects.toThrow(
      "an account with this email already exists",
    );
    expect(await t.db.user.count({ where: { email } })).toBe(1);

    const late = `late-${unique()}@example.test`;
    await createCaller(anonymous()).auth.signUp({ email: late, password: "late password 123" });
    const token = await mailbox.linkToken(late, "/confirm-sign-up/");
    await t.db.signUpConfirmation.updateMany({ where: { email: late }, data: { expiresAt: new Date(Date.now() - 1) } });
    await expect(createCaller(anonymous()).auth.confirmSignUp({ token })).rejects.toThrow("expired");
    expect(await t.db.user.count({ where: { email: late } })).toBe(0);
  });
});

describe("closed sign-up", () => {
  it("refuses a pending invitee's email without the link, and the invitee then joins with it", async () => {
    const invitee = `invitee-${unique()}@example.test`;
    const token = await invite(invitee);
    const orgsBefore = await t.db.organization.count();
    // A stranger who knows (or guesses) the invited address, without the link.
    const stranger = await createCaller(anonymous({ signupOpen: false }))
      .auth.signUp({ email: invitee, password: "stranger password 1" })
      .catch((e: unknown) => e);
    expect(stranger).toMatchObject({ code: "CONFLICT", message: expect.stringContaining("sign-up is closed") });
    expect(await t.db.user.count({ where: { email: invitee } })).toBe(0);
    expect(await t.db.organization.count()).toBe(orgsBefore);
    // A registered email gets the very same refusal.
    const registered = await createCaller(anonymous({ signupOpen: false }))
      .auth.signUp({ email: "operator@example.test", password: "stranger password 1" })
      .catch((e: unknown) => e);
    expect(registered).toMatchObject({ code: "CONFLICT", message: (stranger as Error).message });

    const cookies: string[] = [];
    const joined = await createCaller(anonymous({ signupOpen: false, cookies })).auth.signUp({
      email: invitee,
      password: "invitee password 1",
      invitation: token,
    });
    expect(joined).toMatchObject({ signedIn: true, orgSlug: "local" });
    expect(cookies).toHaveLength(1);
    const user = await t.db.user.findUniqueOrThrow({ where: { email: invitee }, include: { memberships: true } });
    expect(user.memberships.map((m) => [m.orgId, m.role])).toEqual([[localId, "viewer"]]);
    expect(await t.db.organization.count()).toBe(orgsBefore);
  });
});

describe("the per-address sign-up limit", () => {
  it("does not stop an invitee with their link, and still counts everyone else", async () => {
    const ip = `10.8.${Math.floor(Math.random() * 250)}.1`;
    // Ten sign-ups from one address (an office behind one NAT) use up its hour.
    for (let i = 0; i < 10; i++) {
      await createCaller(anonymous({ ip })).auth.signUp({
        email: `crowd-${i}-${unique()}@example.test`,
        password: "crowd password 1",
      });
    }
    await expect(
      createCaller(anonymous({ ip })).auth.signUp({
        email: `one-more-${unique()}@example.test`,
        password: "crowd password 1",
      }),
    ).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
    // A link that is not an invitation is no way around it.
    await expect(
      createCaller(anonymous({ ip })).auth.signUp({
        email: `forged-${unique()}@example.test`,
        password: "crowd password 1",
        invitation: randomBytes(32).toString("base64url"),
      }),
    ).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
    const invitee = `teammate-${unique()}@example.test`;
    const token = await invite(invitee, "member");
    const joined = await createCaller(anonymous({ ip })).auth.signUp({
      email: invitee,
      password: "teammate password 1",
      invitation: token,
    });
    expect(joined).toMatchObject({ signedIn: true, orgSlug: "local" });
  });
});
