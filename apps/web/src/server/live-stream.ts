import "server-only";
import { getRunLive } from "@benchboard/db";
import { resolveCaller } from "./context";
import { liveHub } from "./live";

/** A stream ends after this long; the browser's EventSource reconnects on its own. */
const MAX_STREAM_MS = 10 * 60_000;
/** How soon the browser reconnects after the stream drops (a restart, a proxy's timeout). */
export const RECONNECT_MS = 1_000;

const TERMINAL = new Set(["succeeded", "failed", "canceled"]);
// Buffers, not TextEncoder's plain Uint8Arrays: a socket write converts those to a Buffer each time.
const RETRY = Buffer.from(`retry: ${RECONNECT_MS}\n\n`);
const TICK = Buffer.from(": tick\n\n");
const GONE = Buffer.from("event: gone\ndata: {}\n\n");

export const LIVE_STREAM_HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/** Where a viewer's stream goes: a web ReadableStream's controller or a Node response. */
export interface LiveSink {
  /** Queue bytes for the viewer. */
  write(bytes: Uint8Array): void;
  /** Whether the viewer has taken what was written before (false: skip this tick's state). */
  ready(): boolean;
  /** End the stream (the run ended, the deadline passed). */
  end(): void;
}

export type LiveOpening =
  | { ok: false; status: 401 | 404; message: string }
  | { ok: true; attach(sink: LiveSink): () => void };

/**
 * Server-Sent Events with a run's state about once a second while it is queued or running:
 * status, progress (elapsed, fraction, rate, latency, errors, recent per-second samples,
 * target memory, queue depth, an LLM run's TTFT, inter-token latency and output rate) and
 * the end state. One `run` event per change, each with an id (a digest of the state); a
 * reconnecting browser sends the last id it got (`Last-Event-ID`, or `?lastEventId=` when the
 * page reopens the stream itself) and gets the state only if it changed since. The stream
 * closes after the run ends. A viewer that has the previous state gets an `event: step` instead,
 * the state with only its new per-second samples (see `liveStep`). Every viewer of a run in this process shares one read a second
 * and one encoded frame; a viewer whose connection has not taken the last frame yet skips a
 * tick and gets the newest state when it has (states replace each other, nothing is queued).
 *
 * The checks (a session, the run in the viewer's organization) happen here, once per viewer;
 * the route handler and the production server's direct path both open streams through it.
 */
export async function openLiveStream(req: Request, runId: string): Promise<LiveOpening> {
  const caller = await resolveCaller(req);
  if (!caller.orgId) return { ok: false, status: 401, message: "sign in to continue" };
  // The one per-viewer read: the run must be in the viewer's organization.
  const first = await getRunLive(caller.db, caller.orgId, runId);
  if (!first) return { ok: false, status: 404, message: "run not found" };
  let lastSent = req.headers.get("last-event-id") ?? new URL(req.url).searchParams.get("lastEventId") ?? "";

  return {
    ok: true,
    attach(sink) {
      let closed = false;
      let unsubscribe: (() => void) | undefined;
      /** Stop following the run; `end` the stream too, unless the viewer is already gone. */
      const stop = (end: boolean) => {
        if (closed) return;
        closed = true;
        unsubscribe?.();
        clearTimeout(deadline);
        if (end) sink.end();
      };
      const close = () => stop(true);
      const deadline = setTimeout(close, MAX_STREAM_MS);
      deadline.unref?.();
      sink.write(RETRY);
      unsubscribe = liveHub().subscribe(runId, (frame, changed) => {
        if (closed) return;
        try {
          if (!frame) {
            // A comment keeps proxies from closing an idle stream.
            if (!changed) {
              if (sink.ready()) sink.write(TICK);
              return;
            }
            sink.write(GONE);
            close();
            return;
          }
          const terminal = TERMINAL.has(frame.status);
          if (frame.id !== lastSent) {
            // The end state is written whatever the connection's backlog: nothing follows it.
            if (sink.ready() || terminal) {
              // A viewer that has the state before this one gets only what is new in it.
              sink.write(frame.step && frame.step.from === lastSent ? frame.step.bytes : frame.bytes);
              lastSent = frame.id;
            }
          } else if (sink.ready()) {
            sink.write(TICK);
          }
          if (terminal) close();
        } catch {
          close();
        }
      });
      // The hub may hand over an end state while subscribing, before unsubscribe was known.
      if (closed) unsubscribe();
      // The viewer went away: stop following without writing anything.
      return () => stop(false);
    },
  };
}
