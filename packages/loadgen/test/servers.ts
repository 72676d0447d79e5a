import http from "node:http";
import type { AddressInfo } from "node:net";

export interface TestServer {
  url: string;
  port: number;
  server: http.Server;
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 with an ephemeral port. */
export async function startHttpServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
