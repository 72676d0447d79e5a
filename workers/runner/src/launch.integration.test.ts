import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCaller } from "@benchboard/api";
import { ensureLocalOrganization } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { startPrometheusApi } from "@benchboard/loadgen/test/prometheus-api";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerProcesses } from "../test/worker-processes";

// The walking skeleton end to end with real parts: tRPC launch → BullMQ job in Redis → a separate
// worker process → undici load against a real HTTP server → results in PostgreSQL.
const here = path.dirname(fileURLToPath(import.meta.url));
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbtest-${randomBytes(4).toString("hex")}`;

let t: TestDatabase;
let queue: Queue;
let server: http.Server;
let serverUrl: string;
let served = 0;
let caller: ReturnType<typeof createCaller>;
/** The worker process, run as production runs it, on this file's database and queues. */
const workers = workerProcesses(() => ({ DATABASE_URL: t.url, REDIS_URL: redisUrl, BENCHBOARD_QUEUE_PREFIX: prefix }));
const WORKER_ID = `test-${prefix}`;
const { waitFor } = workers;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/metrics") {
      // A Prometheus endpoint on the target, read once a second by the run's monitor.
      res.setHeader("content-type", "text/plain; version=0.0.4");
      res.end(
        "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes 123456789\n# TYPE app_queue gauge\napp_queue 42\n",
      );
      return;
    }
    served++;
    const delay = req.url?.startsWith("/slow") ? 200 : 5;
    setTimeout(() => res.end("hello"), delay);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  t = await createTestDatabase();

  // Test servers listen on 127.0.0.1, which this install's operator allows as a target.
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(redisUrl, prefix);
  // The worker's default of two slots.
  workers.start(WORKER_ID, { BENCHBOARD_WORKER_CONCURRENCY: "2" });
  await workers.announced(t.db, WORKER_ID);
  const org = await ensureLocalOrganization(t.db);
  caller = createCaller({ db: t.db, queue, orgId: org.id, userId: null, role: "owner" });
});

afterAll(async () => {
  if (workers.get(WORKER_ID)) await workers.signal(WORKER_ID, "SIGTERM");
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
  server?.close();
});

async function waitForEnd(runId: string) {
  let run = await caller.run.byId({ id: runId });
  await waitFor(
    async () => {
      run = await caller.run.byId({ id: runId });
      return ["succeeded", "failed", "canceled"].includes(run.status);
    },
    45_000,
    `run ${runId} to end`,
  );
  return run;
}

async function setup(baseUrl: string, spec: object) {
  const project = await caller.project.create({ name: `p-${randomBytes(3).toString("hex")}` });
  const target = await caller.target.create({ projectId: project.id, name: "svc", kind: "http", baseUrl });
  const scenario = await caller.scenario.create({ projectId: project.id, name: "closed", spec: spec as never });
  return { project, target, scenario };
}

describe("launch → worker → stored results", () => {
  it("runs a closed-model scenario and stores exact counts and ordered latency statistics", async () => {
    const before = served;
    const { target, scenario } = await setup(serverUrl, {
      engine: "http-closed",
      concurrency: 4,
      requests: 300,
      request: { path: "/hello" },
    });
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id, tags: ["smoke"] });
    expect(launched.status).toBe("queued");
    expect(launched.number).toBe(1);

    const run = await waitForEnd(launched.id);
    expect(run.status, run.error ?? "").toBe("succeeded");
    expect(run.startedAt).not.toBeNull();
    expect(run.endedAt).not.toBeNull();
    expect(run.tags).toEqual(["smoke"]);
    const m = run.result?.metrics as Record<string, number>;
    expect(m.requests).toBe(300);
    expect(m.success).toBe(300);
    expect(m.failed).toBe(0);
    expect(served - before).toBe(300);
    expect(m.rps).toBeGreaterThan(0);
    // Every request waited for the server's 5 ms timer (libuv timers may fire up to 1 ms early).
    expect(m.latency_min).toBeGreaterThanOrEqual(4);
    expect(m.latency_min).toBeLessThanOrEqual(m.latency_p50!);
    expect(m.latency_p50).toBeLessThanOrEqual(m.latency_p90!);
    expect(m.latency_p90).toBeLessThanOrEqual(m.latency_p99!);
    expect(m.latency_p99).toBeLessThanOrEqual(m.latency_max!);
    expect(m.latency_mean).toBeGreaterThanOrEqual(m.latency_min!);
    expect(run.result?.statusCounts).toEqual({ "200": 300 });
    expect(run.result?.histogram).toMatch(/^[A-Za-z0-9+/=]+$/);
    // The run keeps what it ran with even if the scenario changes later.
    expect((run.scenarioSnapshot as { spec: { requests: number } }).spec.requests).toBe(300);
    expect((run.targetSnapshot as { baseUrl: string }).baseUrl).toBe(serverUrl);
  });

  it("ends a run against a target that is down as failed with a readable reason", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((r) => closed.close(r));

    const { target, scenario } = await setup(deadUrl, { engine: "http-closed", concurrency: 2, requests: 20 });
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id });
    const run = await waitForEnd(launched.id);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/ECONNREFUSED/);
    expect(run.error).toMatch(/20 of 20 requests failed/);
    // The partial result is kept: every attempt is counted as a connection error.
    expect((run.result?.metrics as Record<string, number>).failed).toBe(20);
  });

  it("cancels a running run and keeps what was measured", async () => {
    const { target, scenario } = await setup(serverUrl, {
      engine: "http-closed",
      concurrency: 2,
      durationS: 30,
      request: { path: "/slow" },
    });
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id });
    await waitFor(async () => (await caller.run.byId({ id: launched.id })).status === "running", 20_000, "running");
    await new Promise((r) => setTimeout(r, 800));
    const asked = Date.now();
    await caller.run.cancel({ id: launched.id });
    const run = await waitForEnd(launched.id);
    expect(run.status).toBe("canceled");
    expect(Date.now() - asked).toBeLessThan(5_000);
    expect((run.result?.metrics as Record<string, number>).requests).toBeGreaterThan(0);
  });

  it("rejects bad input naming the field and stores nothing", async () => {
    const project = await caller.project.create({ name: "bad-input" });
    await expect(
      caller.target.create({ projectId: project.id, name: "x", kind: "http", baseUrl: "not a url" }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { issues: [{ path: ["baseUrl"], message: "must be an http:// or https:// URL" }] },
    });
    await expect(
      caller.scenario.create({
        projectId: project.id,
        name: "s",
        spec: { engine: "http-closed", concurrency: 0, requests: 1 } as never,
      }),
    ).rejects.toThrow(/concurrency|spec/);
    await expect(caller.run.launch({ targetId: "missing", scenarioId: "missing" })).rejects.toThrow(
      /targetId: target not found/,
    );
    expect(await t.db.target.count({ where: { projectId: project.id } })).toBe(0);
    expect(await t.db.scenario.count({ where: { projectId: project.id } })).toBe(0);
  });

  it("refuses to send load to a cloud metadata address even if such a target got stored", async () => {
    const project = await caller.project.create({ name: "metadata" });
    const org = await ensureLocalOrganization(t.db);
    // Stored directly: the API refuses such targets, but DNS can change after registration.
    const target = await t.db.target.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        name: "imds",
        kind: "http",
        baseUrl: "http://169.254.169.254/latest/meta-data/",
      },
    });
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: "probe",
      spec: { engine: "http-closed", concurrency: 1, requests: 1 } as never,
    });
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id });
    const run = await waitForEnd(launched.id);
    expect(run.status).toBe("failed");
    expect(run.error).toBe("refused to send load: 169.254.169.254 is a cloud metadata address, never a target");
    expect(run.result).toBeNull();
  });

  it("watches the target's Prometheus endpoint during the run and stores memory and queue depth", async () => {
    const project = await caller.project.create({ name: "monitored" });
    const target = await caller.target.create({
      projectId: project.id,
      name: "svc",
      kind: "http",
      baseUrl: serverUrl,
      monitors: [
        {
          config: {
            kind: "prometheus",
            url: `${serverUrl}/metrics`,
            gauges: [{ name: "queue_depth", metric: "app_queue" }],
          },
        },
      ],
    });
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: "3 s",
      spec: { engine: "http-closed", concurrency: 2, durationS: 3 } as never,
    });
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id });
    const run = await waitForEnd(launched.id);
    expect(run.status, run.error ?? "").toBe("succeeded");
    const m = run.result?.metrics as Record<string, number>;
    expect(m.mem_peak_bytes).toBe(123456789);
    expect(m.mem_avg_bytes).toBe(123456789);
    expect(m.queue_depth_peak).toBe(42);
    const series = await t.db.series.findMany({ where: { runId: run.id } });
    const mem = series.find((s) => s.metric === "mem_bytes");
    expect((mem?.values as (number | null)[]).filter((v) => v === 123456789).length).toBeGreaterThanOrEqual(2);
    expect(series.some((s) => s.metric === "gauge.queue_depth")).toBe(true);
    // The engine's series and the monitors' share one clock: both start on whole seconds.
    const rps = series.find((s) => s.metric === "rps");
    expect(Math.abs((rps?.start.getTime() ?? 0) - (mem?.start.getTime() ?? 0))).toBeLessThanOrEqual(1000);
  });

  it("evaluates a PromQL monitor over the run's window and stores its series; a refused query is a readable monitor error", async () => {
    const query = 'sum(container_memory_working_set_bytes{pod=~"gateway-.*"})';
    const prometheus = await startPrometheusApi((q) =>
      q === query
        ? { series: [(ts) => 300_000_000 + (ts % 7)] }
        : { status: 400, body: JSON.stringify({ status: "error", errorType: "bad_data", error: "1:4: parse error" }) },
    );
    try {
      const project = await caller.project.create({ name: "promql" });
      const target = await caller.target.create({
        projectId: project.id,
        name: "svc",
        kind: "http",
        baseUrl: serverUrl,
        monitors: [
          { config: { kind: "promql", url: prometheus.url, query, metric: "memory" } },
          { config: { kind: "promql", url: prometheus.url, query: "sum(", metric: "custom", name: "broken" } },
        ],
      });
      const scenario = await caller.scenario.create({
        projectId: project.id,
        name: "3 s",
        spec: { engine: "http-closed", concurrency: 2, durationS: 3 } as never,
      });
      const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id });
      const run = await waitForEnd(launched.id);
      expect(run.status, run.error ?? "").toBe("succeeded");
      const asked = prometheus.queries.findLast((q) => q.query === query);
      expect(asked).toBeDefined();
      expect(asked!.end - asked!.start).toBeGreaterThanOrEqual(2);
      const mem = await t.db.series.findFirst({ where: { runId: run.id, metric: "mem_bytes" } });
      expect(mem?.start.getTime()).toBe(asked!.start * 1000);
      const values = mem?.values as number[];
      expect(values).toEqual(values.map((_, i) => 300_000_000 + ((asked!.start + i) % 7)));
      const m = run.result?.metrics as Record<string, number>;
      expect(m.mem_peak_bytes).toBe(Math.max(...values));
      const extra = (await t.db.runResult.findUnique({ where: { runId: run.id } }))?.extra as {
        monitorErrors?: { message: string }[];
      };
      expect(extra.monitorErrors?.map((e) => e.message)).toEqual([
        "query: Prometheus refused the expression (bad_data): 1:4: parse error",
      ]);
      expect(await t.db.series.count({ where: { runId: run.id, metric: "gauge.broken" } })).toBe(0);
    } finally {
      await prometheus.close();
    }
  });
});

describe("a chat run's duration", () => {
  let chat: ChildProcess | undefined;
  let chatUrl = "";

  beforeAll(async () => {
    // The reference chat target as its own process, fanning out through the real RabbitMQ.
    const main = path.join(here, "../../../apps/targets/src/chat/main.ts");
    chat = spawn(process.execPath, ["--import", "tsx", main], {
      env: {
        ...process.env,
        BENCHBOARD_CHAT_PORT: "0",
        BENCHBOARD_TARGETS_HOST: "127.0.0.1",
        BENCHBOARD_CHAT_PREFIX: `${prefix}-chat`,
        BENCHBOARD_CHAT_INSTANCE_ID: "duration",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    chat.stdout?.on("data", (d) => {
      out += String(d);
    });
    chat.stderr?.on("data", (d) => workers.logs.push(String(d)));
    chatUrl = await waitFor(async () => /\(http (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1], 30_000, "chat target");
  });

  afterAll(async () => {
    chat?.kill("SIGTERM");
    if (chat && chat.exitCode === null) await new Promise((r) => chat?.once("exit", r));
  });

  it("lasts a launch's duration override: users keep chatting until it ends, and the snapshot says so", async () => {
    const project = await caller.project.create({ name: `chat-${randomBytes(3).toString("hex")}` });
    const target = await caller.target.create({
      projectId: project.id,
      name: "chat",
      kind: "ws_chat",
      baseUrl: chatUrl,
    });
    // On its own this scenario is over in a fraction of a second: 5 messages each, 50 ms apart.
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: "short chat",
      spec: { engine: "ws-chat", users: 6, rooms: 2, messagesPerUser: 5, messageIntervalMs: 50, durationS: 60 },
    });
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id, durationS: 3 });
    // Live while it lasts: the progress the live view reads moves through the duration.
    const fractions = new Set<number>();
    await waitFor(
      async () => {
        const live = await t.db.run.findUniqueOrThrow({ where: { id: launched.id } });
        const fraction = (live.progress as { fraction?: number | null } | null)?.fraction;
        if (live.status === "running" && typeof fraction === "number") fractions.add(Math.round(fraction * 100));
        return !["queued", "running"].includes(live.status);
      },
      30_000,
      "chat run to end",
    );
    const run = await waitForEnd(launched.id);
    expect(
      [...fractions].some((f) => f > 0 && f < 100),
      `fractions seen: ${[...fractions].join(", ")}`,
    ).toBe(true);
    expect(run.status, run.error ?? "").toBe("succeeded");

    const snapshot = run.scenarioSnapshot as { spec: Record<string, unknown>; overrides?: Record<string, unknown> };
    expect(snapshot.overrides).toEqual({ durationS: 3 });
    expect(snapshot.spec).toMatchObject({ durationS: 3, endsAfter: "duration", messagesPerUser: 5 });

    const m = run.result?.metrics as Record<string, number>;
    // The run lasted the duration (generous bounds: behaviour, not timing precision)…
    expect(m.runtime_ms).toBeGreaterThanOrEqual(2_500);
    expect(m.runtime_ms).toBeLessThanOrEqual(6_000);
    const wall = new Date(run.endedAt!).getTime() - new Date(run.startedAt!).getTime();
    expect(wall).toBeGreaterThanOrEqual(2_500);
    // …and the users kept sending past their 5 messages: about 3 s / 50 ms = 60 each.
    expect(m.requests).toBeGreaterThan(6 * 5 * 4);
    expect(m.requests).toBeLessThanOrEqual(6 * 61);
    // Every message reached the 2 other members of its room through the broker.
    expect(m.messages).toBe(m.requests! * 2);
    expect(m.failed).toBe(0);
  });

  it("refuses a rate or concurrency override for chat, naming the field, and stores no run", async () => {
    const project = await caller.project.create({ name: `chat-${randomBytes(3).toString("hex")}` });
    const target = await caller.target.create({
      projectId: project.id,
      name: "chat",
      kind: "ws_chat",
      baseUrl: chatUrl,
    });
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: "short chat",
      spec: { engine: "ws-chat", users: 6, rooms: 2, messagesPerUser: 5 },
    });
    await expect(caller.run.launch({ targetId: target.id, scenarioId: scenario.id, rate: 50 })).rejects.toThrow(
      /^rate: a chat scenario is paced by its message interval/,
    );
    await expect(
      caller.run.launch({ targetId: target.id, scenarioId: scenario.id, concurrency: 3, durationS: 2 }),
    ).rejects.toThrow(/^concurrency: a chat scenario's load is its users and rooms/);
    expect(await t.db.run.count({ where: { projectId: project.id } })).toBe(0);
  });

  it("ends after its messages when no duration is given", async () => {
    const project = await caller.project.create({ name: `chat-${randomBytes(3).toString("hex")}` });
    const target = await caller.target.create({
      projectId: project.id,
      name: "chat",
      kind: "ws_chat",
      baseUrl: chatUrl,
    });
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: "short chat",
      spec: { engine: "ws-chat", users: 6, rooms: 2, messagesPerUser: 5, messageIntervalMs: 50, durationS: 60 },
    });
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id });
    const run = await waitForEnd(launched.id);
    expect(run.status, run.error ?? "").toBe("succeeded");
    expect((run.scenarioSnapshot as { spec: Record<string, unknown> }).spec).toMatchObject({ endsAfter: "messages" });
    const m = run.result?.metrics as Record<string, number>;
    expect(m.requests).toBe(30);
    expect(m.messages).toBe(60);
    expect(m.runtime_ms).toBeLessThan(2_500);
  });
});
