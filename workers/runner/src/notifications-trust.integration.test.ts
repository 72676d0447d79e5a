import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { createCaller, createRedisRateLimiter } from "@benchboard/api";
import { NOTIFICATION_TESTS_PER_MINUTE } from "@benchboard/api/routers/notification";
import { DEFAULT_INSTALL_SETTINGS } from "@benchboard/core";
import { createNotificationEndpoint, recordTestEvent } from "@benchboard/db";
import type { TestDatabase } from "@benchboard/db/testing";
import { createNotificationsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CountingServer, serve, type TenantInstall, tenantInstall } from "../test/tenant-install";
import { waitFor } from "../test/wait";
import { recheckNotificationEndpoints, startNotifier } from "./notifier";
import { handleNotificationDeliver, RetryDelivery } from "./processors/notification-deliver";

// Notification receivers as a stranger who signed up would aim them: every server here listens
// on loopback. "internal" plays the operator's own services (a health page, a management API
// that answers a POST with 405 and a small body); "operatorOnly" sits in a range the operator
// allows for its own organization only. The operator opens one port to tenants: "receiver".
// Deliveries run through the worker's own processor, in this process, against the same database.

const prefix = `bbnotifytrust-${randomBytes(4).toString("hex")}`;
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const MANAGEMENT_BODY = JSON.stringify({ error: "Method Not Allowed", reason: "only GET is served here" });

let install: TenantInstall;
let t: TestDatabase;
let internal: CountingServer;
let operatorOnly: CountingServer;
let receiver: CountingServer;
let redis: Redis;
const logs: string[] = [];

beforeAll(async () => {
  const management = (_req: unknown, res: import("node:http").ServerResponse) => {
    res.writeHead(405, { "content-type": "application/json" }).end(MANAGEMENT_BODY);
  };
  internal = await serve(management);
  operatorOnly = await serve(management, "127.0.0.2");
  receiver = await serve((req, res) => {
    const status = req.url?.startsWith("/nope") ? 405 : req.url?.startsWith("/flaky") ? 503 : 200;
    res.writeHead(status, { "content-type": "text/plain" }).end(`receiver-private-body-${status}`);
  });
  install = await tenantInstall({
    prefix,
    allowedTargets: ["127.0.0.1", "127.0.0.2"],
    tenantTargets: [`127.0.0.1:${receiver.port}`],
  });
  t = install.t;
  // What the machine's own resolver answers for these names, served by the test's DNS server.
  install.records.set("localhost", { A: ["127.0.0.1"] });
  install.records.set(hostname().toLowerCase(), { A: ["127.0.0.1"] });
  // A name the stranger owns, pointed into the range only the operator's organization may reach.
  install.records.set("hooks.stranger.test", { A: ["127.0.0.2"] });
  redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  const notifications = createNotificationsQueue(redisUrl, prefix);
  await notifications.obliterate({ force: true }).catch(() => {});
  await notifications.close();
  await redis?.quit();
  await install?.close();
  await Promise.all([internal, operatorOnly, receiver].map((s) => s?.close()));
});

/** One delivery attempt, as the worker's notification consumer makes it. */
async function deliver(deliveryId: string) {
  try {
    return await handleNotificationDeliver(
      {
        db: t.db,
        secretKey: install.secretKey,
        install: DEFAULT_INSTALL_SETTINGS,
        log: (line) => logs.push(line),
        baseDelayMs: 1,
        maxAttempts: 3,
        lookup: install.network.lookup,
      },
      { deliveryId },
    );
  } catch (err) {
    if (err instanceof RetryDelivery) return "retry";
    throw err;
  }
}

/** An endpoint as an earlier rule let it be stored: written straight to the database. */
async function storedEndpoint(orgId: string, url: string, name = `stored-${randomBytes(3).toString("hex")}`) {
  const { endpoint } = await createNotificationEndpoint(
    t.db,
    orgId,
    { name, channel: "webhook", url },
    install.secretKey,
  );
  return endpoint;
}

const testData = { title: "queued earlier", verdict: "test", summary: "s", organization: "o", figures: [], links: [] };

