import { randomBytes } from "node:crypto";
import { createSmtpMailer } from "@benchboard/api/mail";
import { startTinySmtpServer, type TinySmtpServer } from "@benchboard/api/testing/smtp-server";
import { DEFAULT_INSTALL_SETTINGS } from "@benchboard/core";
import { recordNotificationEvent } from "@benchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TenantInstall, tenantInstall } from "../test/tenant-install";
import { handleNotificationDeliver, type NotificationMailer, RetryDelivery } from "./processors/notification-deliver";

// Email as a notification channel: endpoints whose recipients are checked (a tenant mails only
// its own members), messages handed to a real SMTP server on 127.0.0.1 through the install's mail
// module by the worker's own processor, every attempt in the log. And a disabled endpoint: the
// events it misses are recorded as skipped, not dropped.

const prefix = `bbnotifyemail-${randomBytes(4).toString("hex")}`;
let install: TenantInstall;
let smtp: TinySmtpServer;
let refusingSmtp: TinySmtpServer;
const logs: string[] = [];

beforeAll(async () => {
  smtp = await startTinySmtpServer();
  refusingSmtp = await startTinySmtpServer({ rejectRecipients: true });
  install = await tenantInstall({ prefix, allowedTargets: ["127.0.0.1"], tenantTargets: [] });
});

afterAll(async () => {
  await install?.close();
  await smtp?.close();
  await refusingSmtp?.close();
});

const mailerFor = (server: TinySmtpServer): NotificationMailer =>
  createSmtpMailer({
    url: `smtp://bench:mail-password@127.0.0.1:${server.port}`,
    from: "Benchboard <bench@example.test>",
  });

async function deliver(deliveryId: string, mailer: NotificationMailer | null) {
  try {
    return await handleNotificationDeliver(
      {
        db: install.t.db,
        secretKey: install.secretKey,
        install: DEFAULT_INSTALL_SETTINGS,
        log: (line) => logs.push(line),
        baseDelayMs: 1,
        maxAttempts: 3,
        lookup: install.network.lookup,
        mailer,
      },
      { deliveryId },
    );
  } catch (err) {
    if (err instanceof RetryDelivery) return "retry";
    throw err;
  }
}

const event = (kind: string, title: string) => ({
  kind,
  dedupeKey: `${kind}:${randomBytes(6).toString("hex")}`,
  data: {
    title,
    verdict: "offline",
    summary: "Agent lab-1 stopped sending heartbeats.\r\nBcc: someone@example.org",
    organization: "Stranger's org",
    figures: [],
    links: [{ label: "Agents", url: "https://bench.example.test/settings" }],
    subject: { id: "a1", name: "lab-1", lastSeenAt: "2026-11-29T04:00:00.000Z" },
  },
});

