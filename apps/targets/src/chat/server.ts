import {
  encodeChatFrame,
  type TChatClientFrame,
  type TChatServerFrame,
  ZChatClientFrame,
} from "@benchboard/loadgen/protocols/chat";
import type { ConsumeMessage } from "amqplib";
import { type WebSocket, WebSocketServer } from "ws";
import { ConfigStore, registerAdminConfigRoutes } from "../lib/config-store";
import { Deque } from "../lib/deque";
import { closeServer, createHttpServer, listen, Router, sendJson } from "../lib/http";
import { DURATION_BUCKETS_SECONDS, PROMETHEUS_CONTENT_TYPE, Registry, registerProcessMetrics } from "../lib/metrics";
import { WorkerPool } from "../lib/worker-pool";
import { ChatBroker } from "./broker";
import { ZChatConfig } from "./config";

export interface ChatOptions {
  port?: number;
  host?: string;
  config?: unknown;
  amqpUrl: string;
  /** Names the exchange `<prefix>.rooms` and the queue `<prefix>.instance.<id>`. */
  prefix?: string;
  /** Defaults to the listening port, so instances on one host get distinct, predictable queues. */
  instanceId?: string;
  /** WebSocket path. */
  path?: string;
}

export interface ChatServer {
  url: string;
  wsUrl: string;
  port: number;
  instanceId: string;
  exchange: string;
  queue: string;
  config: ConfigStore<typeof ZChatConfig>;
  close(graceMs?: number): Promise<void>;
}

interface Client {
  ws: WebSocket;
  /** Rooms joined on this connection, with the user name given when joining. */
  rooms: Map<string, string>;
  /** Messages from this client waiting for room in the publish channel; reading is paused meanwhile. */
  blocked: number;
}

interface Room {
  members: Map<Client, string>;
  /** Joins waiting for the binding; the room is not released while any are pending. */
  pending: number;
  bound: boolean;
  /** Bind and unbind calls for one room run one after another, never interleaved. */
  chain: Promise<void>;
}

interface PublishJob {
  client: Client;
  room: string;
  id: string;
  body: Buffer;
  acceptedAt: number;
}

const MAX_FRAME_BYTES = 1024 * 1024;

