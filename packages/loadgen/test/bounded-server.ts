import http from "node:http";
import type { AddressInfo } from "node:net";

export interface BoundedServer {
  url: string;
  /** Requests answered (200) and refused (503, the queue full) so far. */
  answered(): number;
  refused(): number;
  /** What it sustains: `slots` requests at a time, each taking `serviceMs`. */
  capacityRps: number;
  close(): Promise<void>;
}

/**
 * A target whose capacity is known: `slots` requests are served at a time, each for a fixed
 * `serviceMs`; the rest wait in a queue of at most `queue`, beyond which it answers 503. Offered
 * more than slots / serviceMs req/s, its queue grows, latency climbs and it achieves no more.
 */
export async function startBoundedServer(options: {
  slots: number;
  serviceMs: number;
  queue?: number;
}): Promise<BoundedServer> {
  const { slots, serviceMs } = options;
  const maxQueue = options.queue ?? 5_000;
  const waiting: http.ServerResponse[] = [];
  let busy = 0;
  let answered = 0;
  let refused = 0;
  const serve = (res: http.ServerResponse) => {
    busy++;
    setTimeout(() => {
      res.end("ok");
      answered++;
      busy--;
      const next = waiting.shift();
      if (next) serve(next);
    }, serviceMs);
  };
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    if (busy < slots) return serve(res);
    if (waiting.length >= maxQueue) {
      refused++;
      res.statusCode = 503;
      res.end("busy");
      return;
    }
    waiting.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    answered: () => answered,
    refused: () => refused,
    capacityRps: (slots * 1000) / serviceMs,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
