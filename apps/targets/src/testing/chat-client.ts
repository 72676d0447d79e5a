import {
  encodeChatFrame,
  parseChatServerFrame,
  type TChatClientFrame,
  type TChatServerFrame,
} from "@benchboard/loadgen/protocols/chat";
import WebSocket from "ws";

/**
 * A plain WebSocket chat user for tests. Every frame from the server is checked against the
 * wire protocol's schema; one that does not parse is kept in `invalid` so tests can assert none.
 */
export class TestChatUser {
  readonly frames: TChatServerFrame[] = [];
  readonly invalid: string[] = [];
  private waiters: Array<() => void> = [];

  private constructor(
    readonly ws: WebSocket,
    readonly user: string,
  ) {
    ws.on("message", (data: Buffer, isBinary) => {
      const text = data.toString("utf8");
      const frame = isBinary ? null : parseChatServerFrame(text);
      if (frame) this.frames.push(frame);
      else this.invalid.push(text);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async connect(url: string, user: string): Promise<TestChatUser> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return new TestChatUser(ws, user);
  }

  send(frame: TChatClientFrame): void {
    this.ws.send(encodeChatFrame(frame));
  }

  async join(room: string): Promise<void> {
    this.send({ type: "join", room, user: this.user });
    await this.until(
      () => this.frames.some((f) => f.type === "joined" && f.room === room),
      5_000,
      `${this.user} joined ${room}`,
    );
  }

  deliveries(room?: string) {
    return this.frames.filter(
      (f): f is Extract<TChatServerFrame, { type: "message" }> =>
        f.type === "message" && (room === undefined || f.room === room),
    );
  }

  errors() {
    return this.frames.filter((f): f is Extract<TChatServerFrame, { type: "error" }> => f.type === "error");
  }

  /** Resolve once `condition` holds, re-checked on every frame; reject after `timeoutMs`. */
  until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms: ${what}`)), timeoutMs);
      const check = () => {
        if (condition()) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(check);
      };
      check();
    });
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      this.ws.once("close", () => resolve());
      this.ws.close();
    });
  }
}
