import { createHash } from "node:crypto";
import amqp, { type Channel, type ChannelModel, type ConfirmChannel, type ConsumeMessage } from "amqplib";

export interface BrokerTopology {
  /** Direct exchange every instance publishes to; the routing key is the room. */
  exchange: string;
  /** This instance's queue, bound once per room that has a local member. */
  queue: string;
}

export interface BrokerOptions {
  url: string;
  topology: BrokerTopology;
  prefetch: number;
  onMessage: (message: ConsumeMessage, broker: ChatBroker) => void;
  /** The connection died (not closed by us). */
  onLost: (error: Error | undefined) => void;
}

/** Routing keys are limited to 255 bytes; longer room names are hashed. */
export function routingKeyFor(room: string): string {
  return Buffer.byteLength(room) <= 255 ? room : `sha256:${createHash("sha256").update(room).digest("hex")}`;
}

/**
 * One AMQP connection per chat instance: a topology channel (declare, bind, unbind), a consumer
 * channel with the prefetch, and a pool of confirm channels for the publish workers.
 */
export class ChatBroker {
  private closing = false;
  private topologyChannel?: Channel;
  private consumerTag?: string;
  private readonly idlePublishers: ConfirmChannel[] = [];

  private constructor(
    private readonly connection: ChannelModel,
    private readonly consumerChannel: Channel,
    private readonly options: BrokerOptions,
  ) {}

  static async connect(options: BrokerOptions): Promise<ChatBroker> {
    const connection = await amqp.connect(options.url, {
      clientProperties: { connection_name: `benchboard-chat ${options.topology.queue}` },
      // Publishes and acks are small frames written back to back; with Nagle's algorithm on, each
      // waits for the broker's delayed ACK and a publish confirm costs ~40 ms instead of ~0.5 ms.
      noDelay: true,
    });
    let broker: ChatBroker | undefined;
    try {
      connection.on("error", () => {
        // The close event that follows carries the same error; handled there.
      });
      const consumerChannel = await connection.createChannel();
      consumerChannel.on("error", (error: Error) => console.error("[chat] consumer channel error:", error.message));
      broker = new ChatBroker(connection, consumerChannel, options);
      connection.on("close", (error?: Error) => {
        if (!broker?.closing) options.onLost(error);
      });
      const topology = await broker.topology();
      await topology.assertExchange(options.topology.exchange, "direct", { durable: false, autoDelete: false });
      // Exclusive: the broker deletes the queue when this connection dies, so a crashed or killed
      // instance leaves no stale queue behind to slow the broker down for later runs.
      await topology.assertQueue(options.topology.queue, { exclusive: true, durable: false, autoDelete: false });
      await broker.startConsumer(options.prefetch);
      return broker;
    } catch (error) {
      if (broker) broker.closing = true;
      await connection.close().catch(() => undefined);
      throw error;
    }
  }

  private async topology(): Promise<Channel> {
    if (this.topologyChannel) return this.topologyChannel;
    const channel = await this.connection.createChannel();
    channel.on("error", (error: Error) => console.error("[chat] topology channel error:", error.message));
    // A failed bind closes the channel; the next call opens a new one.
    channel.on("close", () => {
      if (this.topologyChannel === channel) this.topologyChannel = undefined;
    });
    this.topologyChannel = channel;
    return channel;
  }

  private async startConsumer(prefetch: number): Promise<void> {
    await this.consumerChannel.prefetch(prefetch);
    const { consumerTag } = await this.consumerChannel.consume(
      this.options.topology.queue,
      (message) => {
        if (message) this.options.onMessage(message, this);
      },
      { noAck: false },
    );
    this.consumerTag = consumerTag;
  }

  async bind(room: string): Promise<void> {
    const channel = await this.topology();
    await channel.bindQueue(this.options.topology.queue, this.options.topology.exchange, routingKeyFor(room));
  }

  async unbind(room: string): Promise<void> {
    const channel = await this.topology();
    await channel.unbindQueue(this.options.topology.queue, this.options.topology.exchange, routingKeyFor(room));
  }

  /** Messages ready in this instance's queue (what the management API shows as `messages_ready`). */
  async readyMessages(): Promise<number> {
    const channel = await this.topology();
    return (await channel.checkQueue(this.options.topology.queue)).messageCount;
  }

  /** Prefetch only applies to consumers started after it is set, so the consumer is restarted. */
  async setPrefetch(prefetch: number): Promise<void> {
    if (this.consumerTag) await this.consumerChannel.cancel(this.consumerTag);
    this.consumerTag = undefined;
    await this.startConsumer(prefetch);
  }

  ack(message: ConsumeMessage): void {
    this.consumerChannel.ack(message);
  }

  async publish(room: string, content: Buffer, headers: Record<string, unknown>): Promise<void> {
    const channel = this.idlePublishers.pop() ?? (await this.openPublisher());
    try {
      await new Promise<void>((resolve, reject) => {
        channel.publish(
          this.options.topology.exchange,
          routingKeyFor(room),
          content,
          { contentType: "application/json", persistent: false, headers },
          (error) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()),
        );
      });
      this.idlePublishers.push(channel);
    } catch (error) {
      await channel.close().catch(() => undefined);
      throw error;
    }
  }

  private async openPublisher(): Promise<ConfirmChannel> {
    const channel = await this.connection.createConfirmChannel();
    channel.on("error", (error: Error) => console.error("[chat] publish channel error:", error.message));
    channel.on("close", () => {
      const index = this.idlePublishers.indexOf(channel);
      if (index >= 0) this.idlePublishers.splice(index, 1);
    });
    return channel;
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.connection.close().catch(() => undefined);
  }
}
