import { randomBytes } from "node:crypto";
import { DEFAULT_INSTALL_SETTINGS } from "@benchboard/core";
import { createNotificationEndpoint, recordTestEvent } from "@benchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CountingServer, serve, type TenantInstall, tenantInstall } from "../test/tenant-install";
import { handleNotificationDeliver, RetryDelivery } from "./processors/notification-deliver";

// What counts as delivered, and what the delivery log keeps. Receivers on loopback answer 2xx
// with a body far over what a failure's answer is read for, or with a body that trickles in
// after the status; a flaky one answers 503 twice, then 200. Attempts run through the worker's
// own processor against the same database; the log is read through Settings' procedure.

const prefix = `bbnotifyattempts-${randomBytes(4).toString("hex")}`;
const TIMEOUT_MS = 1_000;
const BIG_BODY = "x".repeat(200 * 1024);

let install: TenantInstall;
let big: CountingServer;
let bigChunked: CountingServer;
let slowBody: CountingServer;
let flaky: CountingServer;
const logs: string[] = [];

beforeAll(async () => {
  big = await serve((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain", "content-length": String(BIG_BODY.length) }).end(BIG_BODY);
  });
  bigChunked = await serve((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    for (let i = 0; i < 20; i++) res.write(BIG_BODY.slice(0, 10 * 1024));
    res.end();
  });
  slowBody = await serve((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.flushHeaders();
    res.write("accepted, ");
    // The rest comes long after the attempt's time is up.
    const timer = setTimeout(() => res.end("done"), TIMEOUT_MS * 3);
    res.on("close", () => clearTimeout(timer));
  });
  flaky = await serve((_req, res) => {
    const status = flaky.hits.length <= 2 ? 503 : 200;
    res.writeHead(status, { "content-type": "text/plain" }).end(`receiver-private-body-${status}`);
  });
  install = await tenantInstall({
    prefix,
    allowedTargets: ["127.0.0.1"],
    tenantTargets: [`127.0.0.1:${flaky.port}`],
  });
});

afterAll(async () => {
  await install?.close();
  await Promise.all([big, bigChunked, slowBody, flaky].map((s) => s?.close()));
});

/** Attempts until the delivery is done, as the queue would make them (retries are due at once here). */
async function deliverUntilDone(deliveryId: string) {
  const outcomes: string[] = [];
  for (let i = 0; i < 5; i++) {
    try {
      const outcome = await handleNotificationDeliver(
        {
          db: install.t.db,
          secretKey: install.secretKey,
          install: DEFAULT_INSTALL_SETTINGS,
          log: (line) => logs.push(line),
          baseDelayMs: 1,
          maxAttempts: 5,
          timeoutMs: TIMEOUT_MS,
          lookup: install.network.lookup,
        },
        { deliveryId },
      );
      outcomes.push(outcome);
      return outcomes;
    } catch (err) {
      if (!(err instanceof RetryDelivery)) throw err;
      outcomes.push("retry");
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return outcomes;
}

const testData = { title: "attempts", verdict: "test", summary: "s", organization: "o", figures: [], links: [] };

async function testDelivery(orgId: string, url: string) {
  const { endpoint } = await createNotificationEndpoint(
    install.t.db,
    orgId,
    { name: `rx-${randomBytes(3).toString("hex")}`, channel: "slack", url },
    install.secretKey,
  );
  const [deliveryId] = await recordTestEvent(install.t.db, orgId, endpoint.id, testData);
  return deliveryId!;
}

describe("a receiver's 2xx counts once its status arrives", () => {
  it("a 200 with a body far over the read limit, sized or chunked, is delivered on the first attempt", async () => {
    const operatorOrg = install.operatorCtx.orgId!;
    for (const rx of [big, bigChunked]) {
      const id = await testDelivery(operatorOrg, `${rx.url}/hook`);
      expect(await deliverUntilDone(id), rx.url).toEqual(["delivered"]);
      const row = await install.t.db.notificationDelivery.findUniqueOrThrow({ where: { id } });
      expect(row).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 200, lastError: null });
    }
    expect(big.hits).toHaveLength(1);
    expect(bigChunked.hits).toHaveLength(1);
  });

  it("a 200 whose body trickles in past the attempt's time limit is delivered, not timed out and resent", async () => {
    const id = await testDelivery(install.operatorCtx.orgId!, `${slowBody.url}/hook`);
    const started = Date.now();
    expect(await deliverUntilDone(id)).toEqual(["delivered"]);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
    expect(slowBody.hits).toHaveLength(1);
    const log = await install.operator.notification.deliveries();
    const entry = log.find((d) => d.id === id)!;
    expect(entry).toMatchObject({ status: "delivered", attempts: 1 });
    expect(entry.attemptLog).toEqual([
      expect.objectContaining({ attempt: 1, outcome: "delivered", status: 200, statusClass: "2xx", error: null }),
    ]);
  });
});

describe("the delivery log keeps every attempt", () => {
  it("503, 503, 200: three attempts in order, each with its outcome; a tenant reads status classes", async () => {
    const id = await testDelivery(install.strangerOrg, `${flaky.url}/hook`);
    expect(await deliverUntilDone(id)).toEqual(["retry", "retry", "delivered"]);
    expect(flaky.hits).toHaveLength(3);

    const log = await install.stranger.notification.deliveries();
    const entry = log.find((d) => d.id === id)!;
    expect(entry).toMatchObject({ status: "delivered", attempts: 3 });
    expect(entry.attemptLog.map((a) => [a.attempt, a.outcome, a.statusClass, a.status, a.error])).toEqual([
      [1, "retry", "5xx", null, "the receiver answered 5xx"],
      [2, "retry", "5xx", null, "the receiver answered 5xx"],
      [3, "delivered", "2xx", null, null],
    ]);
    for (const a of entry.attemptLog) expect(a.durationMs).toBeGreaterThanOrEqual(0);
    expect(entry.attemptLog[0]!.at.getTime()).toBeLessThanOrEqual(entry.attemptLog[2]!.at.getTime());
    // Never the receiver's body, for anyone.
    expect(JSON.stringify(log)).not.toContain("receiver-private-body");
    // The other organization's log does not show it.
    const operatorLog = await install.operator.notification.deliveries();
    expect(operatorLog.some((d) => d.id === id)).toBe(false);
  });
});