describe("email endpoints", () => {
  it("take members' addresses only, at most 10, each a real address; the install's own organization may mail anyone", async () => {
    const { stranger, operator } = install;
    await expect(
      stranger.notification.createEndpoint({ name: "ops", channel: "email", recipients: ["boss@elsewhere.example"] }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "recipients" },
      message: /boss@elsewhere\.example is not a member/,
    });
    await expect(
      stranger.notification.createEndpoint({ name: "ops", channel: "email", recipients: ["not an address"] }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(
      stranger.notification.createEndpoint({
        name: "ops",
        channel: "email",
        recipients: Array.from({ length: 11 }, (_, i) => `m${i}@example.test`),
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: /at most 10 recipients/ });
    await expect(
      stranger.notification.createEndpoint({ name: "ops", channel: "email", url: "https://93.184.215.14/x" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });

    const { endpoint, secret } = await stranger.notification.createEndpoint({
      name: "ops",
      channel: "email",
      recipients: ["Stranger@Example.test", "stranger@example.test"],
    });
    expect(secret).toBeNull();
    expect(endpoint).toMatchObject({ channel: "email", recipients: ["stranger@example.test"], urlOrigin: "mailto:" });

    const { endpoint: anyone } = await operator.notification.createEndpoint({
      name: "operator mail",
      channel: "email",
      recipients: ["pager@elsewhere.example"],
    });
    expect(anyone.recipients).toEqual(["pager@elsewhere.example"]);
  });

  it("deliver through the mail server, one attempt logged; a refused message is retried, each attempt logged", async () => {
    const { stranger, strangerOrg, t } = install;
    const { endpoint } = await stranger.notification.createEndpoint({
      name: "agents by mail",
      channel: "email",
      recipients: ["stranger@example.test"],
    });
    await stranger.notification.createRule({ name: "agents", events: ["agent.offline"], endpointIds: [endpoint.id] });

    const before = smtp.messages.length;
    const [deliveryId] = await recordNotificationEvent(
      t.db,
      strangerOrg,
      event("agent.offline", "Agent lab-1 is offline\r\nBcc: someone@example.org"),
    );
    expect(await deliver(deliveryId!, mailerFor(smtp))).toBe("delivered");
    const mail = await smtp.nextMessage(before);
    expect(mail.to).toEqual(["stranger@example.test"]);
    // A line break in a tenant's text never becomes a header of the message.
    expect(mail.headers.subject).toBe("[Benchboard] Agent lab-1 is offline Bcc: someone@example.org");
    expect(mail.to).not.toContain("someone@example.org");
    expect(mail.body).toContain("OFFLINE: Agent lab-1 stopped sending heartbeats.");
    expect(mail.body).toContain("Agents: https://bench.example.test/settings");
    expect(Object.keys(mail.headers)).not.toContain("bcc");

    const log = await stranger.notification.deliveries();
    expect(log.find((d) => d.id === deliveryId)).toMatchObject({
      status: "delivered",
      attempts: 1,
      endpoint: { channel: "email" },
      attemptLog: [expect.objectContaining({ attempt: 1, outcome: "delivered", error: null })],
    });

    const [refusedId] = await recordNotificationEvent(
      t.db,
      strangerOrg,
      event("agent.offline", "Agent lab-2 is offline"),
    );
    expect(await deliver(refusedId!, mailerFor(refusingSmtp))).toBe("retry");
    expect(await deliver(refusedId!, mailerFor(refusingSmtp))).toBe("retry");
    expect(await deliver(refusedId!, mailerFor(refusingSmtp))).toBe("failed");
    const entry = (await stranger.notification.deliveries()).find((d) => d.id === refusedId)!;
    expect(entry.status).toBe("failed");
    expect(entry.attemptLog.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, "retry"],
      [2, "retry"],
      [3, "failed"],
    ]);
    expect(entry.attemptLog[0]!.error).toMatch(/^the mail server did not take the message \(/);
    // Never the mail server's credentials.
    expect(JSON.stringify(entry) + logs.join("\n")).not.toContain("mail-password");
  });

  it("without mail on the workers, or once no recipient is a member, fail at once saying why", async () => {
    const { stranger, strangerOrg, t } = install;
    const { endpoint } = await stranger.notification.createEndpoint({
      name: "no mail here",
      channel: "email",
      recipients: ["stranger@example.test"],
    });
    await stranger.notification.createRule({ name: "workers", events: ["worker.offline"], endpointIds: [endpoint.id] });
    const [noMailer] = await recordNotificationEvent(
      t.db,
      strangerOrg,
      event("worker.offline", "Worker w1 is offline"),
    );
    expect(await deliver(noMailer!, null)).toBe("failed");
    const row = await t.db.notificationDelivery.findUniqueOrThrow({ where: { id: noMailer } });
    expect(row).toMatchObject({ status: "failed", attempts: 1 });
    expect(row.lastError).toMatch(/mail is not set up on the workers/);

    // The stored recipient leaves the organization (here: the address changes).
    await t.db.notificationEndpoint.update({ where: { id: endpoint.id }, data: { recipients: ["gone@example.test"] } });
    const before = smtp.messages.length;
    const [gone] = await recordNotificationEvent(t.db, strangerOrg, event("worker.offline", "Worker w2 is offline"));
    expect(await deliver(gone!, mailerFor(smtp))).toBe("failed");
    expect((await t.db.notificationDelivery.findUniqueOrThrow({ where: { id: gone } })).lastError).toMatch(
      /none of the recipients is a member/,
    );
    expect(smtp.messages.length).toBe(before);
  });
});

describe("a disabled endpoint", () => {
  it("records the events it misses as skipped deliveries, never sent, while enabled endpoints get theirs", async () => {
    const { stranger, strangerOrg, t } = install;
    const { endpoint: off } = await stranger.notification.createEndpoint({
      name: "paused",
      channel: "email",
      recipients: ["stranger@example.test"],
    });
    const { endpoint: on } = await stranger.notification.createEndpoint({
      name: "live",
      channel: "email",
      recipients: ["stranger@example.test"],
    });
    await stranger.notification.createRule({
      name: "both",
      events: ["run.started"],
      endpointIds: [off.id, on.id],
    });
    await stranger.notification.setEnabled({ id: off.id, enabled: false });
    const toSend = await recordNotificationEvent(t.db, strangerOrg, event("run.started", "Run #1 started"));
    const rows = await t.db.notificationDelivery.findMany({
      where: { endpointId: { in: [off.id, on.id] } },
      select: { id: true, endpointId: true, status: true, lastError: true },
    });
    expect(rows).toHaveLength(2);
    const skipped = rows.find((r) => r.endpointId === off.id)!;
    expect(skipped).toMatchObject({ status: "skipped", lastError: "not sent: the endpoint is disabled" });
    // Only the enabled endpoint's delivery is handed to the queue.
    expect(toSend).toEqual([rows.find((r) => r.endpointId === on.id)!.id]);
    expect(await deliver(skipped.id, mailerFor(smtp))).toBe("skipped");
    const log = await stranger.notification.deliveries();
    expect(log.find((d) => d.id === skipped.id)).toMatchObject({
      status: "skipped",
      endpoint: { name: "paused" },
      title: "Run #1 started",
    });
  });
});
