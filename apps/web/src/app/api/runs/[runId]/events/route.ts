import { LIVE_STREAM_HEADERS, openLiveStream } from "~/server/live-stream";

export const dynamic = "force-dynamic";

/**
 * A run's live state as Server-Sent Events (see `openLiveStream`). The production server
 * (server.mjs) answers this path itself, writing to the socket directly; this handler serves
 * it under `next dev` and wherever the app runs without that server.
 */
export async function GET(req: Request, { params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  const opening = await openLiveStream(req, runId);
  if (!opening.ok) return Response.json({ error: { message: opening.message } }, { status: opening.status });
  let detach: (() => void) | undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let ended = false;
        const abort = () => {
          ended = true;
          detach?.();
          try {
            controller.close();
          } catch {}
        };
        req.signal.addEventListener("abort", abort);
        detach = opening.attach({
          write: (bytes) => controller.enqueue(bytes),
          // Frames skip while the queue is full (see highWaterMark below).
          ready: () => (controller.desiredSize ?? 0) > 0,
          end: () => {
            if (ended) return;
            ended = true;
            req.signal.removeEventListener("abort", abort);
            try {
              controller.close();
            } catch {}
          },
        });
      },
      cancel() {
        detach?.();
      },
    },
    // A few chunks may wait (the reconnect delay, a state, a tick) before a frame is skipped.
    { highWaterMark: 8 },
  );
  return new Response(stream, { headers: LIVE_STREAM_HEADERS });
}