describe("a tenant's receivers are judged by the organization's own address rule", () => {
  it("refuses the install's own services at save, in every spelling and channel; the services get nothing", async () => {
    const { stranger, strangerOrg, operator } = install;
    const spellings = [
      `http://127.0.0.1:${internal.port}/health`,
      `http://localhost:${internal.port}/api/whoami`,
      `http://${hostname().toLowerCase()}:${internal.port}/api/whoami`,
      `http://[::ffff:7f00:1]:${internal.port}/api/whoami`,
      `http://2130706433:${internal.port}/api/whoami`,
      `http://guest:guest@127.0.0.1:${internal.port}/api/whoami`,
      `http://127.0.0.2:${operatorOnly.port}/`,
      // The stranger's own name, resolving into the operator's range.
      `http://hooks.stranger.test:${operatorOnly.port}/`,
      // The port opened to tenants, but reached through the stranger's own name.
      `http://localhost:${receiver.port}/ok`,
    ];
    for (const channel of ["webhook", "slack", "teams"] as const) {
      for (const url of spellings) {
        await expect(
          stranger.notification.createEndpoint({ name: "mine", channel, url }),
          `${channel} ${url}`,
        ).rejects.toMatchObject({ code: "CONFLICT", cause: { field: "url" } });
      }
    }
    expect(await t.db.notificationEndpoint.count({ where: { orgId: strangerOrg } })).toBe(0);
    expect([...internal.hits, ...operatorOnly.hits]).toEqual([]);

    // What the operator opened to tenants is still theirs, and the operator keeps its whole list.
    await expect(
      stranger.notification.createEndpoint({ name: "ok", channel: "slack", url: `${receiver.url}/ok` }),
    ).resolves.toMatchObject({ endpoint: { enabled: true } });
    await expect(
      operator.notification.createEndpoint({ name: "ops", channel: "webhook", url: `${internal.url}/health` }),
    ).resolves.toMatchObject({ endpoint: { enabled: true } });
  });

  it("refuses every delivery the rule refuses now, even one queued earlier, and disables its endpoint; nothing is sent", async () => {
    const { stranger, strangerOrg } = install;
    const before = [internal.hits.length, operatorOnly.hits.length];
    for (const url of [`${internal.url}/health`, `http://hooks.stranger.test:${operatorOnly.port}/`]) {
      const endpoint = await storedEndpoint(strangerOrg, url);
      // "Send test" asks the rule again.
      await expect(stranger.notification.sendTest({ id: endpoint.id }), url).rejects.toMatchObject({
        code: "CONFLICT",
        cause: { field: "url" },
      });
      // A delivery recorded before the rule changed is refused when it is attempted.
      const [deliveryId] = await recordTestEvent(t.db, strangerOrg, endpoint.id, testData);
      expect(await deliver(deliveryId!), url).toBe("failed");
      const delivery = await t.db.notificationDelivery.findUniqueOrThrow({ where: { id: deliveryId! } });
      expect(delivery).toMatchObject({ status: "failed", attempts: 1, lastStatus: null });
      expect(delivery.lastError).toMatch(/refused: .*not allowed/);
      const row = await t.db.notificationEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      expect(row.enabled, url).toBe(false);
      expect(row.disabledReason).toMatch(/address rule.*127\.0\.0\.[12].*not allowed/);
    }
    expect([internal.hits.length, operatorOnly.hits.length]).toEqual(before);
    const notices = await stranger.notification.notices();
    expect(notices.filter((n) => n.kind === "notification.endpoint_refused").length).toBeGreaterThanOrEqual(2);
  });

  it("a pass over stored endpoints disables those the rule now refuses and tells their owners, once", async () => {
    const { strangerOrg, operatorCtx } = install;
    const bad = await storedEndpoint(strangerOrg, `http://2130706433:${internal.port}/api/whoami`, "old internal");
    const good = await storedEndpoint(strangerOrg, `${receiver.url}/ok`);
    const operators = await storedEndpoint(operatorCtx.orgId!, `${internal.url}/health`);
    const deps = {
      db: t.db,
      secretKey: install.secretKey,
      install: DEFAULT_INSTALL_SETTINGS,
      lookup: install.network.lookup,
      log: () => {},
    };
    const first = await recheckNotificationEndpoints(deps);
    expect(first.disabled).toBeGreaterThanOrEqual(1);
    const rows = await t.db.notificationEndpoint.findMany({ where: { id: { in: [bad.id, good.id, operators.id] } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(bad.id)).toMatchObject({ enabled: false });
    expect(byId.get(bad.id)!.disabledReason).toMatch(/127\.0\.0\.1.*not allowed/);
    expect(byId.get(good.id)).toMatchObject({ enabled: true });
    expect(byId.get(operators.id)).toMatchObject({ enabled: true });
    const notices = await install.stranger.notification.notices();
    expect(notices.filter((n) => n.message.includes('"old internal"'))).toHaveLength(1);
    // Shown where the endpoint is listed, in Settings.
    const listed = (await install.stranger.notification.endpoints()).find((e) => e.id === bad.id);
    expect(listed?.disabledReason).toMatch(/not allowed/);

    // A second pass finds nothing new to say.
    await recheckNotificationEndpoints(deps);
    const again = await install.stranger.notification.notices();
    expect(again.filter((n) => n.message.includes('"old internal"'))).toHaveLength(1);
    // Nor can a member switch it back on while the rule refuses it.
    await expect(install.stranger.notification.setEnabled({ id: bad.id, enabled: true })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "url" },
    });
    expect(internal.hits).toEqual([]);
  });

  it("the worker judges stored endpoints when it starts, without sending anything", async () => {
    const bad = await storedEndpoint(install.strangerOrg, `http://[::ffff:7f00:1]:${internal.port}/`, "at start");
    const notifier = await startNotifier({
      db: t.db,
      redisUrl,
      prefix: `${prefix}-start`,
      publicUrl: "https://bench.example.test",
      log: (line) => logs.push(line),
      secretKey: install.secretKey,
      install: DEFAULT_INSTALL_SETTINGS,
      lookup: install.network.lookup,
      everyMs: 60_000,
    });
    try {
      await waitFor(
        async () => !(await t.db.notificationEndpoint.findUniqueOrThrow({ where: { id: bad.id } })).enabled,
        10_000,
        "the stored endpoint to be disabled",
        () => logs.join("\n"),
      );
    } finally {
      await notifier.queue.obliterate({ force: true }).catch(() => {});
      await notifier.close();
    }
    expect(internal.hits).toEqual([]);
  });
});

