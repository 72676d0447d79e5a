import { z } from "zod";
import { boolKnob, intKnob, numberKnob } from "../lib/config-store";

/**
 * The chat server's knobs, spelled as in the chat system's tuning log so an instance config copied
 * from it applies unchanged. Defaults are that log's final tuned config.
 */
export const ZChatConfig = z.strictObject({
  /** Concurrent publishes to RabbitMQ, each waiting for the broker's confirm. */
  PUBLISH_WORKERS: intKnob(1, 1_000, 20),
  /** Messages accepted from clients and waiting for a publish worker. */
  publishChanSize: intKnob(1, 1_000_000, 500),
  /** Unacknowledged deliveries the broker may push to this instance (AMQP prefetch). */
  InitialCredits: intKnob(1, 65_535, 1_000),
  /** Cap on messages taken from this instance's queue per second; 0 means no cap. */
  CONSUMER_RATE: numberKnob(0, 1_000_000, 0),
  /**
   * When the publish channel is full: false stops reading from that client's socket until there is
   * room (TCP backpressure, like a blocking Go channel send); true refuses the message with an
   * `overloaded` error.
   */
  publishDropWhenFull: boolKnob(false),
});

export type TChatConfig = z.infer<typeof ZChatConfig>;
