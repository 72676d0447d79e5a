import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createCaller } from "@benchboard/api";
import type { TThreshold } from "@benchboard/core";
import { ensureLocalOrganization, setProjectThresholds, updateInstallSettings } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor as waitForIn } from "../test/wait";
import { startRunner } from "./worker";

// Notifications end to end: a real worker (in this process) plans what ended runs have to tell,
// queues deliveries on a real Redis and POSTs them through the outbound client to real receivers
// on 127.0.0.1 — one that verifies Standard Webhooks signatures with the `standardwebhooks`
// library, one shaped like a Slack incoming webhook.
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbnotify-${randomBytes(4).toString("hex")}`;
const secretKey = randomBytes(32);

let t: TestDatabase;
let queue: Queue;
let runner: Awaited<ReturnType<typeof startRunner>>;
let caller: ReturnType<typeof createCaller>;
let orgId: string;
const logs: string[] = [];
const servers: http.Server[] = [];

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  verified: unknown;
  verifyError?: string;
}

/** A receiver: records every request; `answer` decides each status; `secret` verifies signatures. */
async function receiver(answer: (n: number, path: string) => number = () => 200) {
  const received: Received[] = [];
  const secrets = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = req.url ?? "/";
      const entry: Received = { path, headers: req.headers, body, verified: null };
      const secret = secrets.get(path);
      if (secret) {
        try {
          entry.verified = new Webhook(secret).verify(body, req.headers as Record<string, string>);
        } catch (err) {
          entry.verifyError = (err as Error).message;
        }
      }
      received.push(entry);
      const status = answer(received.filter((r) => r.path === path).length, path);
      // A body the product must never store or show.
      res.writeHead(status, { "content-type": "text/plain" }).end(`receiver-private-body-${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, secrets };
}

const waitFor = <T>(check: () => Promise<T | false | null | undefined>, timeoutMs: number, what: string) =>
  waitForIn(check, timeoutMs, what, () => logs.join("\n"));

beforeAll(async () => {
  t = await createTestDatabase();
  // The operator allows 127.0.0.1 (the receivers); 127.0.0.2 stays an internal address no one allowed.
  await updateInstallSettings(t.db, { allowedTargets: ["127.0.0.1"] });
  const org = await ensureLocalOrganization(t.db);
  orgId = org.id;
  queue = createRunsQueue(redisUrl, prefix);
  caller = createCaller({ db: t.db, queue, orgId, userId: null, role: "member", secretKey });
  runner = await startRunner({
    databaseUrl: t.url,
    redisUrl,
    prefix,
    concurrency: 1,
    workerId: `notify-${prefix}`,
    labels: [],
    healthPort: 0,
    secretKey,
    publicUrl: "https://bench.example.test",
    log: (line) => logs.push(line),
    notify: { everyMs: 150, baseDelayMs: 300, requeueGraceMs: 400, disableAfter: 2 },
  });
});

afterAll(async () => {
  await runner?.close();
  await queue?.obliterate({ force: true }).catch(() => {});
  await runner?.notifier?.queue.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
  for (const s of servers) s.close();
});

async function project(thresholds: TThreshold[] = [{ metric: "latency_p99", op: "<=", value: 50 }]) {
  const p = await caller.project.create({ name: `p-${randomBytes(3).toString("hex")}` });
  await setProjectThresholds(t.db, orgId, p.id, thresholds);
  return p;
}

function nativeRun(metrics: Record<string, number>) {
  return JSON.stringify({
    schemaVersion: 1,
    startedAt: "2026-11-26T06:00:00Z",
    endedAt: "2026-11-26T06:01:00Z",
    result: { metrics: { requests: 1000, success: 1000, failed: 0, rps: 500, ...metrics } },
  });
}

async function upload(projectId: string, metrics: Record<string, number>, extra: Record<string, string> = {}) {
  return caller.upload.run({ project: projectId, format: "native", content: nativeRun(metrics), ...extra });
}

async function deliveriesOf(endpointId: string) {
  return t.db.notificationDelivery.findMany({ where: { endpointId }, include: { event: true } });
}