export async function startChat(options: ChatOptions): Promise<ChatServer> {
  const config = new ConfigStore(ZChatConfig, options.config ?? {});
  const prefix = options.prefix ?? "chat";
  const path = options.path ?? "/ws";
  const registry = new Registry();
  registerProcessMetrics(registry, "chat");

  const clients = new Set<Client>();
  const rooms = new Map<string, Room>();
  const backlog = new Deque<{ message: ConsumeMessage; broker: ChatBroker }>();
  let broker: ChatBroker | undefined;
  let brokerReadyMessages = 0;
  let closing = false;

  const connections = registry.counter({ name: "chat_connections_total", help: "WebSocket connections accepted." });
  const received = registry.counter({
    name: "chat_messages_received_total",
    help: "Messages accepted from clients for publishing.",
  });
  const rejected = registry.counter<"code">({
    name: "chat_messages_rejected_total",
    help: "Client frames refused, by error code.",
    labelNames: ["code"],
  });
  const published = registry.counter({
    name: "chat_messages_published_total",
    help: "Messages published to RabbitMQ and confirmed by the broker.",
  });
  const publishErrors = registry.counter({
    name: "chat_publish_errors_total",
    help: "Publishes the broker did not confirm.",
  });
  const consumed = registry.counter({
    name: "chat_messages_consumed_total",
    help: "Messages taken from this instance's queue.",
  });
  const delivered = registry.counter({
    name: "chat_messages_delivered_total",
    help: "Message frames written to local members' sockets (one per member per message).",
  });
  const publishDuration = registry.histogram({
    name: "chat_publish_duration_seconds",
    help: "From accepting a client's message to the broker's publish confirm (publish channel wait included).",
    buckets: DURATION_BUCKETS_SECONDS,
  });
  const brokerLag = registry.histogram({
    name: "chat_consumer_lag_seconds",
    help: "From publishing a message to delivering it to this instance's members (broker and consumer backlog).",
    buckets: DURATION_BUCKETS_SECONDS,
  });

  const publish = async (job: PublishJob): Promise<void> => {
    const current = broker;
    try {
      if (!current) throw new Error("broker connection is down");
      await current.publish(job.room, job.body, { "x-room": job.room, "x-published-at": Date.now() });
      published.inc();
      publishDuration.observe((performance.now() - job.acceptedAt) / 1000);
    } catch (error) {
      publishErrors.inc();
      send(job.client, {
        type: "error",
        code: "internal",
        message: `publish failed: ${error instanceof Error ? error.message : String(error)}`,
        id: job.id,
      });
    }
  };
  const publishPool = new WorkerPool<PublishJob>(publish, {
    capacity: config.get().publishChanSize,
    workers: config.get().PUBLISH_WORKERS,
    name: "chat",
  });

  registry.gauge({
    name: "chat_connected_users",
    help: "Open WebSocket connections.",
    collect: () => clients.size,
  });
  registry.gauge({
    name: "chat_room_members",
    help: "Room memberships held on this instance.",
    collect: () => {
      let total = 0;
      for (const room of rooms.values()) total += room.members.size;
      return total;
    },
  });
  registry.gauge({ name: "chat_rooms", help: "Rooms with members on this instance.", collect: () => rooms.size });
  registry.gauge({
    name: "chat_publish_queue_depth",
    help: "Messages waiting in the publish channel for a publish worker.",
    collect: () => publishPool.depth,
  });
  registry.gauge({
    name: "chat_publish_queue_capacity",
    help: "Publish channel size (publishChanSize).",
    collect: () => publishPool.queueCapacity,
  });
  registry.gauge({
    name: "chat_publish_blocked",
    help: "Messages waiting for room in a full publish channel (their senders' sockets are paused).",
    collect: () => publishPool.blockedCount,
  });
  registry.gauge({
    name: "chat_publish_inflight",
    help: "Publishes waiting for the broker's confirm.",
    collect: () => publishPool.busy,
  });
  registry.gauge({
    name: "chat_publish_workers",
    help: "Publish workers running (PUBLISH_WORKERS).",
    collect: () => publishPool.workers,
  });
  registry.gauge({
    name: "chat_consumer_backlog",
    help: "Messages received from the broker and not yet delivered (held back by CONSUMER_RATE).",
    collect: () => backlog.length,
  });
  registry.gauge({
    name: "chat_broker_queue_messages",
    help: "Messages ready in this instance's RabbitMQ queue, sampled every second.",
    collect: () => brokerReadyMessages,
  });
  registry.gauge({
    name: "chat_broker_up",
    help: "1 while the RabbitMQ connection is up.",
    collect: () => (broker ? 1 : 0),
  });

  function send(client: Client, frame: TChatServerFrame): void {
    if (client.ws.readyState === client.ws.OPEN) client.ws.send(encodeChatFrame(frame));
  }

  // Consumer: deliveries go through a token bucket when CONSUMER_RATE is set. The broker keeps
  // the rest, bounded by the prefetch, so a slow consumer shows as queue depth in RabbitMQ.
  let tokens = 0;
  let refilledAt = performance.now();
  let pumpTimer: NodeJS.Timeout | undefined;
  function onMessage(message: ConsumeMessage, from: ChatBroker): void {
    consumed.inc();
    backlog.push({ message, broker: from });
    pump();
  }
  function pump(): void {
    const rate = config.get().CONSUMER_RATE;
    if (rate <= 0) {
      for (let next = backlog.shift(); next; next = backlog.shift()) deliver(next.message, next.broker);
      return;
    }
    const now = performance.now();
    const burst = Math.max(1, rate / 20);
    tokens = Math.min(burst, tokens + ((now - refilledAt) * rate) / 1000);
    refilledAt = now;
    while (backlog.length > 0 && tokens >= 1) {
      tokens -= 1;
      const next = backlog.shift()!;
      deliver(next.message, next.broker);
    }
    if (backlog.length > 0 && !pumpTimer) {
      pumpTimer = setTimeout(
        () => {
          pumpTimer = undefined;
          pump();
        },
        Math.max(1, ((1 - tokens) * 1000) / rate),
      );
    }
  }
  function deliver(message: ConsumeMessage, from: ChatBroker): void {
    const headers = message.properties.headers ?? {};
    const room = rooms.get(String(headers["x-room"]));
    let count = 0;
    if (room) {
      for (const member of room.members.keys()) {
        if (member.ws.readyState !== member.ws.OPEN) continue;
        member.ws.send(message.content, { binary: false });
        count++;
      }
    }
    delivered.inc(undefined, count);
    const publishedAt = Number(headers["x-published-at"]);
    if (Number.isFinite(publishedAt)) brokerLag.observe(Math.max(0, Date.now() - publishedAt) / 1000);
    // A delivery from a connection that has since died cannot be acknowledged; the broker
    // dropped it with the exclusive queue.
    if (from === broker) from.ack(message);
  }

  function roomFor(name: string): Room {
    let room = rooms.get(name);
    if (!room) {
      room = { members: new Map(), pending: 0, bound: false, chain: Promise.resolve() };
      rooms.set(name, room);
    }
    return room;
  }

  function enqueue(room: Room, step: () => Promise<void>): Promise<void> {
    const run = room.chain.then(step, step);
    room.chain = run.catch(() => undefined);
    return run;
  }

  async function join(client: Client, roomName: string, user: string): Promise<void> {
    if (client.rooms.has(roomName)) {
      client.rooms.set(roomName, user);
      rooms.get(roomName)?.members.set(client, user);
      send(client, { type: "joined", room: roomName, user });
      return;
    }
    const room = roomFor(roomName);
    room.pending++;
    try {
      await enqueue(room, async () => {
        if (room.bound) return;
        if (!broker) throw new Error("broker connection is down");
        await broker.bind(roomName);
        room.bound = true;
      });
    } catch (error) {
      room.pending--;
      release(roomName, room);
      send(client, {
        type: "error",
        code: "internal",
        message: `join failed: ${error instanceof Error ? error.message : String(error)}`,
      });
      return;
    }
    room.pending--;
    if (client.ws.readyState !== client.ws.OPEN) {
      release(roomName, room);
      return;
    }
    room.members.set(client, user);
    client.rooms.set(roomName, user);
    // Sent only now that the binding exists: every message published after this frame reaches
    // this member, as the protocol requires.
    send(client, { type: "joined", room: roomName, user });
  }

  function leave(client: Client, roomName: string): void {
    client.rooms.delete(roomName);
    const room = rooms.get(roomName);
    if (!room) return;
    room.members.delete(client);
    release(roomName, room);
  }

  /** Unbind a room nobody on this instance is in or joining any more. */
  function release(roomName: string, room: Room): void {
    if (room.members.size > 0 || room.pending > 0) return;
    if (closing) {
      // The exclusive queue and its bindings go away with the connection.
      rooms.delete(roomName);
      return;
    }
    void enqueue(room, async () => {
      if (room.members.size > 0 || room.pending > 0 || !room.bound) return;
      room.bound = false;
      await broker?.unbind(roomName);
    })
      .catch((error: unknown) => {
        // During shutdown the connection closes under in-flight unbinds; nothing is lost.
        if (!closing) console.error(`[chat] unbind ${roomName} failed:`, error);
      })
      .finally(() => {
        if (room.members.size === 0 && room.pending === 0 && !room.bound && rooms.get(roomName) === room) {
          rooms.delete(roomName);
        }
      });
  }

  function handleFrame(client: Client, data: Buffer): void {
    let json: unknown;
    try {
      json = JSON.parse(data.toString("utf8"));
    } catch {
      rejected.inc({ code: "bad_frame" });
      send(client, { type: "error", code: "bad_frame", message: "frame is not JSON" });
      return;
    }
    const parsed = ZChatClientFrame.safeParse(json);
    if (!parsed.success) {
      rejected.inc({ code: "bad_frame" });
      const issue = parsed.error.issues[0];
      const id = (json as { id?: unknown } | null)?.id;
      send(client, {
        type: "error",
        code: "bad_frame",
        message: `${issue?.path.join(".") || "frame"}: ${issue?.message ?? "invalid"}`,
        ...(typeof id === "string" && id.length > 0 && id.length <= 256 ? { id } : {}),
      });
      return;
    }
    const frame: TChatClientFrame = parsed.data;
    switch (frame.type) {
      case "join":
        void join(client, frame.room, frame.user);
        return;
      case "leave":
        leave(client, frame.room);
        return;
      case "message":
        accept(client, frame);
        return;
    }
  }

  function accept(client: Client, frame: Extract<TChatClientFrame, { type: "message" }>): void {
    const from = client.rooms.get(frame.room);
    if (from === undefined) {
      rejected.inc({ code: "not_joined" });
      send(client, { type: "error", code: "not_joined", message: `not a member of ${frame.room}`, id: frame.id });
      return;
    }
    // The delivery frame is built once here; consumers forward its bytes to every member as is.
    const body = Buffer.from(
      encodeChatFrame({
        type: "message",
        room: frame.room,
        id: frame.id,
        from,
        sentAt: frame.sentAt,
        payload: frame.payload,
      }),
    );
    const job: PublishJob = { client, room: frame.room, id: frame.id, body, acceptedAt: performance.now() };
    if (publishPool.offer(job)) {
      received.inc();
      return;
    }
    if (config.get().publishDropWhenFull) {
      rejected.inc({ code: "overloaded" });
      send(client, { type: "error", code: "overloaded", message: "publish channel is full", id: frame.id });
      return;
    }
    received.inc();
    client.blocked++;
    if (client.blocked === 1) client.ws.pause();
    void publishPool.put(job).then(() => {
      client.blocked--;
      if (client.blocked === 0 && client.ws.readyState === client.ws.OPEN) client.ws.resume();
    });
  }

  config.onChange(async (next, previous) => {
    publishPool.setCapacity(next.publishChanSize);
    publishPool.setWorkers(next.PUBLISH_WORKERS);
    if (next.InitialCredits !== previous.InitialCredits) await broker?.setPrefetch(next.InitialCredits);
    if (next.CONSUMER_RATE !== previous.CONSUMER_RATE) {
      tokens = 0;
      refilledAt = performance.now();
      pump();
    }
  });

  const router = new Router();
  router.get("/health", ({ res }) =>
    sendJson(res, broker ? 200 : 503, {
      status: broker ? "ok" : "broker_down",
      instance: instanceId,
      queue: topology.queue,
      exchange: topology.exchange,
      connections: clients.size,
    }),
  );
  router.get("/metrics", ({ res }) => {
    const body = registry.expose();
    res.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE, "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  registerAdminConfigRoutes(router, config);

  const server = createHttpServer(router);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  server.on("upgrade", (req, socket, head) => {
    const pathname = new URL(req.url ?? "/", "http://target.local").pathname;
    if (pathname !== path || !broker || closing) {
      const status = pathname !== path ? "404 Not Found" : "503 Service Unavailable";
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const client: Client = { ws, rooms: new Map(), blocked: 0 };
      clients.add(client);
      connections.inc();
      ws.on("message", (data: Buffer, isBinary) => {
        if (isBinary) {
          rejected.inc({ code: "bad_frame" });
          send(client, { type: "error", code: "bad_frame", message: "frames must be text" });
          return;
        }
        handleFrame(client, data);
      });
      ws.on("error", () => {
        // A broken socket closes next; membership is cleaned up there.
      });
      ws.on("close", () => {
        clients.delete(client);
        for (const roomName of [...client.rooms.keys()]) leave(client, roomName);
      });
    });
  });

  const listening = await listen(server, options.port ?? 4200, options.host ?? "127.0.0.1");
  const instanceId = options.instanceId ?? String(listening.port);
  const topology = { exchange: `${prefix}.rooms`, queue: `${prefix}.instance.${instanceId}` };

  let reconnectTimer: NodeJS.Timeout | undefined;
  let reconnectDelayMs = 500;
  const connectBroker = async () => {
    broker = await ChatBroker.connect({
      url: options.amqpUrl,
      topology,
      prefetch: config.get().InitialCredits,
      onMessage,
      onLost: (error) => {
        console.error(`[chat] RabbitMQ connection lost${error ? `: ${error.message}` : ""}; reconnecting`);
        broker = undefined;
        // Members' bindings died with the exclusive queue; clients must reconnect and join again.
        for (const client of clients) client.ws.close(1012, "broker connection lost");
        rooms.clear();
        scheduleReconnect();
      },
    });
    reconnectDelayMs = 500;
  };
  const scheduleReconnect = () => {
    if (closing || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connectBroker().catch((error: unknown) => {
        console.error(`[chat] reconnect failed: ${error instanceof Error ? error.message : String(error)}`);
        reconnectDelayMs = Math.min(reconnectDelayMs * 2, 10_000);
        scheduleReconnect();
      });
    }, reconnectDelayMs);
  };
  try {
    await connectBroker();
  } catch (error) {
    await closeServer(server, 0);
    throw new Error(`RabbitMQ: ${error instanceof Error ? error.message : String(error)}`);
  }

  const sampler = setInterval(() => {
    broker
      ?.readyMessages()
      .then((count) => {
        brokerReadyMessages = count;
      })
      .catch(() => undefined);
  }, 1_000);
  sampler.unref();

  return {
    url: listening.url,
    wsUrl: `${listening.url.replace(/^http/, "ws")}${path}`,
    port: listening.port,
    instanceId,
    exchange: topology.exchange,
    queue: topology.queue,
    config,
    async close(graceMs = 5_000) {
      closing = true;
      clearInterval(sampler);
      clearTimeout(reconnectTimer);
      clearTimeout(pumpTimer);
      const serverClosed = closeServer(server, graceMs);
      for (const client of clients) client.ws.close(1001, "server shutting down");
      // Messages already accepted still go out: other instances' members are waiting for them.
      const deadline = performance.now() + graceMs;
      while ((publishPool.depth > 0 || publishPool.busy > 0) && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      publishPool.setWorkers(0);
      for (const client of clients) client.ws.terminate();
      await broker?.close();
      broker = undefined;
      await serverClosed;
    },
  };
}
