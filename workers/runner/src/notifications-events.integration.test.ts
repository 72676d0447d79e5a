import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createCaller } from "@benchboard/api";
import {
  announceAgent,
  createAgentToken,
  ensureLocalOrganization,
  stopAgent,
  touchAgent,
  verifyAgentToken,
} from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor as waitForIn } from "../test/wait";
import { workerProcesses } from "../test/worker-processes";
import { startRunner } from "./worker";

// Every event a rule can choose is emitted and delivered: a launched run's start and finish run
// on a real worker against an HTTP target on 127.0.0.1; an agent that stops heartbeating without
// saying so; a worker process killed with SIGKILL. Messages go to a Slack-shaped receiver on
// loopback through the real queue.
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbnotifyevents-${randomBytes(4).toString("hex")}`;
const secretKey = randomBytes(32);
const AGENT_OFFLINE_AFTER_MS = 1_500;
// Workers heartbeat every 5 s: a live one is never this quiet.
const WORKER_OFFLINE_AFTER_MS = 7_000;

let t: TestDatabase;
let queue: Queue;
let runner: Awaited<ReturnType<typeof startRunner>>;
let caller: ReturnType<typeof createCaller>;
let orgId: string;
let target: http.Server;
let targetUrl: string;
let receiver: http.Server;
let receiverUrl: string;
const received: { path: string; text: string; at: number }[] = [];
const logs: string[] = [];
const workers = workerProcesses(() => ({
  DATABASE_URL: t.url,
  REDIS_URL: redisUrl,
  // Its own queues: it takes none of this suite's runs, it only heartbeats and dies.
  BENCHBOARD_QUEUE_PREFIX: `${prefix}-other`,
  BENCHBOARD_SECRET_KEY: secretKey.toString("base64"),
}));

const waitFor = <T>(check: () => Promise<T | false | null | undefined>, timeoutMs: number, what: string) =>
  waitForIn(check, timeoutMs, what, () => [...logs, ...workers.logs].join("\n"));

beforeAll(async () => {
  target = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 5));
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "/", text: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  t = await createTestDatabase();
  await allowLoopbackTargets(t.db);
  const org = await ensureLocalOrganization(t.db);
  orgId = org.id;
  queue = createRunsQueue(redisUrl, prefix);
  caller = createCaller({ db: t.db, queue, orgId, userId: null, role: "owner", secretKey });
  runner = await startRunner({
    databaseUrl: t.url,
    redisUrl,
    prefix,
    concurrency: 1,
    workerId: `events-${prefix}`,
    labels: [],
    healthPort: 0,
    secretKey,
    publicUrl: "https://bench.example.test",
    log: (line) => logs.push(line),
    notify: {
      everyMs: 200,
      baseDelayMs: 300,
      agentOfflineAfterMs: AGENT_OFFLINE_AFTER_MS,
      workerOfflineAfterMs: WORKER_OFFLINE_AFTER_MS,
    },
  });
});

afterAll(async () => {
  await workers.stopAll();
  await runner?.close();
  await runner?.notifier?.queue.obliterate({ force: true }).catch(() => {});
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
  for (const s of [target, receiver]) {
    s?.closeAllConnections();
    s?.close();
  }
});

/** A Slack endpoint at its own path, with a rule sending these kinds to it. */
async function slackFor(events: string[], scope: { projectId?: string } = {}) {
  const path = `/services/${randomBytes(4).toString("hex")}`;
  const { endpoint } = await caller.notification.createEndpoint({
    name: `slack ${path}`,
    channel: "slack",
    url: `${receiverUrl}${path}`,
  });
  await caller.notification.createRule({
    name: `rule ${path}`,
    events: events as never,
    endpointIds: [endpoint.id],
    ...scope,
  });
  return { path, messages: () => received.filter((r) => r.path === path) };
}

const settle = () => new Promise((r) => setTimeout(r, 1_500));

describe("run.started and run.finished", () => {
  it("a launched run announces its start, then its finish with its figures, once each", async () => {
    const project = await caller.project.create({ name: `events-${randomBytes(3).toString("hex")}` });
    const slack = await slackFor(["run.started", "run.finished"], { projectId: project.id });
    const svc = await caller.target.create({ projectId: project.id, name: "svc", kind: "http", baseUrl: targetUrl });
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: "smoke",
      spec: { engine: "http-closed", concurrency: 1, durationS: 2 } as never,
    });
    const launched = await caller.run.launch({ targetId: svc.id, scenarioId: scenario.id });
    const runId = launched.id;

    const started = await waitFor(
      async () => slack.messages().find((m) => m.text.includes("started")),
      20_000,
      "the run.started message",
    );
    // Announced while the run was still going.
    const whenStarted = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(started.text).toContain(`#${whenStarted.number} started`);

    const finished = await waitFor(
      async () => slack.messages().find((m) => m.text.includes("finished")),
      30_000,
      "the run.finished message",
    );
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe("succeeded");
    expect(started.at).toBeLessThanOrEqual(finished.at);
    expect(finished.text).toContain(`#${run.number} finished`);
    expect(finished.text).toMatch(/succeeded after \d+ s/);
    expect(finished.text).toContain(`/runs/${run.id}`);
    await settle();
    expect(slack.messages()).toHaveLength(2);

    // An upload finishes (it ends as it is stored) but never "starts".
    const upload = await caller.upload.run({
      project: project.id,
      format: "native",
      content: JSON.stringify({
        schemaVersion: 1,
        startedAt: "2026-11-26T06:00:00Z",
        endedAt: "2026-11-26T06:01:00Z",
        result: { metrics: { requests: 10, success: 10, failed: 0, rps: 5 } },
      }),
    });
    const uploaded = await t.db.run.findUniqueOrThrow({ where: { id: upload.id } });
    await waitFor(
      async () => slack.messages().find((m) => m.text.includes(`#${uploaded.number} finished`)),
      20_000,
      "the upload's run.finished message",
    );
    await settle();
    expect(slack.messages()).toHaveLength(3);
    expect(slack.messages().some((m) => m.text.includes(`#${uploaded.number} started`))).toBe(false);
  }, 90_000);
});