describe("signed webhooks", () => {
  it("a failing threshold produces exactly one signed delivery", async () => {
    const rx = await receiver();
    const p = await project();
    const { endpoint, secret } = await caller.notification.createEndpoint({
      name: "ci hook",
      channel: "webhook",
      url: `${rx.url}/hook`,
    });
    expect(secret).toMatch(/^whsec_/);
    rx.secrets.set("/hook", secret!);
    await caller.notification.createRule({
      name: "thresholds",
      events: ["thresholds.failed", "run.failed"],
      projectId: p.id,
      endpointIds: [endpoint.id],
    });

    const run = await upload(p.id, { latency_p99: 73 });
    await waitFor(
      async () => (await deliveriesOf(endpoint.id)).some((d) => d.status === "delivered"),
      15_000,
      "the delivery",
    );
    // Let several more sweeps pass: nothing is sent twice.
    await new Promise((r) => setTimeout(r, 1_000));
    const mine = rx.received.filter((r) => r.path === "/hook");
    expect(mine).toHaveLength(1);
    expect(mine[0]!.verifyError).toBeUndefined();
    const verified = mine[0]!.verified as { type: string; data: { run: { id: string }; figures: { text: string }[] } };
    expect(verified.type).toBe("thresholds.failed");
    expect(verified.data.run.id).toBe(run.id);
    expect(verified.data.figures[0]!.text).toMatch(
      /^Latency p99 <= 50 ms failed: 73 ms \(\+46\.0% against the limit\)$/,
    );
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(mine[0]!.headers["webhook-id"]).toBe(delivery!.eventId);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 200 });

    // A signature made with another secret does not verify: the check above could fail.
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString("base64")}`).verify(mine[0]!.body, mine[0]!.headers as never),
    ).toThrow();

    // The log shows time, event, status and attempts — and never the receiver's body.
    const log = await caller.notification.deliveries();
    expect(log[0]).toMatchObject({ kind: "thresholds.failed", status: "delivered", lastStatus: 200, attempts: 1 });
    expect(JSON.stringify(log)).not.toContain("receiver-private-body");
    // Neither the secret nor the URL is returned by the endpoint list.
    const listed = JSON.stringify(await caller.notification.endpoints());
    expect(listed).not.toContain(secret!);
    expect(listed).not.toContain("/hook");
  });

  it("a receiver answering 500, 500, 200 gets the event on the third attempt, once", async () => {
    const rx = await receiver((n) => (n <= 2 ? 500 : 200));
    const p = await project();
    const { endpoint, secret } = await caller.notification.createEndpoint({
      name: "flaky",
      channel: "webhook",
      url: `${rx.url}/flaky`,
    });
    rx.secrets.set("/flaky", secret!);
    await caller.notification.createRule({
      name: "r",
      events: ["thresholds.failed"],
      projectId: p.id,
      endpointIds: [endpoint.id],
    });
    await upload(p.id, { latency_p99: 80 });
    await waitFor(
      async () => (await deliveriesOf(endpoint.id)).some((d) => d.status === "delivered"),
      20_000,
      "delivery after retries",
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const mine = rx.received.filter((r) => r.path === "/flaky");
    expect(mine).toHaveLength(3);
    // Every attempt carries the same webhook-id (receivers drop repeats) and a valid signature.
    expect(new Set(mine.map((m) => m.headers["webhook-id"])).size).toBe(1);
    expect(mine.every((m) => m.verifyError === undefined && m.verified)).toBe(true);
    // Exponential backoff: the second wait is longer than the first.
    const [d] = await deliveriesOf(endpoint.id);
    expect(d).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 200 });
    const endpointRow = await t.db.notificationEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(endpointRow.consecutiveFailures).toBe(0);
  });

  it("an endpoint failing every delivery is disabled and the owners are told in the app", async () => {
    const rx = await receiver(() => 503);
    const p = await project();
    const { endpoint } = await caller.notification.createEndpoint({
      name: "down",
      channel: "webhook",
      url: `${rx.url}/down`,
    });
    await caller.notification.createRule({
      name: "r",
      events: ["thresholds.failed"],
      projectId: p.id,
      endpointIds: [endpoint.id],
    });
    // Two failing runs: each delivery gives up after its attempts, the second disables the endpoint.
    await upload(p.id, { latency_p99: 90 });
    await upload(p.id, { latency_p99: 91 });
    await waitFor(
      async () => !(await t.db.notificationEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).enabled,
      60_000,
      "the endpoint to be disabled",
    );
    const owner = createCaller({ db: t.db, queue, orgId, userId: null, role: "owner", secretKey });
    const notices = await owner.notification.notices();
    expect(notices.some((n) => n.message.includes('"down" was disabled'))).toBe(true);
    expect(JSON.stringify(notices)).not.toContain("receiver-private-body");
    // A later event does not go to a disabled endpoint.
    const before = rx.received.length;
    await upload(p.id, { latency_p99: 92 });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(rx.received.length).toBe(before);
  }, 90_000);
});

describe("Slack", () => {
  it("a Slack-shaped receiver gets valid Block Kit JSON with the failed figures, units, Δ % and links", async () => {
    const rx = await receiver();
    const p = await project([
      { metric: "latency_p99", op: "<=", value: 50 },
      { metric: "rps", op: ">=", value: 1000 },
    ]);
    const { endpoint, secret } = await caller.notification.createEndpoint({
      name: "slack",
      channel: "slack",
      url: `${rx.url}/services/T000/B000/XXXX`,
    });
    expect(secret).toBeNull();
    await caller.notification.createRule({ name: "slack", events: ["thresholds.failed"], endpointIds: [endpoint.id] });
    const run = await upload(p.id, { latency_p99: 73, rps: 800 }, { branch: "feature/x" });
    await waitFor(async () => rx.received.find((r) => r.path.startsWith("/services/")), 15_000, "slack message");
    const msg = JSON.parse(rx.received.find((r) => r.path.startsWith("/services/"))!.body);
    assertBlockKit(msg);
    const text = JSON.stringify(msg);
    expect(text).toContain("failed: 73 ms");
    expect(text).toContain("+46.0%");
    expect(text).toContain("800 req/s");
    expect(text).toContain("−20.0%");
    expect(text).toContain(`https://bench.example.test/runs/${run.id}`);
    expect(text).toContain("feature/x");
  });
});

