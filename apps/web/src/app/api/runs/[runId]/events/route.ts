import { getRunLive } from "@benchboard/db";
import { resolveCaller } from "~/server/context";
import { liveHub } from "~/server/live";

export const dynamic = "force-dynamic";

/** A stream ends after this long; the browser's EventSource reconnects on its own. */
const MAX_STREAM_MS = 10 * 60_000;
/** How soon the browser reconnects after the stream drops (a restart, a proxy's timeout). */
const RECONNECT_MS = 1_000;

/**
 * Server-Sent Events with a run's state about once a second while it is queued or running:
 * status, progress (elapsed, fraction, rate, latency, errors, recent per-second samples,
 * target memory, queue depth, an LLM run's TTFT, inter-token latency and output rate) and
 * the end state. One `run` event per change, each with an id (a digest of the state); a
 * reconnecting browser sends the last id it got (`Last-Event-ID`, or `?lastEventId=` when the
 * page reopens the stream itself) and gets the state only if it changed since. The stream
 * closes after the run ends. Every viewer of a run in this process shares one read a second.
 */
export async function GET(req: Request, { params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  const caller = await resolveCaller(req);
  if (!caller.orgId) return Response.json({ error: { message: "sign in to continue" } }, { status: 401 });
  // The one per-viewer read: the run must be in the viewer's organization.
  const first = await getRunLive(caller.db, caller.orgId, runId);
  if (!first) return Response.json({ error: { message: "run not found" } }, { status: 404 });
  let lastSent = req.headers.get("last-event-id") ?? new URL(req.url).searchParams.get("lastEventId") ?? "";

  const encoder = new TextEncoder();
  let unsubscribe: (() => void) | undefined;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const close = () => {
        if (closed) return;
        closed = true;
        unsubscribe?.();
        if (deadline) clearTimeout(deadline);
        try {
          controller.close();
        } catch {}
      };
      req.signal.addEventListener("abort", close);
      deadline = setTimeout(close, MAX_STREAM_MS);
      controller.enqueue(encoder.encode(`retry: ${RECONNECT_MS}\n\n`));
      unsubscribe = liveHub().subscribe(runId, (frame, changed) => {
        if (closed) return;
        try {
          if (!frame) {
            if (changed) {
              controller.enqueue(encoder.encode("event: gone\ndata: {}\n\n"));
              close();
            } else {
              // A comment keeps proxies from closing an idle stream.
              controller.enqueue(encoder.encode(": tick\n\n"));
            }
            return;
          }
          if (frame.id !== lastSent) {
            lastSent = frame.id;
            controller.enqueue(frame.bytes);
          } else {
            controller.enqueue(encoder.encode(": tick\n\n"));
          }
          if (["succeeded", "failed", "canceled"].includes(frame.status)) close();
        } catch {
          close();
        }
      });
    },
    cancel() {
      unsubscribe?.();
      if (deadline) clearTimeout(deadline);
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
