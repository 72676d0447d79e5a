import { afterAll, afterEach, describe, expect, it } from "vitest";
import { TestChatUser } from "../testing/chat-client";
import { sampleValue } from "../testing/prometheus-text";
import {
  deleteExchange,
  expectConfigRejections,
  getConfig,
  managementQueue,
  putConfig,
  scrape,
  testEnv,
  uniqueName,
  waitFor,
} from "../testing/services";
import { type ChatServer, startChat } from "./server";

// Every server in this file shares one exchange prefix no other run uses; queues are exclusive
// and vanish with their server, and the exchange is deleted at the end.
const prefix = uniqueName("chat");
const servers: ChatServer[] = [];
const users: TestChatUser[] = [];

afterEach(async () => {
  await Promise.all(users.splice(0).map((u) => u.close()));
  await Promise.all(servers.splice(0).map((s) => s.close(1_000)));
});
afterAll(async () => {
  await deleteExchange(`${prefix}.rooms`);
});

async function chatServer(instanceId: string, config: Record<string, unknown> = {}): Promise<ChatServer> {
  const server = await startChat({ port: 0, amqpUrl: testEnv.AMQP_URL, prefix, instanceId, config });
  servers.push(server);
  return server;
}

async function member(server: ChatServer, user: string, room: string): Promise<TestChatUser> {
  const connected = await TestChatUser.connect(server.wsUrl, user);
  users.push(connected);
  await connected.join(room);
  return connected;
}

function send(user: TestChatUser, room: string, seq: number, payload = `hello ${seq} from ${user.user}`) {
  user.send({ type: "message", room, id: `${user.user}:${seq}`, sentAt: Date.now() + seq / 1000, payload });
}