describe("agent.offline", () => {
  it("an agent that stops heartbeating is announced once per silence; one that said it stopped is not", async () => {
    const slack = await slackFor(["agent.offline"]);
    const { token } = await createAgentToken(t.db, orgId, { name: "fleet", createdById: null });
    const agentCaller = (await verifyAgentToken(t.db, token))!;
    const dying = await announceAgent(t.db, agentCaller, {
      name: "ci-runner-7",
      labels: ["eu"],
      capacity: 1,
      version: "test",
    });
    const stopping = await announceAgent(t.db, agentCaller, {
      name: "once-runner",
      labels: ["eu"],
      capacity: 1,
      version: "test",
    });
    // It heartbeats a while, then one stops cleanly and the other goes silent.
    await touchAgent(t.db, dying.id);
    await stopAgent(t.db, stopping.id);

    const first = await waitFor(
      async () => slack.messages().find((m) => m.text.includes("ci-runner-7")),
      15_000,
      "the agent.offline message",
    );
    expect(first.text).toContain("Load agent ci-runner-7 is offline");
    await settle();
    expect(slack.messages()).toHaveLength(1);
    expect(slack.messages().some((m) => m.text.includes("once-runner"))).toBe(false);

    // It comes back, then dies again: a new silence, a new message.
    await touchAgent(t.db, dying.id);
    await waitFor(async () => slack.messages().length >= 2 || null, 15_000, "the second silence's message");
    await settle();
    expect(slack.messages()).toHaveLength(2);
  }, 60_000);
});

describe("worker.offline", () => {
  it("a worker process killed with SIGKILL is announced to the install's organization once", async () => {
    const slack = await slackFor(["worker.offline"]);
    const id = `doomed-${randomBytes(3).toString("hex")}`;
    workers.start(id);
    await workers.announced(t.db, id);
    await workers.signal(id, "SIGKILL");
    const message = await waitFor(
      async () => slack.messages().find((m) => m.text.includes(id)),
      WORKER_OFFLINE_AFTER_MS + 15_000,
      "the worker.offline message",
    );
    expect(message.text).toContain(`Worker ${id} is offline`);
    await settle();
    expect(slack.messages()).toHaveLength(1);
    // The live worker in this process was never announced.
    expect(slack.messages().some((m) => m.text.includes(`events-${prefix}`))).toBe(false);
  }, 90_000);
});
