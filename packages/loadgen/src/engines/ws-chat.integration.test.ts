import { decodeHistogram, planShards, ZScenarioSpec } from "@benchboard/core";
import { afterEach, describe, expect, it } from "vitest";
import { startChatServer } from "../../test/chat-server";
import { mergeResults, runScenario } from "../index";

type ChatServer = Awaited<ReturnType<typeof startChatServer>>;
let server: ChatServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

interface ChatExtra {
  expectedDeliveries: number;
  deliveries: number;
  lostDeliveries: number | null;
  duplicates: number;
  failedMessages: number;
  echoes: number;
  rooms: { room: string; members: number; sent: number; delivered: number; throughput: number | null }[];
}

describe("ws-chat engine", () => {
  it("counts every delivery to every other member exactly once", async () => {
    server = await startChatServer({ handshakeDelayMs: 15 });
    // 20 users in 4 rooms of 5: each message is owed to 4 other members.
    const result = await runScenario(
      { engine: "ws-chat", users: 20, rooms: 4, messagesPerUser: 25, poolSize: 3 },
      { baseUrl: server.url },
    );
    const extra = result.extra as unknown as ChatExtra;
    expect(server.stats.maxHandshakesInFlight).toBeLessThanOrEqual(3);
    expect(server.stats.maxHandshakesInFlight).toBeGreaterThanOrEqual(2);
    expect(result.metrics.requests).toBe(500);
    expect(result.metrics.messages).toBe(2000);
    expect(extra.expectedDeliveries).toBe(2000);
    expect(extra.lostDeliveries).toBe(0);
    expect(extra.duplicates).toBe(0);
    // The sender's own copies are informational: the run may end before the last ones arrive.
    expect(extra.echoes).toBeGreaterThan(0);
    expect(extra.echoes).toBeLessThanOrEqual(500);
    expect(result.metrics.failed).toBe(0);
    expect(result.metrics.failed_connections).toBe(0);
    expect(result.metrics.throughput).toBeGreaterThan(0);
    expect(result.metrics.latency_p50).toBeGreaterThan(0);
    expect(result.histogram).toBeDefined();
    expect(extra.rooms).toHaveLength(4);
    for (const room of extra.rooms) expect(room).toMatchObject({ members: 5, sent: 125, delivered: 500 });
    expect(result.metrics["custom.room_throughput_median"]).toBeGreaterThan(0);
    const throughput = result.series.throughput!.values as number[];
    expect(throughput.reduce((a, b) => a + b, 0)).toBe(2000);
  });

  it("keeps chatting until the duration ends when it ends after its duration, every delivery counted", async () => {
    server = await startChatServer();
    // Interval 0 and the duration: as fast as the rate ceiling lets, for 1.5 s; the 2 messages
    // per user would have been over at once.
    const result = await runScenario(
      {
        engine: "ws-chat",
        users: 6,
        rooms: 2,
        messagesPerUser: 2,
        messageIntervalMs: 0,
        durationS: 1.5,
        endsAfter: "duration",
      },
      { baseUrl: server.url, limits: { maxRate: 600 } },
    );
    const extra = result.extra as unknown as ChatExtra;
    expect(result.metrics.runtime_ms).toBeGreaterThanOrEqual(1_400);
    expect(result.metrics.runtime_ms).toBeLessThan(4_000);
    expect(result.metrics.requests).toBeGreaterThan(6 * 2 * 10);
    // Held at the ceiling: at most 600 messages a second (and a burst's worth).
    expect(result.metrics.requests).toBeLessThanOrEqual(600 * 1.5 + 20);
    expect(result.metrics.messages).toBe(result.metrics.requests! * 2);
    expect(extra.lostDeliveries).toBe(0);
    expect(extra.duplicates).toBe(0);
    expect(result.metrics.failed).toBe(0);
  });

  it("counts lost, duplicated and refused messages and failed connections exactly", async () => {
    server = await startChatServer({ dropEvery: 7, duplicateEvery: 11, refuseEvery: 13, rejectConnections: 2 });
    // 2 of 14 connections are refused; 12 users join 3 rooms of 4 (users 2..13 round-robin).
    const result = await runScenario(
      { engine: "ws-chat", users: 14, rooms: 3, messagesPerUser: 20, drainTimeoutMs: 1_000 },
      { baseUrl: server.url },
    );
    const extra = result.extra as unknown as ChatExtra;
    expect(result.metrics.failed_connections).toBe(2);
    expect(result.errors.find((e) => e.kind === "connect")?.count).toBe(2);
    const sent = 12 * 20;
    expect(result.metrics.requests).toBe(sent);
    const refused = Math.floor(sent / 13);
    expect(result.metrics.failed).toBe(refused);
    expect(extra.failedMessages).toBe(refused);
    const members = extra.rooms.map((r) => r.members).sort();
    expect(members).toEqual([4, 4, 4]);
    const owed = (sent - refused) * 3;
    expect(extra.expectedDeliveries).toBe(owed);
    const dropped = Math.floor(owed / 7);
    expect(extra.lostDeliveries).toBe(dropped);
    expect(result.metrics.messages).toBe(owed - dropped);
    expect(result.errors.find((e) => e.kind === "lost")?.count).toBe(dropped);
    // Every 11th delivery attempt was doubled, unless it was one of the dropped ones.
    let duplicates = 0;
    for (let n = 1; n <= owed; n++) if (n % 11 === 0 && n % 7 !== 0) duplicates++;
    expect(extra.duplicates).toBe(duplicates);
  });

  it("reports connection failures against a closed port", async () => {
    const gone = await startChatServer();
    const url = gone.url;
    await gone.close();
    const result = await runScenario({ engine: "ws-chat", users: 5, rooms: 1, messagesPerUser: 3 }, { baseUrl: url });
    expect(result.metrics.failed_connections).toBe(5);
    expect(result.metrics.requests).toBe(0);
  });

  it("drops the paced messages a stall of the generator made overdue instead of sending them in a burst", async () => {
    server = await startChatServer();
    // The generator's process held for 400 ms while 4 users send every 20 ms for 0.8 s.
    const stall = setTimeout(() => {
      const until = performance.now() + 400;
      while (performance.now() < until) {}
    }, 300);
    let result: Awaited<ReturnType<typeof runScenario>>;
    try {
      result = await runScenario(
        { engine: "ws-chat", users: 4, rooms: 1, messagesPerUser: 40, messageIntervalMs: 20 },
        { baseUrl: server.url },
      );
    } finally {
      clearTimeout(stall);
    }
    const dropped = result.metrics.stall_dropped!;
    // Each user's messages due more than 100 ms before it ran again: ~15 of its 20.
    expect(dropped).toBeGreaterThanOrEqual(4 * 8);
    expect(dropped).toBeLessThanOrEqual(4 * 20);
    expect(result.metrics.requests! + dropped).toBe(160);
    // Nothing is owed for a message never sent.
    const extra = result.extra as unknown as ChatExtra;
    expect(extra.expectedDeliveries).toBe(result.metrics.requests! * 3);
    expect(extra.lostDeliveries).toBe(0);
    expect(result.valid).toBe(false);
    expect(result.invalidReasons[0]).toMatch(/^the load generator stalled: \d+ scheduled messages were dropped/);
  });

  it("stops within a second of cancellation", async () => {
    server = await startChatServer();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 700);
    const started = performance.now();
    const result = await runScenario(
      { engine: "ws-chat", users: 4, rooms: 1, messagesPerUser: 100_000, messageIntervalMs: 10 },
      { baseUrl: server.url, signal: controller.signal },
    );
    expect(performance.now() - started).toBeLessThan(1_700);
    expect(result.canceled).toBe(true);
    expect(result.metrics.requests).toBeGreaterThan(20);
    expect(result.metrics.messages).toBeGreaterThan(0);
  });

  it("stops within a second of cancellation while connections are still being set up", async () => {
    server = await startChatServer({ handshakeDelayMs: 2_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = performance.now();
    const result = await runScenario(
      { engine: "ws-chat", users: 10, rooms: 2, messagesPerUser: 5, poolSize: 4 },
      { baseUrl: server.url, signal: controller.signal },
    );
    expect(performance.now() - started).toBeLessThan(1_300);
    expect(result.canceled).toBe(true);
    expect(result.metrics.failed_connections).toBe(0);
    expect(result.metrics.requests).toBe(0);
  });

  it("runs a chat scenario split by rooms side by side and merges to the unsplit counts exactly", async () => {
    server = await startChatServer();
    const spec = ZScenarioSpec.parse({ engine: "ws-chat", users: 23, rooms: 5, messagesPerUser: 4, poolSize: 6 });
    const shards = await Promise.all(planShards(spec, 2).map((s) => runScenario(s, { baseUrl: server!.url })));
    const merged = mergeResults(shards);
    const rooms = (merged.extra as unknown as ChatExtra).rooms;
    // Shards used disjoint rooms: each room's members all sat in one shard.
    expect(rooms.map((r) => r.room).sort()).toEqual(["room-0", "room-1", "room-2", "room-3", "room-4"]);
    expect(rooms.map((r) => r.members).sort()).toEqual([4, 4, 5, 5, 5]);
    // Rooms of 5 owe 4 deliveries per message, rooms of 4 owe 3: 15×4×4 + 8×4×3.
    expect(merged.metrics.requests).toBe(92);
    expect(merged.metrics.messages).toBe(336);
    expect(shards.map((r) => (r.extra as unknown as ChatExtra).lostDeliveries)).toEqual([0, 0]);
    expect(shards.map((r) => (r.extra as unknown as ChatExtra).duplicates)).toEqual([0, 0]);
    expect(merged.metrics.failed_connections).toBe(0);
    expect(decodeHistogram(merged.histogram!).totalCount).toBe(336);
    expect(server.stats.connections).toBe(23);
    expect(merged.metrics["custom.room_throughput_median"]).toBeGreaterThan(0);
  });

  it("after a stall of its own sends nothing until the run is confirmed, and stops when it no longer runs", async () => {
    server = await startChatServer();
    const chat = server;
    const asked: { gapMs: number; published: number }[] = [];
    // The test's (and the engine's) thread held for 400 ms, as a frozen process would be.
    const hold = setTimeout(() => {
      const until = performance.now() + 400;
      while (performance.now() < until) {}
    }, 1_000);
    let result: Awaited<ReturnType<typeof runScenario>>;
    try {
      result = await runScenario(
        {
          engine: "ws-chat",
          users: 4,
          rooms: 1,
          messagesPerUser: 10_000,
          endsAfter: "duration",
          durationS: 5,
          messageIntervalMs: 20,
        },
        {
          baseUrl: chat.url,
          confirmAfterStall: async (stall) => {
            asked.push({ gapMs: stall.gapMs, published: chat.stats.published });
            await new Promise((r) => setTimeout(r, 100));
            return false;
          },
        },
      );
    } finally {
      clearTimeout(hold);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.gapMs).toBeGreaterThanOrEqual(300);
    expect(asked[0]!.published).toBeGreaterThan(50);
    // At most what was on its way at the stall (a message per user); the run went on for 3.5 s more.
    expect(chat.stats.published - asked[0]!.published).toBeLessThanOrEqual(4);
    expect(result.canceled).toBe(true);
    // The overdue messages were dropped and counted with the stall.
    const stalls = (result.extra as { stalls?: { dropped: number }[] }).stalls ?? [];
    expect(stalls).toHaveLength(1);
    expect(stalls[0]!.dropped).toBe(result.metrics.stall_dropped);
    expect(result.metrics.stall_dropped).toBeGreaterThanOrEqual(40);
  });
});