describe("records a tenant could read before", () => {
  it("the migration rewrites a tenant's stored status-and-size to the class; the operator's stay", async () => {
    const { strangerOrg, operatorCtx } = install;
    const legacy = "5 deliveries in a row failed (last: HTTP 405, 72 bytes)";
    const rows: { endpoint: string; delivery: string; notice: string }[] = [];
    for (const orgId of [strangerOrg, operatorCtx.orgId!]) {
      const endpoint = await storedEndpoint(orgId, `${receiver.url}/ok`, "legacy");
      await t.db.notificationEndpoint.update({ where: { id: endpoint.id }, data: { disabledReason: legacy } });
      const [deliveryId] = await recordTestEvent(t.db, orgId, endpoint.id, testData);
      await t.db.notificationDelivery.update({
        where: { id: deliveryId! },
        data: {
          status: "failed",
          lastStatus: 302,
          lastError: "HTTP 302 (a redirect; redirects are not followed), 0 bytes",
        },
      });
      const notice = await t.db.orgNotice.create({
        data: {
          orgId,
          kind: "notification.endpoint_disabled",
          message: `Notification endpoint "legacy" was disabled: ${legacy}.`,
        },
      });
      rows.push({ endpoint: endpoint.id, delivery: deliveryId!, notice: notice.id });
    }
    const sql = await readFile(
      new URL("../../../prisma/migrations/20261129013215_notification_tenant_detail/migration.sql", import.meta.url),
      "utf8",
    );
    for (const statement of sql.split(/;\s*$/m).filter((x) => x.replace(/--.*$/gm, "").trim()))
      await t.db.$executeRawUnsafe(statement);
    const read = async (r: (typeof rows)[number]) => [
      (await t.db.notificationEndpoint.findUniqueOrThrow({ where: { id: r.endpoint } })).disabledReason,
      (await t.db.notificationDelivery.findUniqueOrThrow({ where: { id: r.delivery } })).lastError,
      (await t.db.orgNotice.findUniqueOrThrow({ where: { id: r.notice } })).message,
    ];
    expect(await read(rows[0]!)).toEqual([
      "5 deliveries in a row failed (last: the receiver answered 4xx)",
      "the receiver answered 3xx",
      'Notification endpoint "legacy" was disabled: 5 deliveries in a row failed (last: the receiver answered 4xx).',
    ]);
    expect(await read(rows[1]!)).toEqual([
      legacy,
      "HTTP 302 (a redirect; redirects are not followed), 0 bytes",
      `Notification endpoint "legacy" was disabled: ${legacy}.`,
    ]);
  });
});

