import { randomBytes } from "node:crypto";
import { getInvitation, signUp } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConsoleMailer, createSmtpMailer, type Mailer } from "./mail";
import { createCaller } from "./root";
import { INVITATION_EMAILS_PER_HOUR } from "./routers/member";
import { startTestServices, type TestServices } from "./testing/services";
import { startTinySmtpServer, type TinySmtpServer } from "./testing/smtp-server";

// Inviting a member mails the invitation link when the install has mail, through a real SMTP
// exchange on 127.0.0.1; the answer says whether it was sent, and why not.
let t: TestDatabase;
let services: TestServices;
let smtp: TinySmtpServer;
let refusing: TinySmtpServer;
let orgId = "";
let ownerId = "";
const prefix = `bbinvite-${randomBytes(4).toString("hex")}`;
const PUBLIC_URL = "https://bench.example.test";

beforeAll(async () => {
  services = await startTestServices(prefix);
  t = services.t;
  smtp = await startTinySmtpServer();
  refusing = await startTinySmtpServer({ rejectRecipients: true });
  const owner = await signUp(t.db, { email: `owner-${prefix}@example.test`, password: "owner password 1" });
  ownerId = owner.id;
  const org = await t.db.organization.create({ data: { name: "Checkout Team", slug: `team-${prefix}` } });
  orgId = org.id;
  await t.db.membership.create({ data: { orgId, userId: owner.id, role: "owner" } });
});

afterAll(async () => {
  await smtp?.close();
  await refusing?.close();
  await services?.close();
});

function ownerCaller(mailer: Mailer | null, publicUrl: string | null = PUBLIC_URL) {
  return createCaller({
    ...services.anonymous({}, { mailer, publicUrl }),
    orgId,
    userId: ownerId,
    role: "owner",
  });
}

const smtpMailer = (server: TinySmtpServer) =>
  createSmtpMailer({ url: `smtp://127.0.0.1:${server.port}`, from: "Benchboard <bench@example.test>" });

describe("inviting a member", () => {
  it("mails the invitation link when mail is set up, and says so", async () => {
    const before = smtp.messages.length;
    const email = `new-${randomBytes(3).toString("hex")}@example.test`;
    const answer = await ownerCaller(smtpMailer(smtp)).member.invite({ email, role: "member" });
    expect(answer.email).toEqual({ sent: true, reason: null });
    const mail = await smtp.nextMessage(before);
    expect(mail.to).toEqual([email]);
    expect(mail.headers.subject).toBe("You are invited to Checkout Team on Benchboard");
    expect(mail.body).toContain(`${PUBLIC_URL}${answer.path}`);
    expect(mail.body).toContain("as a member");
    // The mailed link is the invitation's.
    const token = answer.path.replace("/invite/", "");
    expect((await getInvitation(t.db, token))?.email).toBe(email);
  });

  it("says why it was not mailed: no mail set up, no public URL, or the mail server refused", async () => {
    const before = smtp.messages.length;
    const noMail = await ownerCaller(createConsoleMailer(() => {})).member.invite({
      email: `a-${randomBytes(3).toString("hex")}@example.test`,
      role: "viewer",
    });
    expect(noMail.email).toEqual({ sent: false, reason: expect.stringMatching(/mail is not set up/) });
    expect(noMail.path).toMatch(/^\/invite\//);

    const noUrl = await ownerCaller(smtpMailer(smtp), null).member.invite({
      email: `b-${randomBytes(3).toString("hex")}@example.test`,
      role: "member",
    });
    expect(noUrl.email).toEqual({ sent: false, reason: expect.stringMatching(/no public URL/) });
    expect(smtp.messages.length).toBe(before);

    const refused = await ownerCaller(smtpMailer(refusing)).member.invite({
      email: `c-${randomBytes(3).toString("hex")}@example.test`,
      role: "member",
    });
    expect(refused.email).toEqual({
      sent: false,
      reason: expect.stringMatching(/^the mail server did not take the message \(.*\): send the link yourself$/),
    });
    // The invitation stands either way: the owner sends the link.
    expect(await t.db.invitation.count({ where: { orgId } })).toBe(4);
  });

  it("mails at most INVITATION_EMAILS_PER_HOUR invitations per organization and hour; the rest still get their link", async () => {
    const { t: db } = services;
    const org = await db.db.organization.create({ data: { name: "Busy", slug: `busy-${prefix}` } });
    await db.db.membership.create({ data: { orgId: org.id, userId: ownerId, role: "owner" } });
    const caller = createCaller({
      ...services.anonymous({}, { mailer: smtpMailer(smtp), publicUrl: PUBLIC_URL }),
      orgId: org.id,
      userId: ownerId,
      role: "owner",
    });
    const before = smtp.messages.length;
    const answers = [];
    for (let i = 0; i <= INVITATION_EMAILS_PER_HOUR; i++) {
      answers.push(await caller.member.invite({ email: `bulk-${i}-${prefix}@example.test`, role: "viewer" }));
    }
    expect(answers.filter((a) => a.email.sent)).toHaveLength(INVITATION_EMAILS_PER_HOUR);
    expect(answers.at(-1)!.email).toEqual({
      sent: false,
      reason: expect.stringMatching(/invitation emails in the last hour .*: send the link yourself$/),
    });
    expect(answers.at(-1)!.path).toMatch(/^\/invite\//);
    for (let i = 0; i < 50 && smtp.messages.length < before + INVITATION_EMAILS_PER_HOUR; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(smtp.messages.length - before).toBe(INVITATION_EMAILS_PER_HOUR);
  });
});
