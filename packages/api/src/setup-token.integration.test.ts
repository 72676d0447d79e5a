import { randomBytes } from "node:crypto";
import { DEFAULT_INSTALL_SETTINGS } from "@benchboard/core";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "./root";
import { createMailbox, signUpThroughMail } from "./testing/mailbox";

// A fresh install's first account owns it; it needs the one-time setup token scripts/up.sh
// printed, so whoever reaches a fresh install first (a rebound page, a stranger) cannot take it.
let t: TestDatabase;
let queue: Queue;
const setupToken = randomBytes(18).toString("base64url");
let anonymous: ReturnType<typeof createCaller>;
const mailbox = createMailbox();

beforeAll(async () => {
  t = await createTestDatabase();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, `bbsetup-${randomBytes(4).toString("hex")}`);
  anonymous = createCaller({
    db: t.db,
    queue,
    orgId: null,
    userId: null,
    role: null,
    install: { ...DEFAULT_INSTALL_SETTINGS, setupToken },
    mailer: mailbox,
  });
});

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
});

describe("the install's first account", () => {
  it("is refused without the setup token or with a wrong one, naming the field", async () => {
    for (const given of [undefined, "", `${setupToken}x`]) {
      await expect(
        anonymous.auth.signUp({ email: "early@example.test", password: "early password 12", setupToken: given }),
      ).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "setupToken" } });
    }
    expect(await t.db.user.count()).toBe(0);
  });

  it("is created with the token, owns the install, and later accounts need no token", async () => {
    await anonymous.auth.signUp({ email: "operator@example.test", password: "operator password 1", setupToken });
    const op = await t.db.user.findUniqueOrThrow({
      where: { email: "operator@example.test" },
      include: { memberships: { include: { org: true } } },
    });
    expect(op.memberships.map((m) => [m.org.slug, m.role])).toEqual([["local", "owner"]]);
    // A later account is confirmed by mail, like any ordinary sign-up; no setup token.
    await signUpThroughMail(anonymous, mailbox, { email: "tenant@example.test", password: "tenant password 12" });
    expect(await t.db.user.count()).toBe(2);
  });
});
