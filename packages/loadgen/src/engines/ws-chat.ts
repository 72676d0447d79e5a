import type { TScenarioSpec } from "@benchboard/core";
import WebSocket from "ws";
import { enforceLimits } from "../limits";
import { STALL_INTERVALS, STALL_MAX_MS, STALL_MIN_MS } from "../open-loop";
import { encodeChatFrame } from "../protocols/chat";
import { checkpointer, Recorder } from "../recorder";
import { StallGuard } from "../stall-confirm";
import { pinnedLookup } from "../target-safety";
import type { EngineContext, EngineResult } from "../types";
import { resolveTargetUrl } from "../url";
import { everySecond, RateGate, sleep } from "../util";
import { CANCEL_GRACE_MS } from "./open-model";

type WsChatSpec = Extract<TScenarioSpec, { engine: "ws-chat" }>;

/** Above this many bytes queued on a socket, a sender waits: the engine must not buffer a run in memory. */
const MAX_BUFFERED_BYTES = 1 << 20;

interface User {
  index: number;
  id: string;
  room: Room;
  ws: WebSocket | null;
  joined: boolean;
  /** Position among the room's joined members: the bit this user owns in delivery bitmaps. */
  slot: number;
}

interface Room {
  name: string;
  members: User[];
  sent: number;
  delivered: number;
  firstSendAt: number;
  lastDeliveryAt: number;
}

interface SentMessage {
  sentAt: number;
  room: Room;
  /** Deliveries expected: the room's other joined members when it was sent. */
  expected: number;
  delivered: number;
  /** One bit per room slot, so a repeated delivery is told apart from a new one. */
  seen: Uint8Array;
}

/**
 * Chat load (see protocols/chat.ts for the wire protocol): `users` WebSocket users spread
 * round-robin over `rooms`, connected at most `poolSize` at a time, each joining its room. Once
 * every connection has joined or failed, each joined user sends `messagesPerUser` messages, or,
 * when the spec ends after its duration, keeps sending until `durationS` has passed since the
 * first send (the message count then follows from the interval and the duration). Latency runs from send to delivery at each OTHER member; every (message, member) delivery is
 * counted exactly once, so lost and duplicated deliveries are exact counts.
 */