describe("chat: fan-out through RabbitMQ", () => {
  it("delivers every message exactly once to every member of its room across two instances", async () => {
    const a = await chatServer("a");
    const b = await chatServer("b");
    expect(a.queue).toBe(`${prefix}.instance.a`);
    expect(b.queue).toBe(`${prefix}.instance.b`);

    const rooms = {
      lobby: [
        await member(a, "u1", "lobby"),
        await member(b, "u2", "lobby"),
        await member(a, "u3", "lobby"),
        await member(b, "u4", "lobby"),
      ],
      ops: [await member(a, "u5", "ops"), await member(b, "u6", "ops")],
    };
    const perUser = 25;
    for (let seq = 0; seq < perUser; seq++) {
      for (const [room, members] of Object.entries(rooms)) for (const user of members) send(user, room, seq);
    }

    for (const [room, members] of Object.entries(rooms)) {
      const expected = members
        .flatMap((sender) => Array.from({ length: perUser }, (_, seq) => `${sender.user}:${seq}`))
        .sort();
      for (const user of members) {
        await user.until(() => user.deliveries().length >= expected.length, 15_000, `${user.user} got ${room}`);
      }
      // Give duplicates, had there been any, time to arrive before counting.
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const user of members) {
        const got = user.deliveries();
        expect(
          got.every((d) => d.room === room),
          `${user.user} only gets ${room}`,
        ).toBe(true);
        expect(got.map((d) => d.id).sort(), `${user.user} in ${room}`).toEqual(expected);
        for (const delivery of got) {
          const [sender, seq] = delivery.id.split(":");
          expect(delivery.from).toBe(sender);
          expect(delivery.payload).toBe(`hello ${seq} from ${sender}`);
          expect(delivery.sentAt).toBe(Number.parseFloat(String(delivery.sentAt)));
        }
        expect(user.invalid).toEqual([]);
        expect(user.errors()).toEqual([]);
      }
    }

    // Each instance published what its own users sent and delivered to its own members only.
    const [metricsA, metricsB] = await Promise.all([scrape(a.url), scrape(b.url)]);
    expect(sampleValue(metricsA, "chat_messages_published_total")).toBe(3 * perUser);
    expect(sampleValue(metricsB, "chat_messages_published_total")).toBe(3 * perUser);
    const lobbyTotal = 4 * perUser;
    const opsTotal = 2 * perUser;
    expect(sampleValue(metricsA, "chat_messages_delivered_total")).toBe(2 * lobbyTotal + opsTotal);
    expect(sampleValue(metricsB, "chat_messages_delivered_total")).toBe(2 * lobbyTotal + opsTotal);
    expect(sampleValue(metricsA, "chat_messages_consumed_total")).toBe(lobbyTotal + opsTotal);
    expect(sampleValue(metricsA, "chat_connected_users")).toBe(3);
    expect(sampleValue(metricsA, "chat_rooms")).toBe(2);
    expect(sampleValue(metricsA, "chat_consumer_lag_seconds_count")).toBe(lobbyTotal + opsTotal);

    // The queues are where monitors look for them, and die with their instance.
    const queue = await managementQueue(a.queue);
    expect(queue).toMatchObject({ name: a.queue, exclusive: true, durable: false });
    await a.close(1_000);
    servers.splice(servers.indexOf(a), 1);
    expect(await managementQueue(a.queue)).toBeNull();
  });

  it("stops delivering to members who left, and delivers to late joiners only what follows", async () => {
    const a = await chatServer("c");
    const b = await chatServer("d");
    const stays = await member(a, "stays", "r");
    const leaves = await member(b, "leaves", "r");
    send(stays, "r", 1);
    await leaves.until(() => leaves.deliveries().length === 1, 5_000, "first message");
    leaves.send({ type: "leave", room: "r" });
    const late = await member(b, "late", "r");
    send(stays, "r", 2);
    await late.until(() => late.deliveries().length === 1, 5_000, "late joiner gets message 2");
    await stays.until(() => stays.deliveries().length === 2, 5_000, "sender gets its own copies");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(leaves.deliveries().map((d) => d.id)).toEqual(["stays:1"]);
    expect(late.deliveries().map((d) => d.id)).toEqual(["stays:2"]);
    // Instance b still has a member of r, so its binding must have survived the leave.
    const metricsB = await scrape(b.url);
    expect(sampleValue(metricsB, "chat_room_members")).toBe(1);
  });

  it("refuses messages to rooms not joined and frames that break the protocol, naming the message", async () => {
    const a = await chatServer("e");
    const user = await member(a, "u", "mine");
    user.send({ type: "message", room: "theirs", id: "u:1", sentAt: 1, payload: "x" });
    user.ws.send("not json");
    user.ws.send(JSON.stringify({ type: "message", room: "mine", id: "u:2", payload: "no sentAt" }));
    await user.until(() => user.errors().length === 3, 5_000, "three errors");
    const [notJoined, notJson, invalid] = user.errors();
    expect(notJoined).toMatchObject({ code: "not_joined", id: "u:1" });
    expect(notJson).toMatchObject({ code: "bad_frame" });
    expect(invalid).toMatchObject({ code: "bad_frame", id: "u:2" });
    expect(invalid?.message).toContain("sentAt");
    expect(user.deliveries()).toEqual([]);
  });
});

