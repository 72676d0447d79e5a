import { z } from "zod";

/**
 * PROTOCOL — the WebSocket chat wire protocol spoken by the `ws-chat` engine and implemented by
 * chat servers under test (apps/targets/chat). Version 1.
 *
 * Transport: one WebSocket per user at `<target>/<path>` (default `/ws`), text frames, one JSON
 * object per frame. Every frame has a `type`.
 *
 * Client → server
 *   {"type":"join","room":"room-3","user":"u-17"}
 *       Join a room. A connection normally joins exactly one room, but servers must allow several.
 *   {"type":"message","room":"room-3","id":"u-17:42","sentAt":1732290000123.456,"payload":"…"}
 *       Publish to a room the connection has joined. `id` is unique within a run; `sentAt` is the
 *       sender's epoch time in ms (fractional allowed). Both are opaque to the server.
 *   {"type":"leave","room":"room-3"}
 *
 * Server → client
 *   {"type":"joined","room":"room-3","user":"u-17","members":4}
 *       Sent once the member is subscribed: every message published to the room AFTER this frame
 *       is sent must reach this connection. (With a broker in between, send it only once the
 *       member's queue/binding exists, or the engine will count the first messages as lost.)
 *       `members` is the room's member count including this user, if the server knows it.
 *   {"type":"message","room":"room-3","id":"u-17:42","from":"u-17","sentAt":…,"payload":"…"}
 *       Fan-out: delivered exactly once to EVERY member of the room, INCLUDING the sender. `id`,
 *       `sentAt` and `payload` are copied unchanged; `from` is the user that joined on the
 *       sending connection. The sender's own copy is its confirmation that the message made the
 *       whole trip; latency is only measured at the other members.
 *   {"type":"error","code":"not_joined","message":"…","id":"u-17:42"}
 *       A frame was refused. `id` names the message when the refusal is about one; the engine
 *       counts that message as failed.
 *
 * What the engine counts: after all users have joined (it waits for every `joined`), each sent
 * message is expected at each other member of its room. A delivery is counted once per
 * (message id, receiving user); repeats are `duplicates`; deliveries still missing when the drain
 * timeout ends are `lost`. Sends that could not be written, or that got an `error`, are `failed`.
 */
export const CHAT_PROTOCOL_VERSION = 1;

const ZRoom = z.string().min(1).max(256);
const ZUser = z.string().min(1).max(256);
const ZMessageId = z.string().min(1).max(256);

export const ZChatJoin = z.object({ type: z.literal("join"), room: ZRoom, user: ZUser });
export type TChatJoin = z.infer<typeof ZChatJoin>;

export const ZChatLeave = z.object({ type: z.literal("leave"), room: ZRoom });
export type TChatLeave = z.infer<typeof ZChatLeave>;

/** A message as the client publishes it. */
export const ZChatSend = z.object({
  type: z.literal("message"),
  room: ZRoom,
  id: ZMessageId,
  sentAt: z.number().finite(),
  payload: z.string(),
});
export type TChatSend = z.infer<typeof ZChatSend>;

export const ZChatClientFrame = z.discriminatedUnion("type", [ZChatJoin, ZChatLeave, ZChatSend]);
export type TChatClientFrame = z.infer<typeof ZChatClientFrame>;

export const ZChatJoined = z.object({
  type: z.literal("joined"),
  room: ZRoom,
  user: ZUser,
  members: z.number().int().nonnegative().optional(),
});
export type TChatJoined = z.infer<typeof ZChatJoined>;

/** A message as the server delivers it to each member (the sender included). */
export const ZChatDelivery = ZChatSend.extend({ from: ZUser });
export type TChatDelivery = z.infer<typeof ZChatDelivery>;

export const CHAT_ERROR_CODES = ["bad_frame", "not_joined", "room_full", "overloaded", "internal"] as const;

export const ZChatError = z.object({
  type: z.literal("error"),
  /** One of CHAT_ERROR_CODES; other strings are accepted so servers can be more specific. */
  code: z.string().min(1),
  message: z.string().default(""),
  id: ZMessageId.optional(),
});
export type TChatError = z.infer<typeof ZChatError>;

export const ZChatServerFrame = z.discriminatedUnion("type", [ZChatJoined, ZChatDelivery, ZChatError]);
export type TChatServerFrame = z.infer<typeof ZChatServerFrame>;

export function encodeChatFrame(frame: TChatClientFrame | TChatServerFrame): string {
  return JSON.stringify(frame);
}

/** Parse a client frame (for servers); returns null instead of throwing on bad input. */
export function parseChatClientFrame(data: string | Buffer): TChatClientFrame | null {
  return safeParse(ZChatClientFrame, data);
}

/** Parse a server frame (for clients); returns null instead of throwing on bad input. */
export function parseChatServerFrame(data: string | Buffer): TChatServerFrame | null {
  return safeParse(ZChatServerFrame, data);
}

function safeParse<T>(schema: z.ZodType<T>, data: string | Buffer): T | null {
  let json: unknown;
  try {
    json = JSON.parse(typeof data === "string" ? data : data.toString("utf8"));
  } catch {
    return null;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
