import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startHttpServer, type TestServer } from "../../test/servers";

const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CHILD = path.join(PACKAGE_DIR, "test/open-model-child.ts");
/** The core the engine and the busy process share. */
const CORE = "0";
const RATE = 200;
const DURATION_S = 3;
/** Generous on purpose: a send this late is no open model's, whatever else runs on the core. */
const LATE_BOUND_MS = 50;

let server: TestServer | null = null;
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    }
  }
  await server?.close();
  server = null;
});

/**
 * A process that spins on `core` at normal priority until killed, in a session of its own, as
 * another job on the host would be (where the kernel groups each session's tasks, `autogroup`,
 * one spinning in the engine's own session would take the engine's own share of the core).
 */
function busyLoop(core: string): ChildProcess {
  const child = spawn("taskset", ["-c", core, process.execPath, "-e", "for (;;) {}"], {
    stdio: "ignore",
    detached: true,
  });
  children.push(child);
  return child;
}

/** Run a scenario in a child process pinned to `core`; its result's figures. */
function runPinned(
  core: string,
  spec: object,
  baseUrl: string,
): Promise<{ metrics: Record<string, number>; valid: boolean; invalidReasons: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "taskset",
      ["-c", core, process.execPath, "--import", "tsx", CHILD, JSON.stringify(spec), baseUrl],
      { cwd: PACKAGE_DIR, stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(child);
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`the engine's process failed (${code}): ${err.slice(0, 500)}`));
      resolve(JSON.parse(out.trim().split("\n").pop() ?? "{}"));
    });
  });
}

describe("the open model beside a busy process on its core", () => {
  it(`keeps sending on schedule: no send more than ${LATE_BOUND_MS} ms late at ${RATE} req/s`, async () => {
    // Arrival times as the target sees them, in ms.
    const arrivals: number[] = [];
    server = await startHttpServer((req, res) => {
      arrivals.push(performance.now());
      req.resume();
      res.end("ok");
    });
    const busy = busyLoop(CORE);
    // The busy process is spinning before the engine starts.
    await new Promise((r) => setTimeout(r, 300));
    expect(busy.exitCode).toBeNull();

    const result = await runPinned(
      CORE,
      { engine: "http-open", rate: RATE, durationS: DURATION_S, warmupS: 0, maxConnections: 16, timeoutMs: 5_000 },
      server.url,
    );
    // The busy process ran beside it the whole time.
    expect(busy.exitCode).toBeNull();

    const expected = RATE * DURATION_S;
    expect(result.metrics.requests).toBe(expected);
    expect(result.metrics.failed ?? 0).toBe(0);
    // The engine's own account: every send left within the bound of its due time.
    expect(result.metrics.send_lag_max).toBeLessThan(LATE_BOUND_MS);

    // The target's account, independent of the engine's: every request arrived, in step with the
    // schedule (request n near n intervals after the start as the arrivals place it). Its stamps
    // also carry this process's own wait for a core on a busy host, hence twice the bound here.
    expect(arrivals.length).toBe(expected);
    const interval = 1000 / RATE;
    const sorted = [...arrivals].sort((a, b) => a - b);
    const offsets = sorted.map((t, n) => t - n * interval).sort((a, b) => a - b);
    const start = offsets[offsets.length >> 1]!;
    const worst = Math.max(...sorted.map((t, n) => Math.abs(t - start - n * interval)));
    expect(worst).toBeLessThan(2 * LATE_BOUND_MS);
  }, 60_000);
});