describe("chat: knobs", () => {
  it("CONSUMER_RATE caps deliveries per second; the backlog waits in RabbitMQ, bounded by InitialCredits", async () => {
    const a = await chatServer("rate", { CONSUMER_RATE: 40, InitialCredits: 4 });
    const sender = await member(a, "s", "slow");
    const receiver = await member(a, "r", "slow");
    const count = 80;
    const started = performance.now();
    for (let seq = 0; seq < count; seq++) send(sender, "slow", seq);

    // While the consumer is held back the rest waits in RabbitMQ (the queue is exclusive, so only
    // its owner can read the depth over AMQP: the server's gauge does), and the local backlog
    // never exceeds the prefetch.
    const ready = await waitFor(
      async () => {
        const metrics = await scrape(a.url);
        expect(sampleValue(metrics, "chat_consumer_backlog")).toBeLessThanOrEqual(4);
        const depth = sampleValue(metrics, "chat_broker_queue_messages");
        return depth > 10 ? depth : undefined;
      },
      1_800,
      "the instance queue to hold the backlog",
    );
    expect(ready).toBeLessThanOrEqual(count);
    expect(receiver.deliveries().length).toBeLessThan(count);

    await receiver.until(() => receiver.deliveries().length === count, 10_000, "all deliveries");
    const elapsed = performance.now() - started;
    // 80 messages at 40/s take ~2 s; without the cap they arrive in a few ms.
    expect(elapsed).toBeGreaterThan(1_700);
    expect(elapsed).toBeLessThan(6_000);
  });

  it("with publishDropWhenFull a full publish channel refuses messages as overloaded; otherwise senders wait", async () => {
    const a = await chatServer("drop", { PUBLISH_WORKERS: 1, publishChanSize: 1, publishDropWhenFull: true });
    const sender = await member(a, "s", "burst");
    const count = 60;
    for (let seq = 0; seq < count; seq++) send(sender, "burst", seq);
    await sender.until(
      () => sender.deliveries().length + sender.errors().length === count,
      10_000,
      "every message delivered or refused",
    );
    const refused = sender.errors();
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) expect(error.code).toBe("overloaded");
    const accounted = [...sender.deliveries().map((d) => d.id), ...refused.map((e) => e.id)].sort();
    expect(accounted).toEqual(Array.from({ length: count }, (_, seq) => `s:${seq}`).sort());
    const metrics = await scrape(a.url);
    expect(sampleValue(metrics, "chat_messages_rejected_total", { code: "overloaded" })).toBe(refused.length);

    expect(
      (await putConfig(a.url, { PUBLISH_WORKERS: 1, publishChanSize: 1, publishDropWhenFull: false })).status,
    ).toBe(200);
    const patient = await member(a, "p", "burst2");
    for (let seq = 0; seq < count; seq++) send(patient, "burst2", seq);
    await patient.until(() => patient.deliveries().length === count, 10_000, "every message delivered");
    expect(patient.errors()).toEqual([]);
    expect(new Set(patient.deliveries().map((d) => d.id)).size).toBe(count);
  });

  it("refuses bad knobs with 400 naming the field and applies good ones", async () => {
    const a = await chatServer("admin");
    await expectConfigRejections(a.url, [
      { body: { PUBLISH_WORKERS: 0 }, field: "PUBLISH_WORKERS" },
      { body: { publishChanSize: -5 }, field: "publishChanSize" },
      { body: { InitialCredits: 70_000 }, field: "InitialCredits" },
      { body: { CONSUMER_RATE: "fast" }, field: "CONSUMER_RATE" },
      { body: { publish_workers: 5 }, field: "publish_workers" },
    ]);
    const applied = await putConfig(a.url, { PUBLISH_WORKERS: 5, publishChanSize: "64", InitialCredits: 50 });
    expect(applied.status).toBe(200);
    expect(await getConfig(a.url)).toEqual({
      PUBLISH_WORKERS: 5,
      publishChanSize: 64,
      InitialCredits: 50,
      CONSUMER_RATE: 0,
      publishDropWhenFull: false,
    });
    const metrics = await scrape(a.url);
    expect(sampleValue(metrics, "chat_publish_workers")).toBe(5);
    expect(sampleValue(metrics, "chat_publish_queue_capacity")).toBe(64);
    // The consumer was restarted with the new prefetch and still delivers.
    const user = await member(a, "after", "room");
    send(user, "room", 1);
    await user.until(() => user.deliveries().length === 1, 5_000, "delivery after reconfiguring");
  });

  it("serves valid Prometheus text with the process, publish-queue and delivery metrics", async () => {
    const a = await chatServer("metrics");
    const metrics = await scrape(a.url);
    for (const name of [
      "process_resident_memory_bytes",
      "process_cpu_seconds_total",
      "chat_publish_queue_depth",
      "chat_messages_delivered_total",
      "chat_connected_users",
      "chat_broker_up",
    ]) {
      expect(metrics.has(name), name).toBe(true);
    }
    expect(sampleValue(metrics, "chat_broker_up")).toBe(1);
    expect(metrics.get("chat_publish_duration_seconds")?.type).toBe("histogram");
    const health = await fetch(`${a.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok", queue: a.queue, exchange: `${prefix}.rooms` });
  });
});
