// The production server: Next.js behind a plain Node HTTP server, so that the app learns the
// address of the socket each request came from. Next.js alone only passes X-Forwarded-For on,
// which any client can write; rate limits must count the real peer (see BENCHBOARD_TRUSTED_PROXIES).
import { createServer, STATUS_CODES } from "node:http";
import { parseArgs } from "node:util";
import next from "next";

// Output to a log sink that has gone away (the process that held our stdout pipe died) is
// dropped. Otherwise the write fails with EPIPE on the stream, the unhandled stream error reaches
// Next.js's uncaught-exception handler, which logs it to the same stream, and so on: the server
// spun a core for as long as it lived.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);

/** Header the app reads the peer address from; set here on every request, whatever came in. */
const PEER_HEADER = "x-benchboard-peer";
process.env.BENCHBOARD_PEER_HEADER = PEER_HEADER;

const { values } = parseArgs({
  options: { port: { type: "string", short: "p" }, hostname: { type: "string", short: "H" } },
});
const port = Number(values.port ?? process.env.PORT ?? 3000);
const hostname = values.hostname ?? process.env.HOST ?? "127.0.0.1";

// The app answers only for its public URL(s); without BENCHBOARD_PUBLIC_URL, for this address.
process.env.BENCHBOARD_LISTEN = `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;

const app = next({ dev: false, dir: import.meta.dirname, hostname, port });
await app.prepare();
const handle = app.getRequestHandler();

/** Methods the app answers; anything else (TRACE, CONNECT, …) is a 405 before Next.js sees it. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

const server = createServer((req, res) => {
  if (!METHODS.has(req.method ?? "")) {
    res.writeHead(405, { allow: [...METHODS].join(", "), "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `method ${req.method} is not allowed` } }));
    return;
  }
  req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "";
  // A run's live stream is written to the socket directly (src/server/live-stream-node.ts,
  // handed over by src/instrumentation.ts when the app starts); everything else is Next.js's.
  if (globalThis.benchboardServeLive?.(req, res)) return;
  void handle(req, res);
});
// A request the parser refuses (request line and headers over 16 KB, malformed, too slow) is
// answered, and the connection closed only once the client has stopped sending. Node's default
// writes the answer and destroys the socket at once: with the client's bytes still unread, the
// kernel resets the connection, and the client reads "connection reset", never the status.
const REFUSALS = { HPE_HEADER_OVERFLOW: 431, HPE_CHUNK_EXTENSIONS_OVERFLOW: 413, ERR_HTTP_REQUEST_TIMEOUT: 408 };
/** How long a refused client may go on sending before its connection is dropped. */
const LINGER_MS = 2_000;
server.on("clientError", (err, socket) => {
  if (socket.destroyed || socket.refused) return;
  socket.refused = true;
  if (!socket.writable || err.code === "ECONNRESET" || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const status = REFUSALS[err.code] ?? 400;
  // Read and drop whatever else arrives (the parser is done with this connection) until the
  // client closes its side or the linger ends.
  socket.removeAllListeners("data");
  socket.on("data", () => undefined);
  socket.on("end", () => socket.destroy());
  socket.resume();
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
});
server.listen(port, hostname, () => console.log(`Benchboard web listening on http://${hostname}:${port}`));

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 5_000).unref();
  });
}
