import { execFile } from "node:child_process";
import { chown, mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A PostgreSQL server of the test's own (initdb into a temporary directory, a free port), so a
 * test can stop and restart it without touching the server other tests share. Needs the
 * PostgreSQL server binaries (`PG_BIN`, default /usr/lib/postgresql/15/bin); as root, the
 * server runs as the `postgres` user.
 */
export interface PrivatePostgres {
  /** A superuser URL to the `postgres` database; pass it to createTestDatabase. */
  url: string;
  port: number;
  /** Stop (fast shutdown: connections are cut), leaving the data in place. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stop and delete the data directory. */
  destroy(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startPrivatePostgres(bin = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin") {
  const dir = await mkdtemp(path.join(os.tmpdir(), "bb-pg-"));
  const data = path.join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  const as = async (file: string, args: string[]) => {
    if (asRoot) return run("runuser", ["-u", "postgres", "--", path.join(bin, file), ...args]);
    return run(path.join(bin, file), args);
  };
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await as("initdb", ["-D", data, "-A", "trust", "-U", "benchboard", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const start = async () => {
    await as("pg_ctl", ["-D", data, "-o", options, "-l", path.join(dir, "log"), "-w", "-t", "30", "start"]);
  };
  const stop = async () => {
    await as("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "30", "stop"]);
  };
  await start();
  return {
    url: `postgresql://benchboard:benchboard@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    async destroy() {
      await stop().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  } satisfies PrivatePostgres;
}
