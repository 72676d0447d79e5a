import { getRunLive } from "@benchboard/db";
import { resolveCaller } from "~/server/context";

export const dynamic = "force-dynamic";

const TERMINAL = new Set(["succeeded", "failed", "canceled"]);
const TICK_MS = 1_000;
/** A stream ends after this long; the browser's EventSource reconnects on its own. */
const MAX_STREAM_MS = 10 * 60_000;

/**
 * Server-Sent Events with a run's state about once a second while it is queued or running:
 * status, progress (elapsed, fraction, rate, latency, errors, recent per-second samples,
 * target memory, queue depth, an LLM run's TTFT, inter-token latency and output rate) and
 * the end state. One `run` event per change; the stream closes after the run ends. Each tick
 * reads the run's live columns only (see getRunLive).
 */
export async function GET(req: Request, { params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  const caller = await resolveCaller(req);
  if (!caller.orgId) return Response.json({ error: { message: "sign in to continue" } }, { status: 401 });
  const orgId = caller.orgId;
  const first = await getRunLive(caller.db, orgId, runId);
  if (!first) return Response.json({ error: { message: "run not found" } }, { status: 404 });

  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const started = Date.now();
      let last = "";
      let closed = false;
      const close = () => {
        if (closed) return;
        closed = true;
        if (timer) clearTimeout(timer);
        try {
          controller.close();
        } catch {}
      };
      req.signal.addEventListener("abort", close);
      const send = async () => {
        if (closed) return;
        try {
          const run = await getRunLive(caller.db, orgId, runId);
          if (!run) {
            controller.enqueue(encoder.encode(`event: gone\ndata: {}\n\n`));
            return close();
          }
          const payload = JSON.stringify(run);
          if (payload !== last) {
            last = payload;
            controller.enqueue(encoder.encode(`event: run\ndata: ${payload}\n\n`));
          } else {
            // A comment keeps proxies from closing an idle stream.
            controller.enqueue(encoder.encode(": tick\n\n"));
          }
          if (TERMINAL.has(run.status) || Date.now() - started > MAX_STREAM_MS) return close();
        } catch {
          return close();
        }
        timer = setTimeout(send, TICK_MS);
      };
      void send();
    },
    cancel() {
      if (timer) clearTimeout(timer);
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
