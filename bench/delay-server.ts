// A target that answers every request after a fixed delay: `delay-server.ts <port> <delayMs>`.
import http from "node:http";

const port = Number(process.argv[2]);
const delayMs = Number(process.argv[3] ?? 50);
const server = http.createServer({ keepAliveTimeout: 300_000 }, (_req, res) => {
  setTimeout(() => res.end("ok"), delayMs);
});
server.maxRequestsPerSocket = 0;
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
