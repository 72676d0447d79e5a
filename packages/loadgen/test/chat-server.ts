import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { encodeChatFrame, parseChatClientFrame, type TChatDelivery } from "../src/protocols/chat";

export interface ChatServerOptions {
  /** Skip every n-th delivery to another member (a lossy server). */
  dropEvery?: number;
  /** Send every n-th delivery to another member twice. */
  duplicateEvery?: number;
  /** Refuse every n-th published message with an error frame. */
  refuseEvery?: number;
  /** Hold each upgrade this long, to observe how many handshakes run at once. */
  handshakeDelayMs?: number;
  /** Reject upgrades of these user indexes (by connection order, 0-based). */
  rejectConnections?: number;
  /** Told of every message a member publishes, as it arrives. */
  onPublish?: () => void;
}

/** A minimal in-process fan-out server speaking the chat protocol, for tests. */
export async function startChatServer(options: ChatServerOptions = {}) {
  const stats = { handshakesInFlight: 0, maxHandshakesInFlight: 0, published: 0, deliveries: 0, connections: 0 };
  let connectionIndex = 0;
  let otherDeliveries = 0;
  const wss = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    path: "/ws",
    verifyClient: (_info, done) => {
      stats.handshakesInFlight++;
      stats.maxHandshakesInFlight = Math.max(stats.maxHandshakesInFlight, stats.handshakesInFlight);
      const index = connectionIndex++;
      setTimeout(() => {
        stats.handshakesInFlight--;
        if (options.rejectConnections !== undefined && index < options.rejectConnections) done(false, 503);
        else done(true);
      }, options.handshakeDelayMs ?? 0);
    },
  });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const rooms = new Map<string, Map<WebSocket, string>>();
  wss.on("connection", (ws) => {
    stats.connections++;
    const joined = new Map<string, string>();
    ws.on("message", (data) => {
      const frame = parseChatClientFrame(data as Buffer);
      if (!frame) {
        ws.send(encodeChatFrame({ type: "error", code: "bad_frame", message: "not a chat frame" }));
        return;
      }
      if (frame.type === "join") {
        const members = rooms.get(frame.room) ?? new Map<WebSocket, string>();
        members.set(ws, frame.user);
        rooms.set(frame.room, members);
        joined.set(frame.room, frame.user);
        ws.send(encodeChatFrame({ type: "joined", room: frame.room, user: frame.user, members: members.size }));
      } else if (frame.type === "leave") {
        rooms.get(frame.room)?.delete(ws);
        joined.delete(frame.room);
      } else {
        const from = joined.get(frame.room);
        if (from === undefined) {
          ws.send(encodeChatFrame({ type: "error", code: "not_joined", message: frame.room, id: frame.id }));
          return;
        }
        stats.published++;
        options.onPublish?.();
        if (options.refuseEvery && stats.published % options.refuseEvery === 0) {
          ws.send(encodeChatFrame({ type: "error", code: "overloaded", message: "try later", id: frame.id }));
          return;
        }
        const delivery: TChatDelivery = { ...frame, from };
        const text = encodeChatFrame(delivery);
        for (const [member] of rooms.get(frame.room) ?? []) {
          if (member.readyState !== WebSocket.OPEN) continue;
          if (member !== ws) {
            otherDeliveries++;
            if (options.dropEvery && otherDeliveries % options.dropEvery === 0) continue;
            if (options.duplicateEvery && otherDeliveries % options.duplicateEvery === 0) member.send(text);
          }
          stats.deliveries++;
          member.send(text);
        }
      }
    });
    ws.on("close", () => {
      for (const room of joined.keys()) rooms.get(room)?.delete(ws);
    });
  });
  const port = (wss.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}
