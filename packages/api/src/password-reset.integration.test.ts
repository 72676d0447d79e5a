import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createSession, getSessionUser, hashToken, signUp } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConsoleMailer, createSmtpMailer, type Mailer, mailerFromSettings } from "./mail";
import { createFallbackRateLimiter, createRedisRateLimiter, type RateLimiter } from "./rate-limit";
import { createCaller } from "./root";
import { PASSWORD_RESET_SENT } from "./routers/auth";
import { startTestServices, type TestServices } from "./testing/services";
import { startTinySmtpServer, type TinySmtpServer } from "./testing/smtp-server";
import type { Context } from "./trpc";

// Password reset against real PostgreSQL, the real Redis rate limiter and a real SMTP exchange.
let t: TestDatabase;
let redis: Redis;
let services: TestServices;
let smtp: TinySmtpServer;
const prefix = `bbreset-${randomBytes(4).toString("hex")}`;
const PUBLIC_URL = "https://bench.example.test";
/** What the console transport printed (the server log, in production). */
const mailLog: string[] = [];
const logMailer = createConsoleMailer((line) => mailLog.push(line));

beforeAll(async () => {
  services = await startTestServices(prefix);
  ({ t, redis } = services);
  smtp = await startTinySmtpServer();
});
afterAll(async () => {
  await smtp.close();
  await services?.close();
});

function anonymous(
  options: { ip?: string; mailer?: Mailer; rateLimit?: RateLimiter; ttlMs?: number; cookies?: string[] } = {},
): Context {
  return services.anonymous(options, {
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    mailer: options.mailer ?? logMailer,
    publicUrl: PUBLIC_URL,
    passwordResetTtlMs: options.ttlMs ?? null,
  });
}

const unique = () => randomBytes(4).toString("hex");
async function account(password = "the old password") {
  const email = `reset-${unique()}@example.test`;
  const user = await signUp(t.db, { email, password });
  return { id: user.id, email, password };
}