describe("what a tenant learns from the delivery log", () => {
  it("delivered or failed and the status class; never the exact status or the answer's size — the operator keeps them", async () => {
    const { stranger, operator } = install;
    const tenantIds: string[] = [];
    for (const path of ["/nope", "/ok"]) {
      const { endpoint } = await stranger.notification.createEndpoint({
        name: `t${path}`,
        channel: "teams",
        url: `${receiver.url}${path}`,
      });
      const { deliveryId } = await stranger.notification.sendTest({ id: endpoint.id });
      tenantIds.push(deliveryId!);
      await deliver(deliveryId!);
    }
    const log = await stranger.notification.deliveries({ take: 200 });
    const failed = log.find((d) => d.id === tenantIds[0])!;
    const delivered = log.find((d) => d.id === tenantIds[1])!;
    expect(failed).toMatchObject({ status: "pending", lastStatus: null, statusClass: "4xx" });
    expect(failed.lastError).toBe("the receiver answered 4xx");
    expect(delivered).toMatchObject({ status: "delivered", lastStatus: null, statusClass: "2xx" });
    for (const entry of log) {
      expect(entry.lastStatus).toBeNull();
      expect(String(entry.lastError ?? "")).not.toMatch(/HTTP|bytes|receiver-private/);
      if (entry.statusClass && entry.status !== "delivered")
        expect(entry.lastError).toBe(`the receiver answered ${entry.statusClass}`);
    }

    const { endpoint: ops } = await operator.notification.createEndpoint({
      name: "ops",
      channel: "webhook",
      url: `${receiver.url}/nope`,
    });
    const { deliveryId } = await operator.notification.sendTest({ id: ops.id });
    await deliver(deliveryId!);
    const own = (await operator.notification.deliveries({ take: 200 })).find((d) => d.id === deliveryId)!;
    expect(own).toMatchObject({ lastStatus: 405, statusClass: "4xx" });
    expect(own.lastError).toMatch(/^HTTP 405, \d+ bytes$/);
  });
});

describe("send test", () => {
  it("is limited per organization", async () => {
    const { strangerCtx, operatorCtx } = install;
    const rateLimit = createRedisRateLimiter(redis, `${prefix}:rl:`);
    const stranger = createCaller({ ...strangerCtx, rateLimit });
    const operator = createCaller({ ...operatorCtx, rateLimit });
    const { endpoint } = await stranger.notification.createEndpoint({
      name: "burst",
      channel: "webhook",
      url: `${receiver.url}/ok`,
    });
    for (let i = 0; i < NOTIFICATION_TESTS_PER_MINUTE; i++) await stranger.notification.sendTest({ id: endpoint.id });
    await expect(stranger.notification.sendTest({ id: endpoint.id })).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
    });
    expect(await t.db.notificationDelivery.count({ where: { endpointId: endpoint.id } })).toBe(
      NOTIFICATION_TESTS_PER_MINUTE,
    );
    // Another organization's tests are counted on their own.
    const { endpoint: ops } = await operator.notification.createEndpoint({
      name: "ops",
      channel: "webhook",
      url: `${receiver.url}/ok`,
    });
    await expect(operator.notification.sendTest({ id: ops.id })).resolves.toMatchObject({
      deliveryId: expect.any(String),
    });
  });

  it("refuses a disabled endpoint with a clear error and records nothing", async () => {
    const { stranger } = install;
    const { endpoint } = await stranger.notification.createEndpoint({
      name: "off",
      channel: "webhook",
      url: `${receiver.url}/ok`,
    });
    await stranger.notification.setEnabled({ id: endpoint.id, enabled: false });
    await expect(stranger.notification.sendTest({ id: endpoint.id })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { field: "id" },
      message: expect.stringMatching(/disabled/),
    });
    expect(await t.db.notificationDelivery.count({ where: { endpointId: endpoint.id } })).toBe(0);
  });

  it("a delivery whose endpoint was disabled after it was queued is skipped, retries too, and the log says so", async () => {
    const { stranger } = install;
    const { endpoint } = await stranger.notification.createEndpoint({
      name: "flaky",
      channel: "webhook",
      url: `${receiver.url}/flaky`,
    });
    const { deliveryId } = await stranger.notification.sendTest({ id: endpoint.id });
    const path = (h: string) => h.endsWith("/flaky");
    expect(await deliver(deliveryId!)).toBe("retry");
    expect(receiver.hits.filter(path)).toHaveLength(1);
    await stranger.notification.setEnabled({ id: endpoint.id, enabled: false });
    await new Promise((r) => setTimeout(r, 20));
    expect(await deliver(deliveryId!)).toBe("skipped");
    expect(receiver.hits.filter(path)).toHaveLength(1);
    const entry = (await stranger.notification.deliveries({ take: 200 })).find((d) => d.id === deliveryId)!;
    expect(entry.status).toBe("skipped");
    expect(entry.lastError).toMatch(/endpoint is disabled/);
    // And it is not put back on the queue.
    expect(await deliver(deliveryId!)).toBe("skipped");
    expect(receiver.hits.filter(path)).toHaveLength(1);
  });
});
