import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";

/**
 * A Redis of the test's own, on a free port, without persistence (`--save '' --appendonly no`),
 * so tests can stop it and start it again empty — what a restart does to a default install —
 * without touching the Redis other tests share.
 */
export interface PrivateRedis {
  url: string;
  port: number;
  /** Stop the server (SIGKILL: its data is gone). */
  stop(): Promise<void>;
  /** Start it again on the same port, empty. */
  start(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, up: boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open === up) return;
    if (Date.now() > until) throw new Error(`port ${port} did not ${up ? "open" : "close"} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startPrivateRedis(binary = "redis-server"): Promise<PrivateRedis> {
  let port = 0;
  let child: ChildProcess | null = null;
  const start = async () => {
    const spawned = spawn(
      binary,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"],
      { stdio: "ignore" },
    );
    child = spawned;
    // A server that exits at once (the port was taken meanwhile) fails the start instead of a long wait.
    const exited = new Promise<never>((_, reject) =>
      spawned.once("exit", (code) => reject(new Error(`redis-server on port ${port} exited (${code})`))),
    );
    exited.catch(() => {});
    await Promise.race([waitForPort(port, true, 30_000), exited]);
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (running && running.exitCode === null && running.signalCode === null) {
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGKILL");
      await exited;
    }
    await waitForPort(port, false);
  };
  // The first start takes a free port; a port another process grabbed in between is given up.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
  return { url: `redis://127.0.0.1:${port}`, port, stop, start };
}