const LINK = new RegExp(`${PUBLIC_URL.replace(/\./g, "\\.")}/reset-password/([A-Za-z0-9_-]{43})`);
/** The link the console transport printed for this address (the mail is sent after answering). */
async function linkFor(email: string, after = 0): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const line = mailLog.slice(after).find((l) => l.startsWith(`[mail] to ${email}:`));
    const token = line && LINK.exec(line)?.[1];
    if (token) return token;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no reset mail for ${email} in the log`);
}

describe("asking for a reset link", () => {
  it("answers alike for a registered and an unknown email, storing only a hash for the account", async () => {
    const user = await account();
    const before = await t.db.passwordReset.count();
    const known = await createCaller(anonymous()).auth.requestPasswordReset({ email: user.email.toUpperCase() });
    const unknown = await createCaller(anonymous()).auth.requestPasswordReset({
      email: `nobody-${unique()}@example.test`,
    });
    expect(known).toEqual({ message: PASSWORD_RESET_SENT });
    expect(unknown).toEqual(known);
    // Only the account got a link, and only its hash is stored.
    expect(await t.db.passwordReset.count()).toBe(before + 1);
    const token = await linkFor(user.email);
    const rows = await t.db.passwordReset.findMany({ where: { userId: user.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(rows)).not.toContain(token);
    // 30 minutes by default.
    const ttl = rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime();
    expect(ttl).toBeGreaterThan(29 * 60_000);
    expect(ttl).toBeLessThanOrEqual(30 * 60_000 + 1_000);
    // The unknown address got no mail at all.
    expect(mailLog.filter((l) => l.includes("nobody-"))).toEqual([]);
  });

  it("refuses a malformed email naming the field, and stores nothing", async () => {
    const before = await t.db.passwordReset.count();
    await expect(createCaller(anonymous()).auth.requestPasswordReset({ email: "not an email" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { issues: [{ path: ["email"] }] },
    });
    expect(await t.db.passwordReset.count()).toBe(before);
  });

  it("limits requests per email from one address and per address (any email) in Redis", async () => {
    const user = await account();
    const caller = (ip: string) => createCaller(anonymous({ ip }));
    for (let i = 0; i < 3; i++) await caller("10.20.0.1").auth.requestPasswordReset({ email: user.email });
    await expect(caller("10.20.0.1").auth.requestPasswordReset({ email: user.email })).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
      message: expect.stringContaining("password reset requests for this email from this address"),
    });
    // An unknown email is limited exactly alike: the limit tells nothing about the account.
    const stranger = `nobody-${unique()}@example.test`;
    for (let i = 0; i < 3; i++) await caller("10.21.0.1").auth.requestPasswordReset({ email: stranger });
    await expect(caller("10.21.0.1").auth.requestPasswordReset({ email: stranger })).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
    });
    const one = caller("10.22.0.1");
    for (let i = 0; i < 10; i++) await one.auth.requestPasswordReset({ email: `x${i}-${unique()}@example.test` });
    await expect(one.auth.requestPasswordReset({ email: `y-${unique()}@example.test` })).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
      message: expect.stringContaining("password reset requests from this address"),
    });
    expect(await redis.keys(`${prefix}:reset:email:*`)).not.toEqual([]);
  });

  it("never lets someone else's requests block an owner's reset: the owner's newest link works", async () => {
    const user = await account();
    // Someone who knows the address uses up its limit from their own address.
    const attacker = createCaller(anonymous({ ip: "203.0.113.50" }));
    for (let i = 0; i < 3; i++) await attacker.auth.requestPasswordReset({ email: user.email });
    await expect(attacker.auth.requestPasswordReset({ email: user.email })).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
    });
    // The owner, from their address, still gets a link, and it is the one that works.
    const from = mailLog.length;
    const cookies: string[] = [];
    await createCaller(anonymous({ ip: "198.51.100.7" })).auth.requestPasswordReset({ email: user.email });
    const token = await linkFor(user.email, from);
    await createCaller(anonymous({ ip: "198.51.100.7", cookies })).auth.resetPassword({
      token,
      password: "the owner's new password",
    });
    expect(cookies).toHaveLength(1);
    const signedIn = await createCaller(anonymous()).auth.signIn({
      email: user.email,
      password: "the owner's new password",
    });
    expect(signedIn.id).toBe(user.id);
  });

  it("still limits, counting in the process, while Redis cannot be reached", async () => {
    const gone = new Redis("redis://127.0.0.1:1", { maxRetriesPerRequest: 0, connectTimeout: 200, lazyConnect: true });
    gone.on("error", () => {});
    const logged: string[] = [];
    const limiter = createFallbackRateLimiter(createRedisRateLimiter(gone, `${prefix}:`), (l) => logged.push(l));
    const user = await account();
    const caller = createCaller(anonymous({ rateLimit: limiter }));
    for (let i = 0; i < 3; i++) await caller.auth.requestPasswordReset({ email: user.email });
    await expect(caller.auth.requestPasswordReset({ email: user.email })).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
    });
    expect(logged.some((l) => l.startsWith("Redis is unreachable"))).toBe(true);
    gone.disconnect();
  });
});

describe("using a reset link", () => {
  it("sets the password (same rules as sign-up), ends every other session and signs this browser in", async () => {
    const user = await account();
    const elsewhere = await createSession(t.db, user.id);
    const phone = await createSession(t.db, user.id);
    const from = mailLog.length;
    await createCaller(anonymous()).auth.requestPasswordReset({ email: user.email });
    const token = await linkFor(user.email, from);
    expect(await createCaller(anonymous()).auth.passwordReset({ token })).toMatchObject({
      expiresAt: expect.any(Date),
    });

    await expect(createCaller(anonymous()).auth.resetPassword({ token, password: "short" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { issues: [{ path: ["password"], message: "use at least 10 characters" }] },
    });
    // A refused password leaves the link working and the sessions alive.
    expect(await getSessionUser(t.db, elsewhere.token)).not.toBeNull();

    const cookies: string[] = [];
    const done = await createCaller(anonymous({ cookies })).auth.resetPassword({
      token,
      password: "a brand new password",
    });
    expect(done).toEqual({ email: user.email });
    expect(await getSessionUser(t.db, elsewhere.token)).toBeNull();
    expect(await getSessionUser(t.db, phone.token)).toBeNull();
    // This browser got a fresh session, and it is the account's only one.
    expect(cookies).toHaveLength(1);
    expect((await getSessionUser(t.db, cookies[0]!))?.user.id).toBe(user.id);
    expect(await t.db.session.count({ where: { userId: user.id } })).toBe(1);

    await expect(createCaller(anonymous()).auth.signIn({ email: user.email, password: user.password })).rejects.toThrow(
      "email or password is incorrect",
    );
    expect(
      (await createCaller(anonymous()).auth.signIn({ email: user.email, password: "a brand new password" })).id,
    ).toBe(user.id);
  });

  it("refuses a used, superseded, expired or unknown link with a message saying which", async () => {
    const user = await account();
    let from = mailLog.length;
    await createCaller(anonymous()).auth.requestPasswordReset({ email: user.email });
    const first = await linkFor(user.email, from);
    from = mailLog.length;
    await createCaller(anonymous()).auth.requestPasswordReset({ email: user.email });
    const second = await linkFor(user.email, from);
    expect(second).not.toBe(first);

    await expect(
      createCaller(anonymous()).auth.resetPassword({ token: first, password: "another long password" }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: "token: a newer reset link was sent since this one; use the link in the latest email",
    });
    await createCaller(anonymous()).auth.resetPassword({ token: second, password: "another long password" });
    await expect(
      createCaller(anonymous()).auth.resetPassword({ token: second, password: "yet another password" }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      message: "token: this reset link was already used; ask for a new one",
    });
    await expect(createCaller(anonymous()).auth.passwordReset({ token: second })).rejects.toMatchObject({
      code: "CONFLICT",
    });

    from = mailLog.length;
    await createCaller(anonymous()).auth.requestPasswordReset({ email: user.email });
    const third = await linkFor(user.email, from);
    await t.db.passwordReset.update({
      where: { tokenHash: hashToken(third) },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    await expect(
      createCaller(anonymous()).auth.resetPassword({ token: third, password: "yet another password" }),
    ).rejects.toMatchObject({ code: "CONFLICT", message: "token: this reset link has expired; ask for a new one" });

    await expect(
      createCaller(anonymous()).auth.resetPassword({
        token: randomBytes(32).toString("base64url"),
        password: "x".repeat(12),
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND", message: "token: this reset link is not valid; ask for a new one" });
    // None of the refused links changed the password set with the second.
    expect(
      (await createCaller(anonymous()).auth.signIn({ email: user.email, password: "another long password" })).id,
    ).toBe(user.id);
  });

  it("expires links after the configured time", async () => {
    const user = await account();
    const from = mailLog.length;
    await createCaller(anonymous({ ttlMs: 300 })).auth.requestPasswordReset({ email: user.email });
    const token = await linkFor(user.email, from);
    await new Promise((r) => setTimeout(r, 400));
    await expect(
      createCaller(anonymous()).auth.resetPassword({ token, password: "a brand new password" }),
    ).rejects.toMatchObject({ message: "token: this reset link has expired; ask for a new one" });
  });

  it("lets one of two simultaneous uses of a link win", async () => {
    const user = await account();
    const from = mailLog.length;
    await createCaller(anonymous()).auth.requestPasswordReset({ email: user.email });
    const token = await linkFor(user.email, from);
    const results = await Promise.allSettled([
      createCaller(anonymous()).auth.resetPassword({ token, password: "first racer password" }),
      createCaller(anonymous()).auth.resetPassword({ token, password: "second racer password" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await t.db.session.count({ where: { userId: user.id } })).toBe(1);
  });
});

describe("mail over SMTP", () => {
  it("delivers the reset link through a real SMTP exchange, logging in with the configured credentials", async () => {
    const user = await account();
    const mailer = createSmtpMailer({
      url: `smtp://bench-mailer:s3cret-pass@127.0.0.1:${smtp.port}`,
      from: "Benchboard <bench@example.test>",
    });
    const seen = smtp.messages.length;
    await createCaller(anonymous({ mailer })).auth.requestPasswordReset({ email: user.email });
    const mail = await smtp.nextMessage(seen);
    expect(mail.to).toEqual([user.email]);
    expect(mail.from).toBe("bench@example.test");
    expect(mail.login).toBe("bench-mailer:s3cret-pass");
    expect(mail.headers.subject).toBe("Reset your Benchboard password");
    const token = LINK.exec(mail.body)?.[1];
    expect(token, mail.body).toBeDefined();
    expect(mail.body).toContain("within 30 minutes");
    // The link from the mail works.
    await createCaller(anonymous()).auth.resetPassword({ token: token!, password: "password from the mail" });
    expect(
      (await createCaller(anonymous()).auth.signIn({ email: user.email, password: "password from the mail" })).id,
    ).toBe(user.id);
  });

  it("reports a refused message without the link or the server's credentials", async () => {
    const refusing = await startTinySmtpServer({ rejectRecipients: true });
    try {
      const mailer = createSmtpMailer({
        url: `smtp://bench-mailer:s3cret-pass@127.0.0.1:${refusing.port}`,
        from: "b@example.test",
      });
      const error = await mailer.send({ to: "someone@example.test", subject: "s", text: "secret-link-token" }).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).toMatch(/^the mail server did not take the message \(.*550.*\)$/);
      expect(error?.message).not.toContain("s3cret");
      expect(error?.message).not.toContain("secret-link-token");
      expect(refusing.messages).toEqual([]);
    } finally {
      await refusing.close();
    }
  });
});

describe("mail without a mail server", () => {
  it("goes to a file only the server's user can read, also when the file was already there", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "bbmail-"));
    try {
      const file = path.join(dir, "logs", "mail.log");
      const mailer = mailerFromSettings({ smtpUrl: "", mailFrom: "", mailLog: file });
      expect(mailer.kind).toBe("file");
      const user = await account();
      await createCaller(anonymous({ mailer })).auth.requestPasswordReset({ email: user.email });
      let text = "";
      for (let i = 0; i < 50 && !LINK.test(text); i++) {
        await new Promise((r) => setTimeout(r, 20));
        text = await readFile(file, "utf8").catch(() => "");
      }
      const token = LINK.exec(text)?.[1];
      expect(token, text).toBeDefined();
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      // A file made earlier by someone else's umask (world-readable) is closed on the next message.
      await chmod(file, 0o644);
      await mailer.send({ to: user.email, subject: "second", text: "second message" });
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(await readFile(file, "utf8")).toContain("second message");
      // The link from the file works.
      await createCaller(anonymous()).auth.resetPassword({ token: token!, password: "password from the file" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
