import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCaller } from "@benchboard/api";
import { decodeHistogram } from "@benchboard/core";
import { ensureLocalOrganization } from "@benchboard/db";
import { allowLoopbackTargets, createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createQueueFor, createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { startChatServer } from "@benchboard/loadgen/test/chat-server";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor as waitForIn } from "../test/wait";

// A run split across real worker processes: shards on different workers merge exactly, a
// killed worker's shard fails the run while the other shard's measurements are kept, and a
// run that asks for a label goes only to workers offering it.
const here = path.dirname(fileURLToPath(import.meta.url));
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const prefix = `bbshard-${randomBytes(4).toString("hex")}`;
let t: TestDatabase;
let queue: Queue;
let queueFor: ReturnType<typeof createQueueFor>;
let caller: ReturnType<typeof createCaller>;
let server: http.Server;
let url: string;
let served = 0;
let scrapes = 0;
const workers = new Map<string, ChildProcess>();
const logs: string[] = [];

function startWorker(id: string, labels = ""): void {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(here, "index.ts")], {
    env: {
      ...process.env,
      DATABASE_URL: t.url,
      REDIS_URL: redisUrl,
      BENCHBOARD_QUEUE_PREFIX: prefix,
      BENCHBOARD_WORKER_ID: id,
      BENCHBOARD_WORKER_CONCURRENCY: "1",
      BENCHBOARD_WORKER_LABELS: labels,
      BENCHBOARD_RUN_STALE_AFTER_MS: "3000",
      BENCHBOARD_SHARD_START_WAIT_MS: "2000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => logs.push(`[${id}] ${d}`));
  child.stderr?.on("data", (d) => logs.push(`[${id}] ${d}`));
  workers.set(id, child);
}

const waitFor = <T>(check: () => Promise<T | false | null | undefined>, timeoutMs: number, what: string) =>
  waitForIn(check, timeoutMs, what, () => logs.join(""));

const ended = (id: string) => async () => {
  const run = await caller.run.byId({ id });
  return ["succeeded", "failed", "canceled"].includes(run.status) ? run : null;
};

async function setup(spec: object) {
  const project = await caller.project.create({ name: `p-${randomBytes(3).toString("hex")}` });
  const target = await caller.target.create({ projectId: project.id, name: "svc", kind: "http", baseUrl: url });
  const scenario = await caller.scenario.create({ projectId: project.id, name: "s", spec: spec as never });
  return { targetId: target.id, scenarioId: scenario.id };
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/metrics") {
      // A Prometheus endpoint whose memory reading rises by one per scrape; not load.
      scrapes++;
      res.end(`process_resident_memory_bytes ${300_000_000 + scrapes}\n`);
      return;
    }
    served++;
    setTimeout(() => res.end("ok"), 10);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await createTestDatabase();
  // Test servers listen on 127.0.0.1, which this install's operator allows as a target.
  await allowLoopbackTargets(t.db);
  queue = createRunsQueue(redisUrl, prefix);
  queueFor = createQueueFor(redisUrl, prefix, queue);
  const org = await ensureLocalOrganization(t.db);
  caller = createCaller({ db: t.db, queue, queueFor, orgId: org.id, userId: null, role: "owner" });
  startWorker("w-1");
  startWorker("w-2");
  await waitFor(async () => (await t.db.worker.count()) === 2, 30_000, "two workers");
});

afterAll(async () => {
  for (const w of workers.values()) if (w.exitCode === null) w.kill("SIGKILL");
  await queueFor?.closeAll();
  for (const q of [queue]) await q?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  await t?.drop();
  server?.close();
});