interface SlackText {
  type: string;
  text: string;
}
interface SlackBlock {
  type: string;
  text: SlackText;
  elements: { type: string; text: SlackText; url: string; action_id: string }[];
}

/** The parts of Block Kit's rules a message must keep for Slack to accept it. */
function assertBlockKit(msg: { text?: unknown; blocks?: unknown }) {
  expect(typeof msg.text).toBe("string");
  expect(Array.isArray(msg.blocks)).toBe(true);
  const blocks = msg.blocks as SlackBlock[];
  expect(blocks.length).toBeGreaterThan(0);
  expect(blocks.length).toBeLessThanOrEqual(50);
  for (const b of blocks) {
    expect(["header", "section", "context", "actions", "divider"]).toContain(b.type);
    if (b.type === "header") {
      expect(b.text.type).toBe("plain_text");
      expect(b.text.text.length).toBeLessThanOrEqual(150);
    }
    if (b.type === "section") {
      expect(["mrkdwn", "plain_text"]).toContain(b.text.type);
      expect(b.text.text.length).toBeGreaterThan(0);
      expect(b.text.text.length).toBeLessThanOrEqual(3000);
    }
    if (b.type === "context") {
      expect(b.elements.length).toBeLessThanOrEqual(10);
      for (const e of b.elements) expect(["mrkdwn", "plain_text", "image"]).toContain(e.type);
    }
    if (b.type === "actions") {
      expect(b.elements.length).toBeLessThanOrEqual(25);
      for (const e of b.elements) {
        expect(e.type).toBe("button");
        expect(e.text.type).toBe("plain_text");
        expect(e.text.text.length).toBeLessThanOrEqual(75);
        expect(e.url).toMatch(/^https?:\/\//);
        expect(e.action_id.length).toBeLessThanOrEqual(255);
      }
      expect(new Set(b.elements.map((e: { action_id: string }) => e.action_id)).size).toBe(b.elements.length);
    }
  }
}

describe("regressions and offline workers", () => {
  it("a run worse than the baseline branch beyond the rule's tolerance is announced with the Δ and a comparison link", async () => {
    const rx = await receiver();
    const p = await project([]);
    const { endpoint, secret } = await caller.notification.createEndpoint({
      name: "reg",
      channel: "webhook",
      url: `${rx.url}/reg`,
    });
    rx.secrets.set("/reg", secret!);
    await caller.notification.createRule({
      name: "regressions",
      events: ["regression.detected"],
      projectId: p.id,
      endpointIds: [endpoint.id],
      baselineBranch: "main",
      tolerancePct: 10,
    });
    const base = await upload(p.id, { latency_p99: 40, rps: 500 }, { branch: "main", scenario: "s" });
    // Within 10 %: nothing to tell.
    await upload(p.id, { latency_p99: 43, rps: 490 }, { branch: "feature", scenario: "s" });
    const worse = await upload(p.id, { latency_p99: 60, rps: 500 }, { branch: "feature", scenario: "s" });
    await waitFor(async () => rx.received.find((r) => r.path === "/reg"), 15_000, "the regression event");
    await new Promise((r) => setTimeout(r, 1_000));
    const mine = rx.received.filter((r) => r.path === "/reg");
    expect(mine).toHaveLength(1);
    const event = mine[0]!.verified as {
      type: string;
      data: {
        run: { id: string };
        figures: { metric: string; text: string; delta: number }[];
        links: { url: string }[];
      };
    };
    expect(event.type).toBe("regression.detected");
    expect(event.data.run.id).toBe(worse.id);
    expect(event.data.figures.map((f) => f.metric)).toEqual(["latency_p99"]);
    expect(event.data.figures[0]!.text).toBe("Latency p99: 60 ms vs 40 ms on main (+50.0%)");
    expect(event.data.links.map((l) => l.url)).toContain(
      `https://bench.example.test/compare?runs=${base.id},${worse.id}&baseline=${base.id}`,
    );
  });

  it("a change point in a scenario's trend is announced once, at the run where the new level starts", async () => {
    const rx = await receiver();
    const p = await project([]);
    const { endpoint } = await caller.notification.createEndpoint({
      name: "cp",
      channel: "slack",
      url: `${rx.url}/cp`,
    });
    await caller.notification.createRule({
      name: "trend",
      events: ["change_point.detected"],
      projectId: p.id,
      endpointIds: [endpoint.id],
    });
    const p99 = [40, 41, 40, 39, 40, 41, 80, 81, 79, 80, 81, 80];
    const runs = [];
    for (const v of p99)
      runs.push(await upload(p.id, { latency_p99: v, rps: 500 }, { branch: "main", scenario: "nightly" }));
    await waitFor(async () => rx.received.find((r) => r.path === "/cp"), 20_000, "the change point");
    await waitFor(
      async () => (await t.db.run.count({ where: { projectId: p.id, notifiedAt: null } })) === 0,
      20_000,
      "every run looked at",
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const mine = rx.received.filter((r) => r.path === "/cp");
    expect(mine).toHaveLength(1);
    const text = JSON.stringify(JSON.parse(mine[0]!.body));
    expect(text).toContain("Latency p99 moved from 40");
    expect(text).toContain(`starting at run #${runs[6]!.number}`);
  });

  it("a worker that stopped heartbeating is announced once to the install's organization", async () => {
    const rx = await receiver();
    const { endpoint } = await caller.notification.createEndpoint({
      name: "ops",
      channel: "slack",
      url: `${rx.url}/ops`,
    });
    await caller.notification.createRule({ name: "workers", events: ["worker.offline"], endpointIds: [endpoint.id] });
    const silentSince = new Date(Date.now() - 5 * 60_000);
    await t.db.worker.create({
      data: { id: "gone-1", host: "bench-host-7", pid: 4242, labels: [], heartbeatAt: silentSince },
    });
    await waitFor(async () => rx.received.find((r) => r.path === "/ops"), 15_000, "the offline message");
    await new Promise((r) => setTimeout(r, 1_000));
    const mine = rx.received.filter((r) => r.path === "/ops");
    expect(mine).toHaveLength(1);
    const msg = JSON.parse(mine[0]!.body);
    assertBlockKit(msg);
    expect(JSON.stringify(msg)).toContain("Worker gone-1 is offline");
    expect(JSON.stringify(msg)).toContain("bench-host-7");
    await t.db.worker.delete({ where: { id: "gone-1" } });
  });
});

describe("addresses the operator did not allow", () => {
  it("a webhook to an internal address is refused at save and at delivery; the internal server is never reached", async () => {
    // The internal service: on loopback, an address the operator did not list.
    let internalHits = 0;
    const internal = http.createServer((_req, res) => {
      internalHits++;
      res.end("internal secrets");
    });
    await new Promise<void>((resolve) => internal.listen(0, "127.0.0.2", resolve));
    servers.push(internal);
    const internalUrl = `http://127.0.0.2:${(internal.address() as AddressInfo).port}/hook`;

    // At save: refused with the field named.
    const refused = await caller.notification
      .createEndpoint({ name: "internal", channel: "webhook", url: internalUrl })
      .catch((err: unknown) => err as Error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/url.*127\.0\.0\.2.*operator/is);
    expect(await t.db.notificationEndpoint.count({ where: { urlOrigin: { contains: "127.0.0.2" } } })).toBe(0);

    // Saved while the operator allowed it, then the operator took it back: refused at delivery.
    await updateInstallSettings(t.db, { allowedTargets: ["127.0.0.1", "127.0.0.2"] });
    const { endpoint } = await caller.notification.createEndpoint({
      name: "internal",
      channel: "webhook",
      url: internalUrl,
    });
    await updateInstallSettings(t.db, { allowedTargets: ["127.0.0.1"] });
    const p = await project();
    await caller.notification.createRule({
      name: "r",
      events: ["thresholds.failed"],
      projectId: p.id,
      endpointIds: [endpoint.id],
    });
    await upload(p.id, { latency_p99: 99 });
    await waitFor(
      async () => (await deliveriesOf(endpoint.id)).find((d) => d.status === "failed"),
      15_000,
      "the refused delivery",
    );
    const [d] = await deliveriesOf(endpoint.id);
    // Refused once, not retried: waiting does not make an address allowed.
    expect(d).toMatchObject({ status: "failed", attempts: 1, lastStatus: null });
    expect(d!.lastError).toMatch(/refused: .*127\.0\.0\.2.*operator/);
    expect(internalHits).toBe(0);
  });
});

describe("PostgreSQL is the truth", () => {
  it("a delivery recorded while the queue lost it is requeued from PostgreSQL and sent once", async () => {
    const rx = await receiver();
    const p = await project();
    const { endpoint, secret } = await caller.notification.createEndpoint({
      name: "q",
      channel: "webhook",
      url: `${rx.url}/q`,
    });
    rx.secrets.set("/q", secret!);
    await caller.notification.createRule({
      name: "r",
      events: ["thresholds.failed"],
      projectId: p.id,
      endpointIds: [endpoint.id],
    });
    // Pause the consumer and drop whatever the queue holds: as if Redis restarted empty.
    await runner.notifier!.consumer.pause();
    await upload(p.id, { latency_p99: 70 });
    await waitFor(async () => (await deliveriesOf(endpoint.id)).length === 1, 10_000, "the recorded delivery");
    await runner.notifier!.queue.obliterate({ force: true });
    runner.notifier!.consumer.resume();
    await waitFor(
      async () => (await deliveriesOf(endpoint.id)).some((d) => d.status === "delivered"),
      15_000,
      "the requeued delivery",
    );
    await new Promise((r) => setTimeout(r, 800));
    expect(rx.received.filter((r) => r.path === "/q")).toHaveLength(1);
    expect(rx.received[0]!.verifyError).toBeUndefined();
  });

  it("send test delivers a signed test event to the endpoint", async () => {
    const rx = await receiver();
    const { endpoint, secret } = await caller.notification.createEndpoint({
      name: "t",
      channel: "webhook",
      url: `${rx.url}/t`,
    });
    rx.secrets.set("/t", secret!);
    await caller.notification.sendTest({ id: endpoint.id });
    await waitFor(async () => rx.received.find((r) => r.path === "/t"), 15_000, "the test delivery");
    const got = rx.received.find((r) => r.path === "/t")!;
    expect(got.verifyError).toBeUndefined();
    expect((got.verified as { type: string }).type).toBe("notification.test");
  });

  it("rotating the secret signs with the new and the old secret during the overlap", async () => {
    const rx = await receiver();
    const { endpoint, secret: oldSecret } = await caller.notification.createEndpoint({
      name: "rot",
      channel: "webhook",
      url: `${rx.url}/rot`,
    });
    const { secret: newSecret } = await caller.notification.rotateSecret({ id: endpoint.id });
    expect(newSecret).not.toBe(oldSecret);
    await caller.notification.sendTest({ id: endpoint.id });
    await waitFor(async () => rx.received.find((r) => r.path === "/rot"), 15_000, "the rotated delivery");
    const got = rx.received.find((r) => r.path === "/rot")!;
    expect(String(got.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(() => new Webhook(newSecret).verify(got.body, got.headers as never)).not.toThrow();
    expect(() => new Webhook(oldSecret!).verify(got.body, got.headers as never)).not.toThrow();
  });
});