export async function runWsChat(spec: WsChatSpec, ctx: EngineContext): Promise<EngineResult> {
  const limits = enforceLimits(spec, ctx);
  const httpUrl = resolveTargetUrl(ctx.baseUrl, spec.path);
  const wsUrl = new URL(httpUrl.href);
  wsUrl.protocol = httpUrl.protocol === "https:" ? "wss:" : "ws:";
  const signal = ctx.signal;
  const startedAt = new Date();
  const rooms: Room[] = Array.from({ length: spec.rooms }, (_, i) => ({
    name: `room-${(spec.firstRoom ?? 0) + i}`,
    members: [],
    sent: 0,
    delivered: 0,
    firstSendAt: 0,
    lastDeliveryAt: 0,
  }));
  const users: User[] = Array.from({ length: spec.users }, (_, i) => ({
    index: i,
    id: `u-${(spec.firstUser ?? 0) + i}`,
    room: rooms[i % spec.rooms]!,
    ws: null,
    joined: false,
    slot: -1,
  }));
  const pending = new Map<string, SentMessage>();
  const stats = {
    failedConnections: 0,
    deliveries: 0,
    duplicates: 0,
    unknown: 0,
    echoes: 0,
    failedMessages: 0,
    lastDeliveryAt: 0,
    /** Deliveries owed by messages the server accepted (or has not refused). */
    expected: 0,
  };
  let rec: Recorder | null = null;

  const onDelivery = (user: User, frame: Record<string, unknown>, now: number) => {
    const id = frame.id;
    if (typeof id !== "string") return;
    if (frame.from === user.id) {
      stats.echoes++;
      return;
    }
    const msg = pending.get(id);
    if (!msg || !rec) {
      if (isCompleted(id)) stats.duplicates++;
      else stats.unknown++;
      return;
    }
    const slot = user.slot;
    const byte = slot >> 3;
    const bit = 1 << (slot & 7);
    if (slot < 0 || msg.room !== user.room) {
      stats.unknown++;
      return;
    }
    if ((msg.seen[byte]! & bit) !== 0) {
      stats.duplicates++;
      return;
    }
    msg.seen[byte] = msg.seen[byte]! | bit;
    msg.delivered++;
    msg.room.delivered++;
    msg.room.lastDeliveryAt = now;
    stats.deliveries++;
    stats.lastDeliveryAt = now;
    rec.recordLatency(now, (now - msg.sentAt) * 1000);
    rec.count("throughput", now);
    if (msg.delivered >= msg.expected) {
      // Complete: keep one bit instead of the record, so that a later repeat still counts as a
      // duplicate while memory stays at a bit per message.
      pending.delete(id);
      markCompleted(id);
      if (pending.size === 0) drainWaiter?.();
    }
  };

  const onServerError = (frame: Record<string, unknown>, now: number) => {
    const id = frame.id;
    // A stored error names the server's error code (when it looks like one), never its message:
    // what a server answered is not repeated to the run's readers.
    const code = typeof frame.code === "string" && /^[A-Za-z0-9_.-]{1,40}$/.test(frame.code) ? frame.code : "error";
    const msg = typeof id === "string" ? pending.get(id) : undefined;
    if (typeof id === "string" && msg) {
      pending.delete(id);
      stats.expected -= msg.expected - msg.delivered;
      markFailed(now, "server", `server error ${code}`);
      if (pending.size === 0) drainWaiter?.();
    } else if (rec) {
      rec.error("server", `server error ${code}`);
    }
  };

  const markFailed = (now: number, kind: string, message: string) => {
    stats.failedMessages++;
    if (!rec) return;
    rec.add("failed");
    rec.add("success", -1);
    rec.count("errors", now);
    rec.error(kind, message);
  };

  let drainWaiter: (() => void) | null = null;

  // Completed messages, one bit per (sender, seq); ids are `u-<sender>:<seq>`.
  const completed: Uint8Array[] = [];
  const parseId = (id: string): [number, number] | null => {
    const colon = id.indexOf(":");
    if (!id.startsWith("u-") || colon < 0) return null;
    const sender = Number(id.slice(2, colon));
    const seq = Number(id.slice(colon + 1));
    return Number.isInteger(sender) && Number.isInteger(seq) && sender >= 0 && seq >= 0 ? [sender, seq] : null;
  };
  const markCompleted = (id: string) => {
    const parsed = parseId(id);
    if (!parsed) return;
    const [sender, seq] = parsed;
    let bits = completed[sender] ?? new Uint8Array(16);
    if (bits.length <= seq >> 3) {
      const grown = new Uint8Array(Math.max(bits.length * 2, (seq >> 3) + 1));
      grown.set(bits);
      bits = grown;
    }
    completed[sender] = bits;
    bits[seq >> 3] = bits[seq >> 3]! | (1 << (seq & 7));
  };
  const isCompleted = (id: string): boolean => {
    const parsed = parseId(id);
    if (!parsed) return false;
    const bits = completed[parsed[0]];
    return bits !== undefined && ((bits[parsed[1] >> 3] ?? 0) & (1 << (parsed[1] & 7))) !== 0;
  };

  // Phase 1: connect and join, at most poolSize setups at a time.
  const connectStart = performance.now();
  let nextUser = 0;
  const connectWorker = async () => {
    while (nextUser < users.length && !signal?.aborted) {
      const user = users[nextUser++]!;
      const failure = await connectUser(user, wsUrl, spec, ctx, (frame, now) => {
        if (frame.type === "message") onDelivery(user, frame, now);
        else if (frame.type === "error") onServerError(frame, now);
      });
      if (failure !== null && !signal?.aborted) {
        stats.failedConnections++;
        connectErrors.set(failure, (connectErrors.get(failure) ?? 0) + 1);
      }
    }
  };
  const connectErrors = new Map<string, number>();
  await Promise.all(Array.from({ length: Math.min(spec.poolSize, users.length) }, connectWorker));
  const connectMs = performance.now() - connectStart;
  for (const user of users) {
    if (!user.joined) continue;
    user.slot = user.room.members.length;
    user.room.members.push(user);
  }

  // Phase 2: send. Measurement starts here.
  const t0 = performance.now();
  rec = new Recorder(["rps", "errors", "throughput"], t0);
  const activeRec = rec;
  for (const [message, count] of connectErrors) activeRec.error("connect", message, undefined, count);
  const deadline = t0 + spec.durationS * 1000;
  const payload = JSON.stringify("x".repeat(spec.messageBytes));
  const byDuration = spec.endsAfter === "duration";
  const messagesPerUser = byDuration ? Number.POSITIVE_INFINITY : spec.messagesPerUser;
  const plannedSends = users.filter((u) => u.joined).length * spec.messagesPerUser;
  const checkpoint = checkpointer(ctx, activeRec, startedAt);
  const stopProgress = everySecond(() => {
    const now = performance.now();
    activeRec.tick(now);
    checkpoint(now);
    const fraction = byDuration
      ? Math.min(1, (now - t0) / (spec.durationS * 1000))
      : plannedSends > 0
        ? (activeRec.counters.requests ?? 0) / plannedSends
        : 1;
    ctx.onProgress?.(activeRec.progress(now, fraction));
  });

  const gate = new RateGate(limits.maxRate);
  // A paced message found overdue by more than this was due while the generator stalled (frozen,
  // or its host too busy): dropped and counted rather than sent in a catch-up burst (open-loop.ts).
  const stallBoundMs = Math.min(STALL_MAX_MS, Math.max(STALL_MIN_MS, STALL_INTERVALS * spec.messageIntervalMs));
  let stallDropped = 0;
  // After a stall no user sends again until the run is confirmed to run: it may have ended on the
  // server while the generator was frozen. A "no" stops the load.
  const guard = new StallGuard({ boundMs: stallBoundMs, confirm: ctx.confirmAfterStall, startPerf: t0 });
  const sendAll = async (user: User) => {
    const ws = user.ws;
    if (!ws || !user.joined) return;
    const room = user.room;
    const expected = room.members.length - 1;
    const seenBytes = Math.ceil(room.members.length / 8);
    const prefix = `{"type":"message","room":${JSON.stringify(room.name)},"id":"`;
    // Users are staggered over one interval so that paced sends don't all land at once.
    const offsetMs = (spec.messageIntervalMs * user.index) / users.length;
    for (let seq = 0; seq < messagesPerUser; seq++) {
      if (signal?.aborted || guard.stopped || performance.now() >= deadline) return;
      if (spec.messageIntervalMs > 0) {
        const sendAt = t0 + offsetMs + seq * spec.messageIntervalMs;
        if (sendAt >= deadline) return;
        await sleep(sendAt - performance.now(), signal);
        if (signal?.aborted) return;
        const now = performance.now();
        if (now - sendAt > stallBoundMs) {
          stallDropped++;
          guard.report(now, now - sendAt, 1);
          continue;
        }
      }
      // The ceiling holds whatever the interval: with interval 0 it is the only pacing there is.
      await gate.wait(signal);
      if (!guard.mayGo(performance.now()) && !(await guard.settled())) return;
      if (signal?.aborted || guard.stopped || performance.now() >= deadline) return;
      if (spec.messageIntervalMs === 0 && seq % 32 === 31) {
        // Let deliveries be read between bursts; otherwise a sender starves the receivers.
        await new Promise<void>((r) => setImmediate(r));
      }
      while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount > MAX_BUFFERED_BYTES && !signal?.aborted) {
        await sleep(1);
      }
      const now = performance.now();
      const id = `${user.id}:${seq}`;
      activeRec.add("requests");
      activeRec.add("success");
      activeRec.count("rps", now);
      activeRec.add("req_bytes_count");
      room.sent++;
      if (room.firstSendAt === 0) room.firstSendAt = now;
      if (ws.readyState !== WebSocket.OPEN) {
        markFailed(now, "send", "connection closed before the message was sent");
        continue;
      }
      const frame = `${prefix}${id}","sentAt":${performance.timeOrigin + now},"payload":${payload}}`;
      activeRec.add("req_bytes_total", Buffer.byteLength(frame));
      if (expected > 0) {
        pending.set(id, { sentAt: now, room, expected, delivered: 0, seen: new Uint8Array(seenBytes) });
        stats.expected += expected;
      }
      ws.send(frame, (err) => {
        if (!err) return;
        const msg = pending.get(id);
        if (msg) {
          pending.delete(id);
          stats.expected -= msg.expected - msg.delivered;
        }
        if (msg || expected === 0) markFailed(performance.now(), "send", err.message);
      });
    }
  };
  try {
    await Promise.all(users.map(sendAll));
  } finally {
    guard.stop();
  }
  const sendEnd = performance.now();
  // Told after a stall that the run no longer runs: stopped, as by a cancel.
  const stopped = signal?.aborted === true || guard.stopped;

  // Phase 3: wait for the deliveries still on their way.
  if (pending.size > 0) {
    await new Promise<void>((resolve) => {
      const limit = stopped ? CANCEL_GRACE_MS : spec.drainTimeoutMs;
      const timer = setTimeout(finish, limit);
      const onAbort = () => {
        clearTimeout(timer);
        setTimeout(finish, CANCEL_GRACE_MS);
      };
      function finish() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        drainWaiter = null;
        resolve();
      }
      drainWaiter = finish;
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
  stopProgress();
  const canceled = signal?.aborted === true || guard.stopped;
  const endPerf = performance.now();
  let lost = 0;
  for (const msg of pending.values()) lost += msg.expected - msg.delivered;
  for (const user of users) user.ws?.terminate();

  if (lost > 0 && !canceled)
    activeRec.error("lost", `deliveries missing after ${spec.drainTimeoutMs} ms`, undefined, lost);
  if (stats.duplicates > 0)
    activeRec.error("duplicate", "message delivered again to the same member", undefined, stats.duplicates);

  const lastActivity = Math.max(sendEnd, stats.lastDeliveryAt);
  const runtimeMs = Math.max(1, lastActivity - t0);
  const runtimeS = runtimeMs / 1000;
  activeRec.counters.messages = stats.deliveries;
  activeRec.counters.failed_connections = stats.failedConnections;
  activeRec.counters.throughput = stats.deliveries / runtimeS;
  activeRec.counters.rps = (activeRec.counters.requests ?? 0) / runtimeS;
  activeRec.counters.expected_deliveries = stats.expected;
  activeRec.counters.lost_deliveries = canceled ? 0 : lost;
  activeRec.counters.duplicate_deliveries = stats.duplicates;

  const roomStats = rooms.map((room): RoomStats => {
    const span = room.lastDeliveryAt > room.firstSendAt ? (room.lastDeliveryAt - room.firstSendAt) / 1000 : 0;
    return {
      room: room.name,
      members: room.members.length,
      sent: room.sent,
      delivered: room.delivered,
      throughput: span > 0 ? room.delivered / span : null,
    };
  });
  const result = activeRec.finish(endPerf, {
    startedAt,
    endedAt: new Date(),
    canceled,
    runtimeMs,
    invalidReasons: [],
    extra: {
      connectMs,
      expectedDeliveries: stats.expected,
      deliveries: stats.deliveries,
      lostDeliveries: canceled ? null : lost,
      duplicates: stats.duplicates,
      unknownDeliveries: stats.unknown,
      echoes: stats.echoes,
      failedMessages: stats.failedMessages,
      rooms: roomStats,
      ...(guard.stalls().length
        ? {
            stalls: guard.stalls().map((st) => ({
              atS: Math.round(st.atMs) / 1000,
              gapMs: Math.round(st.gapMs),
              dropped: st.dropped,
              confirmMs: Math.round(st.confirmMs),
            })),
          }
        : {}),
    },
  });
  const roomMedian = roomThroughputMedian(roomStats);
  if (roomMedian !== null) result.metrics["custom.room_throughput_median"] = roomMedian;
  if (stallDropped > 0) {
    result.metrics.stall_dropped = stallDropped;
    result.valid = false;
    result.invalidReasons.unshift(
      `the load generator stalled: ${stallDropped} scheduled messages were dropped rather than sent late in a burst`,
    );
  }
  return result;
}

export interface RoomStats {
  room: string;
  members: number;
  sent: number;
  delivered: number;
  /** Deliveries per second between the room's first send and its last delivery. */
  throughput: number | null;
}

/** The median of the rooms' throughputs (null when no room delivered anything). */
export function roomThroughputMedian(rooms: readonly RoomStats[]): number | null {
  const rates = rooms.map((r) => r.throughput).filter((v): v is number => v !== null);
  return rates.length > 0 ? median(rates) : null;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Open the user's socket and join its room; resolves null on success or a failure message. */
function connectUser(
  user: User,
  url: URL,
  spec: WsChatSpec,
  ctx: EngineContext,
  onFrame: (frame: Record<string, unknown>, nowPerf: number) => void,
): Promise<string | null> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (failure: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ctx.signal?.removeEventListener("abort", onAbort);
      if (failure !== null) {
        ws.removeAllListeners("message");
        ws.terminate();
      }
      resolve(failure);
    };
    const ws = new WebSocket(url, {
      headers: ctx.headers,
      perMessageDeflate: false,
      handshakeTimeout: spec.connectTimeoutMs,
      ...(ctx.pin ? { lookup: pinnedLookup(ctx.pin) } : {}),
    });
    user.ws = ws;
    const timer = setTimeout(() => settle("timed out connecting and joining"), spec.connectTimeoutMs);
    const onAbort = () => settle("canceled");
    ctx.signal?.addEventListener("abort", onAbort, { once: true });
    if (ctx.signal?.aborted) onAbort();
    ws.on("open", () => {
      ws.send(encodeChatFrame({ type: "join", room: user.room.name, user: user.id }));
    });
    ws.on("message", (data, isBinary) => {
      const now = performance.now();
      if (isBinary) return;
      let frame: unknown;
      try {
        frame = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (typeof frame !== "object" || frame === null) return;
      const f = frame as Record<string, unknown>;
      if (!user.joined && f.type === "joined" && f.room === user.room.name) {
        user.joined = true;
        settle(null);
        return;
      }
      if (!user.joined && f.type === "error" && f.id === undefined) {
        settle(`join refused: ${String(f.code ?? "error")}`);
        return;
      }
      onFrame(f, now);
    });
    ws.on("error", (err) => settle(err.message || "connection error"));
    ws.on("close", () => settle("connection closed before joining"));
    ws.on("unexpected-response", (_req, res) => settle(`HTTP ${res.statusCode} on upgrade`));
  });
}
