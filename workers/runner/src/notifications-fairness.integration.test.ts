import { randomBytes } from "node:crypto";
import { DEFAULT_INSTALL_SETTINGS } from "@benchboard/core";
import { createNotificationEndpoint, recordTestEvent } from "@benchboard/db";
import { DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CountingServer, serve, type TenantInstall, tenantInstall } from "../test/tenant-install";
import { waitFor } from "../test/wait";
import { startNotifier } from "./notifier";

// Two organizations share one worker's notification consumer, with its default slots. The
// tenant's receivers answer only after seconds; the install's own organization has one fast
// Slack-shaped receiver. Every receiver listens on loopback; deliveries go through the real
// queue on Redis and the real outbound client.

const prefix = `bbnotifyfair-${randomBytes(4).toString("hex")}`;
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const SLOW_ANSWER_MS = 3_000;
const SLOW_ENDPOINTS = 8;
const EVENTS_PER_SLOW_ENDPOINT = 2;

let install: TenantInstall;
let slow: CountingServer;
let fast: CountingServer;
const fastArrivals: number[] = [];
const logs: string[] = [];
let notifier: Awaited<ReturnType<typeof startNotifier>>;

beforeAll(async () => {
  slow = await serve((_req, res) => {
    setTimeout(() => res.writeHead(200, { "content-type": "text/plain" }).end("ok"), SLOW_ANSWER_MS);
  });
  fast = await serve((_req, res) => {
    fastArrivals.push(Date.now());
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
  install = await tenantInstall({
    prefix,
    allowedTargets: ["127.0.0.1"],
    tenantTargets: [`127.0.0.1:${slow.port}`],
  });
  notifier = await startNotifier({
    db: install.t.db,
    redisUrl,
    prefix,
    publicUrl: "https://bench.example.test",
    log: (line) => logs.push(line),
    secretKey: install.secretKey,
    install: DEFAULT_INSTALL_SETTINGS,
    lookup: install.network.lookup,
    // The sweeps stay out of the way: this test queues its deliveries itself.
    everyMs: 60_000,
    recheckEveryMs: 60 * 60_000,
  });
});

afterAll(async () => {
  await notifier?.queue.obliterate({ force: true }).catch(() => {});
  await notifier?.close();
  await install?.close();
  await Promise.all([slow, fast].map((s) => s?.close()));
});

const testData = (title: string) => ({
  title,
  verdict: "test",
  summary: "s",
  organization: "o",
  figures: [],
  links: [],
});

describe("delivery is fair between organizations", () => {
  it("a tenant's slow receivers do not delay another organization's message", async () => {
    const { t, strangerOrg, operatorCtx } = install;
    const operatorOrg = operatorCtx.orgId!;
    const slowDeliveries: string[] = [];
    for (let i = 0; i < SLOW_ENDPOINTS; i++) {
      const { endpoint } = await createNotificationEndpoint(
        t.db,
        strangerOrg,
        { name: `slow-${i}`, channel: "slack", url: `${slow.url}/hook/${i}` },
        install.secretKey,
      );
      for (let e = 0; e < EVENTS_PER_SLOW_ENDPOINT; e++) {
        slowDeliveries.push(...(await recordTestEvent(t.db, strangerOrg, endpoint.id, testData(`slow ${i}.${e}`))));
      }
    }
    const { endpoint: fastEndpoint } = await createNotificationEndpoint(
      t.db,
      operatorOrg,
      { name: "team slack", channel: "slack", url: `${fast.url}/services/T/B/x` },
      install.secretKey,
    );

    await notifier.enqueue(slowDeliveries.map((id) => ({ id })));
    // The slow tenant's receivers are busy before the other organization's event happens.
    await waitFor(async () => slow.hits.length >= 2, 10_000, "the slow receivers to be reached");

    const [fastDelivery] = await recordTestEvent(t.db, operatorOrg, fastEndpoint.id, testData("fast"));
    const queuedAt = Date.now();
    await notifier.enqueue([{ id: fastDelivery! }]);
    await waitFor(
      async () => fastArrivals.length > 0,
      60_000,
      "the fast receiver's message",
      () => logs.join("\n"),
    );
    const delayMs = fastArrivals[0]! - queuedAt;
    const slowPending = await t.db.notificationDelivery.count({
      where: { orgId: strangerOrg, status: { in: ["pending", "sending"] } },
    });
    const slowInFlight = slow.hits.length - (slowDeliveries.length - slowPending);
    console.log(
      `fairness: fast organization's message arrived ${delayMs} ms after it was queued, while the slow tenant had ` +
        `${slowPending} of ${slowDeliveries.length} deliveries pending (${slowInFlight} in flight at its receivers, ` +
        `each answering after ${SLOW_ANSWER_MS} ms)`,
    );
    expect(delayMs).toBeLessThan(2_000);
    expect(slowPending).toBeGreaterThanOrEqual(SLOW_ENDPOINTS);
    await waitFor(
      async () =>
        (await t.db.notificationDelivery.findUnique({ where: { id: fastDelivery! } }))?.status === "delivered",
      5_000,
      "the fast delivery to be recorded",
    );

    // The slow tenant still gets everything, each once, only never more than its share at a time.
    const started = Date.now();
    await waitFor(
      async () =>
        (await t.db.notificationDelivery.count({ where: { orgId: strangerOrg, status: "delivered" } })) ===
        slowDeliveries.length,
      60_000,
      "every slow delivery",
      () => logs.join("\n"),
    );
    console.log(
      `fairness: the slow tenant's remaining deliveries all arrived ${Date.now() - started} ms later; ` +
        `${slow.hits.length} requests for ${slowDeliveries.length} deliveries`,
    );
    expect(slow.hits).toHaveLength(slowDeliveries.length);
    const attempts = await t.db.notificationDelivery.findMany({
      where: { orgId: strangerOrg },
      select: { attempts: true },
    });
    expect(attempts.every((d) => d.attempts === 1)).toBe(true);
  }, 120_000);
});