describe("sharded runs", () => {
  it("splits a run across worker processes and merges their results exactly", async () => {
    const before = served;
    const ids = await setup({ engine: "http-closed", concurrency: 6, requests: 1200 });
    const launched = await caller.run.launch({ ...ids, shards: 3 });
    const run = await waitFor(ended(launched.id), 60_000, "the sharded run");
    expect(run.status, run.error ?? "").toBe("succeeded");
    const shards = await t.db.runShard.findMany({ where: { runId: run.id }, orderBy: { index: "asc" } });
    expect(shards.map((s) => s.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    // Each shard took its share of the requests, and the shares add up exactly.
    expect(shards.map((s) => (s.result as { metrics: { requests: number } }).metrics.requests)).toEqual([
      400, 400, 400,
    ]);
    expect(new Set(shards.map((s) => s.workerId)).size).toBeGreaterThanOrEqual(2);
    const m = run.result?.metrics as Record<string, number>;
    expect(m.requests).toBe(1200);
    expect(m.success).toBe(1200);
    expect(served - before).toBe(1200);
    // The merged histogram holds every sample: percentiles come from it, never averaged.
    expect(decodeHistogram(run.result?.histogram ?? "").totalCount).toBe(1200);
    expect(run.result?.statusCounts).toEqual({ "200": 1200 });
    // Two single-run workers for three shards: the first two waited for the third, then started
    // without it, and the run says its combined rate does not describe overlapping load.
    expect(run.result?.valid).toBe(false);
    expect(run.result?.invalidReasons.join("\n")).toMatch(
      /^shard \d: started without shard \d, not picked up within 2 s \(fewer free workers than shards\?\)/m,
    );
  });

  it("holds the organization's rate cap across shards: each shard gets its share of the ceiling", async () => {
    const org = await ensureLocalOrganization(t.db);
    const caps = org.caps;
    await t.db.organization.update({ where: { id: org.id }, data: { caps: { maxRate: 10 } } });
    try {
      const ids = await setup({ engine: "http-closed", concurrency: 4, durationS: 3 });
      const launched = await caller.run.launch({ ...ids, shards: 2 });
      const run = await waitFor(ended(launched.id), 60_000, "the capped sharded run");
      expect(run.status, run.error ?? "").toBe("succeeded");
      const shards = await t.db.runShard.findMany({ where: { runId: run.id }, orderBy: { index: "asc" } });
      type ShardResult = { metrics: { requests: number }; startedAt: string; endedAt: string };
      const results = shards.map((s) => s.result as ShardResult);
      // Each shard's share of a 10 req/s ceiling is 5 req/s: over its own measured time (3 s, more
      // when a loaded machine ends it late), at most that, plus the first send and one slot of the
      // ceiling's small burst.
      for (const r of results) {
        const runtimeS = (Date.parse(r.endedAt) - Date.parse(r.startedAt)) / 1000;
        expect(runtimeS).toBeGreaterThanOrEqual(2.9);
        expect(r.metrics.requests).toBeLessThanOrEqual(Math.floor(5 * runtimeS) + 2);
      }
      const total = results.reduce((a, r) => a + r.metrics.requests, 0);
      expect(total).toBeGreaterThan(15);
      expect((run.result?.metrics as Record<string, number>).rps).toBeLessThanOrEqual(10 * 1.1);
    } finally {
      await t.db.organization.update({ where: { id: org.id }, data: { caps: caps ?? {} } });
    }
  });

  it("fails a run whose shard's worker is killed, keeping what every shard measured", async () => {
    const ids = await setup({ engine: "http-closed", concurrency: 2, durationS: 10 });
    const launched = await caller.run.launch({ ...ids, shards: 2 });
    // Killed once shard 1 has stored a checkpoint (every 5 s), mid-run.
    const running = await waitFor(
      async () => {
        const shards = await t.db.runShard.findMany({ where: { runId: launched.id }, orderBy: { index: "asc" } });
        const checkpointed = (shards[1]?.result as { metrics?: { requests: number } } | null)?.metrics;
        return shards.length === 2 && shards.every((s) => s.status === "running") && checkpointed ? shards : null;
      },
      30_000,
      "both shards running and shard 1 checkpointed",
    );
    const victim = running[1]!.workerId ?? "";
    workers.get(victim)?.kill("SIGKILL");

    const run = await waitFor(ended(launched.id), 40_000, "the run to end");
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(
      /^1 of 2 shards failed: shard 2: its worker stopped responding \(no heartbeat for \d+ s\); what the shards measured \(a failed one's until its last checkpoint\) is kept$/,
    );
    const shards = await t.db.runShard.findMany({ where: { runId: launched.id }, orderBy: { index: "asc" } });
    const requestsOf = (i: number) => (shards[i]!.result as { metrics: { requests: number } }).metrics.requests;
    expect(requestsOf(0)).toBeGreaterThan(0);
    expect(requestsOf(1)).toBeGreaterThan(0);
    // The merged result holds the finished shard and the killed one's checkpoint, flagged partial.
    const merged = run.result?.metrics as Record<string, number>;
    expect(merged.requests).toBe(requestsOf(0) + requestsOf(1));
    expect(run.result?.valid).toBe(false);
    expect(run.result?.invalidReasons).toContainEqual(
      expect.stringMatching(/^shard 2: partial result: checkpoint after \d+ s/),
    );
  });

  it("a killed lead worker's shard keeps the monitor series it sampled, checkpoint by checkpoint", async () => {
    // Two more workers: the test before killed one.
    startWorker("w-3");
    startWorker("w-4");
    await waitFor(
      async () => (await t.db.worker.count({ where: { id: { in: ["w-3", "w-4"] } } })) === 2,
      30_000,
      "two more workers",
    );
    const project = await caller.project.create({ name: `mon-${randomBytes(3).toString("hex")}` });
    const target = await caller.target.create({
      projectId: project.id,
      name: "watched",
      kind: "http",
      baseUrl: url,
      monitors: [{ config: { kind: "prometheus", url: `${url}/metrics` } }],
    });
    const scenario = await caller.scenario.create({
      projectId: project.id,
      name: "s",
      spec: { engine: "http-open", rate: 40, durationS: 15 } as never,
    });
    const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id, shards: 2 });
    type Checkpoint = { series?: Record<string, { start: number; intervalMs: number; values: (number | null)[] }> };
    // The lead (shard 1) has checkpointed several seconds of its monitors' samples.
    const lead = await waitFor(
      async () => {
        const s = await t.db.runShard.findFirst({ where: { runId: launched.id, index: 0, status: "running" } });
        const mem = (s?.result as Checkpoint | null)?.series?.mem_bytes;
        return mem && mem.values.filter((v) => v !== null).length >= 3 ? s : null;
      },
      40_000,
      "the lead shard's checkpoint with its memory series",
    );
    const checkpointed = (lead.result as Checkpoint).series!.mem_bytes!;
    workers.get(lead.workerId ?? "")?.kill("SIGKILL");

    const run = await waitFor(ended(launched.id), 60_000, "the run to end");
    expect(run.status).toBe("failed");
    const mem = await t.db.series.findFirst({ where: { runId: run.id, metric: "mem_bytes" } });
    expect(mem).not.toBeNull();
    const stored = new Map(
      (mem!.values as (number | null)[]).map((v, i) => [mem!.start.getTime() + i * mem!.intervalMs, v] as const),
    );
    checkpointed.values.forEach((v, i) => {
      if (v !== null) expect(stored.get(checkpointed.start + i * checkpointed.intervalMs)).toBe(v);
    });
    expect((run.result?.metrics as Record<string, number>).mem_peak_bytes).toBeGreaterThan(300_000_000);
  }, 120_000);

  it("sends a run that asks for a label only to workers offering it, and refuses unknown labels", async () => {
    // Started here so that no earlier test can have killed it.
    startWorker("w-eu", "eu");
    await waitFor(
      async () => (await t.db.worker.findUnique({ where: { id: "w-eu" } })) !== null,
      30_000,
      "the eu worker",
    );
    const ids = await setup({ engine: "http-closed", concurrency: 1, requests: 20 });
    await expect(caller.run.launch({ ...ids, workerLabel: "mars" })).rejects.toThrow(
      "no online worker offers the label mars",
    );
    await expect(caller.run.launch({ ...ids, workerLabel: "Not A Label" })).rejects.toThrow();
    for (let i = 0; i < 3; i++) {
      const launched = await caller.run.launch({ ...ids, workerLabel: "eu" });
      const run = await waitFor(ended(launched.id), 30_000, "the labelled run");
      expect(run.status).toBe("succeeded");
      expect(run.workerIds).toEqual(["w-eu"]);
    }
    const chat = await setup({ engine: "ws-chat", users: 4, rooms: 2, messagesPerUser: 1 });
    await expect(caller.run.launch({ ...chat, shards: 3 })).rejects.toThrow(
      "rooms (2) is below the shard count: a room is never split",
    );
  });

  it("splits a chat run by rooms across workers and counts every delivery once", async () => {
    const chatServer = await startChatServer();
    try {
      const project = await caller.project.create({ name: `chat-${randomBytes(3).toString("hex")}` });
      const target = await caller.target.create({
        projectId: project.id,
        name: "chat",
        kind: "ws_chat",
        baseUrl: chatServer.url,
      });
      const scenario = await caller.scenario.create({
        projectId: project.id,
        name: "rooms",
        spec: { engine: "ws-chat", users: 12, rooms: 4, messagesPerUser: 10, poolSize: 4 },
      });
      const launched = await caller.run.launch({ targetId: target.id, scenarioId: scenario.id, shards: 2 });
      const run = await waitFor(ended(launched.id), 60_000, "the sharded chat run");
      expect(run.status, run.error ?? "").toBe("succeeded");
      const shards = await t.db.runShard.findMany({ where: { runId: run.id }, orderBy: { index: "asc" } });
      const roomsOf = (result: unknown) =>
        ((result as { extra: { rooms: { room: string }[] } }).extra.rooms ?? []).map((r) => r.room);
      expect(shards.map((s) => roomsOf(s.result))).toEqual([
        ["room-0", "room-1"],
        ["room-2", "room-3"],
      ]);
      // Rooms of 3: each of the 120 messages is owed to 2 other members, across both shards.
      const m = run.result?.metrics as Record<string, number>;
      expect(m.requests).toBe(120);
      expect(m.messages).toBe(240);
      expect(m.failed_connections).toBe(0);
      expect(chatServer.stats.connections).toBe(12);
      expect(decodeHistogram(run.result?.histogram ?? "").totalCount).toBe(240);
      expect(m["custom.room_throughput_median"]).toBeGreaterThan(0);
      // The shards started together: neither sent anything before both were ready.
      const lastReady = Math.max(...shards.map((s) => s.readyAt?.getTime() ?? Number.NaN));
      for (const s of shards) {
        expect(new Date((s.result as { startedAt: string }).startedAt).getTime()).toBeGreaterThanOrEqual(lastReady);
      }
      expect(run.result?.valid).toBe(true);
    } finally {
      await chatServer.close();
    }
  });
});
