import { createHash } from "node:crypto";
import { type LiveStateLike, liveStep } from "~/lib/live-step";

/**
 * One read per second per live run in this process, whatever the number of viewers: every
 * event stream of a run subscribes here, and the run's state is read once a tick and handed to
 * all of them as the same encoded frame. Each state carries an event id derived from its
 * content, so a stream that reconnects (to this process or another, e.g. after a restart) with
 * `Last-Event-ID` is sent the state only if it changed since.
 */
export interface LiveState {
  status: string;
}

export interface LiveFrame {
  /** The SSE event id: a digest of the state, the same in every process. */
  id: string;
  status: string;
  /**
   * `id:`, `event: run` and `data:` lines, encoded once for every viewer (a Buffer: a socket
   * write would otherwise wrap a plain Uint8Array in a new one for each viewer).
   */
  bytes: Uint8Array;
  /**
   * For a viewer that has the state with id `from`: the same state as an `event: step` (its
   * new samples only, see `liveStep`), a tenth of the bytes when a run keeps 300 samples.
   */
  step?: { from: string; bytes: Uint8Array };
}

/** A state (null: the run is gone) or a tick where nothing changed (keep the stream open). */
export type LiveListener = (frame: LiveFrame | null, changed: boolean) => void;

interface Channel {
  listeners: Set<LiveListener>;
  last: LiveFrame | null;
  lastState: LiveState | null;
  timer: ReturnType<typeof setInterval> | null;
  reading: boolean;
}

const TERMINAL = new Set(["succeeded", "failed", "canceled"]);

export function liveEventId(payload: string): string {
  return createHash("sha256").update(payload).digest("base64url").slice(0, 16);
}

function hasSamples(state: LiveState): state is LiveState & LiveStateLike {
  const progress = (state as { progress?: unknown }).progress;
  return (
    progress === null || (typeof progress === "object" && Array.isArray((progress as { samples?: unknown }).samples))
  );
}

/** A state's frame; with the state before it (and that state's id), also the step from there. */
export function liveFrame(state: LiveState, previous?: { id: string; state: LiveState }): LiveFrame {
  const payload = JSON.stringify(state);
  const id = liveEventId(payload);
  const frame: LiveFrame = {
    id,
    status: state.status,
    bytes: Buffer.from(`id: ${id}\nevent: run\ndata: ${payload}\n\n`),
  };
  if (previous && previous.id !== id && hasSamples(state) && hasSamples(previous.state)) {
    const step = liveStep(previous.state, state);
    if (step) {
      frame.step = {
        from: previous.id,
        bytes: Buffer.from(`id: ${id}\nevent: step\ndata: ${JSON.stringify(step)}\n\n`),
      };
    }
  }
  return frame;
}

export class LiveHub {
  private readonly channels = new Map<string, Channel>();
  /** Reads of run state made (for benchmarks and tests). */
  reads = 0;

  constructor(
    private readonly read: (runId: string) => Promise<LiveState | null>,
    private readonly tickMs = 1_000,
  ) {}

  /** Viewers currently subscribed, over all runs. */
  get viewers(): number {
    let n = 0;
    for (const c of this.channels.values()) n += c.listeners.size;
    return n;
  }

  /** Follow a run; the listener gets the latest state at once if there is one. Returns unsubscribe. */
  subscribe(runId: string, listener: LiveListener): () => void {
    let channel = this.channels.get(runId);
    if (!channel) {
      channel = { listeners: new Set(), last: null, lastState: null, timer: null, reading: false };
      this.channels.set(runId, channel);
      const c = channel;
      c.timer = setInterval(() => void this.tick(runId, c), this.tickMs);
      c.timer.unref?.();
      void this.tick(runId, c);
    } else if (channel.last) {
      listener(channel.last, true);
    }
    channel.listeners.add(listener);
    return () => {
      const c = this.channels.get(runId);
      if (!c) return;
      c.listeners.delete(listener);
      if (c.listeners.size === 0) this.close(runId, c);
    };
  }

  private close(runId: string, channel: Channel) {
    if (channel.timer) clearInterval(channel.timer);
    channel.timer = null;
    if (this.channels.get(runId) === channel) this.channels.delete(runId);
  }

  private async tick(runId: string, channel: Channel) {
    // A slow read is not stacked on: the next tick waits for it.
    if (channel.reading) return;
    channel.reading = true;
    let state: LiveState | null;
    try {
      this.reads++;
      state = await this.read(runId);
    } catch {
      // The database is away: viewers keep their stream (ticks) and get the state when it is back.
      channel.reading = false;
      for (const listener of channel.listeners) listener(channel.last, false);
      return;
    }
    channel.reading = false;
    if (!state) {
      for (const listener of channel.listeners) listener(null, true);
      this.close(runId, channel);
      return;
    }
    const previous = channel.last && channel.lastState ? { id: channel.last.id, state: channel.lastState } : undefined;
    const frame = liveFrame(state, previous);
    const changed = frame.id !== channel.last?.id;
    if (changed) {
      channel.last = frame;
      channel.lastState = state;
    }
    for (const listener of channel.listeners) listener(channel.last, changed);
    if (TERMINAL.has(state.status)) this.close(runId, channel);
  }
}
