import "server-only";
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { LIVE_STREAM_HEADERS, openLiveStream } from "./live-stream";
import { MISDIRECTED_MESSAGE } from "./public-url";
import { isHttps, requestedPublicUrl } from "./request-origin";
import { securityHeaders } from "./security-headers";

/** The live stream's path; ids are cuid-like, so nothing here needs decoding. */
const LIVE_PATH = /^\/api\/runs\/([A-Za-z0-9_-]{1,64})\/events(?:\?[^#]*)?$/;

/**
 * The production server's direct path for a run's live stream (see `openLiveStream`): the same
 * checks as the app's proxy and route handler (the host is one of the app's, a session, the run
 * in the viewer's organization) and the same security headers, then each frame is written to
 * the socket as it is. Going through a route handler costs every viewer a chain of web-stream
 * promises per frame; with hundreds of viewers of one run that, not the shared read, was the
 * server's time. Returns false (leave it to Next.js) for any other request.
 */
export function serveLiveStream(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== "GET") return false;
  const match = LIVE_PATH.exec(req.url ?? "");
  if (!match?.[1]) return false;
  answer(req, res, match[1]).catch((error: unknown) => {
    console.error(`live stream: ${error instanceof Error ? error.message : String(error)}`);
    if (!res.headersSent) reply(res, 500, "the live stream could not be opened; the page retries on its own", {});
    else res.end();
  });
  return true;
}

async function answer(req: IncomingMessage, res: ServerResponse, runId: string) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  // Only the path and query are read from the URL; the host comes from the headers, as in the proxy.
  const request = new Request(`http://localhost${req.url}`, { headers });
  if (!requestedPublicUrl(request)) {
    reply(res, 421, MISDIRECTED_MESSAGE, {});
    return;
  }
  const nonce = Buffer.from(randomUUID()).toString("base64");
  const security = securityHeaders(nonce, { https: isHttps(request), dev: false });
  const opening = await openLiveStream(request, runId);
  if (!opening.ok) {
    reply(res, opening.status, opening.message, security);
    return;
  }
  if (res.destroyed) return;
  // The stream's body ends with its connection, so frames go out as they are, without HTTP/1.1
  // chunk framing: with hundreds of viewers, one write per viewer a second is the server's cost,
  // and framing made each a third dearer.
  res.useChunkedEncodingByDefault = false;
  res.shouldKeepAlive = false;
  res.writeHead(200, { ...LIVE_STREAM_HEADERS, ...security, connection: "close" });
  const detach = opening.attach({
    write: (bytes) => {
      res.write(bytes);
    },
    // A viewer whose socket still holds the last frame skips this one (the next state replaces it).
    ready: () => !res.writableNeedDrain,
    end: () => res.end(),
  });
  res.once("close", detach);
}

function reply(res: ServerResponse, status: number, message: string, security: Record<string, string>) {
  res.writeHead(status, {
    ...security,
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  });
  res.end(JSON.stringify({ error: { message } }));
}
