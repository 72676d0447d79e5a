import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { runScenarioInThread } from "./engine-thread";
import { runScenario } from "./index";
import type { EngineContext, EngineResult } from "./types";

// The engine on a thread of its own goes on sending while the thread that started it is busy (a
// worker's database writes, queue locks, notifications), where the same engine on that thread
// cannot. The target is a real server in a process of its own, which records when each request
// arrived; the caller's thread is really held for 600 ms mid-run.
const RATE = 200;
const SPEC = { engine: "http-open", rate: RATE, durationS: 3, warmupS: 0, maxConnections: 32, timeoutMs: 5_000 };
const BLOCK_MS = 600;
/** Requests due while the caller is held. */
const DUE_IN_BLOCK = (RATE * BLOCK_MS) / 1000;

const SERVER = `
const http = require("node:http");
const arrivals = [];
const server = http.createServer((req, res) => {
  if (req.url.startsWith("/arrivals")) return res.end(JSON.stringify(arrivals));
  arrivals.push(Date.now());
  res.end("ok");
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

let child: ChildProcess | null = null;
afterEach(() => {
  child?.kill("SIGKILL");
  child = null;
});

async function startServer(): Promise<string> {
  child = spawn(process.execPath, ["-e", SERVER], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve) =>
    child!.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())),
  );
  return `http://127.0.0.1:${port}`;
}

/** Run; once the run reports its first second, hold the calling thread. Returns the hold's window too. */
async function runWithBusyCaller(
  run: (input: unknown, ctx: EngineContext) => Promise<EngineResult>,
  baseUrl: string,
): Promise<{ result: EngineResult; arrivedWhileHeld: number }> {
  let held: [number, number] | null = null;
  const result = await run(SPEC, {
    baseUrl,
    onProgress: () => {
      if (held) return;
      const from = Date.now();
      while (Date.now() < from + BLOCK_MS) {
        // the caller's other work
      }
      held = [from, Date.now()];
    },
  });
  const arrivals = (await (await fetch(`${baseUrl}/arrivals`)).json()) as number[];
  // A request or two may have left just before the hold began; the hold's last 500 ms then count.
  // Set in the callback, which TypeScript does not follow.
  const [from, to] = (held as [number, number] | null) ?? [0, 0];
  return { result, arrivedWhileHeld: arrivals.filter((t) => t >= from + 100 && t < to).length };
}

describe("runScenarioInThread", () => {
  it("goes on sending while the caller's thread is held, where the same engine on that thread cannot", async () => {
    const threaded = await runWithBusyCaller(runScenarioInThread, await startServer());
    // Generous: on a loaded machine the engine's own thread waits for a core too.
    expect(threaded.arrivedWhileHeld).toBeGreaterThan(DUE_IN_BLOCK * 0.25);
    expect(threaded.result.metrics.requests).toBeGreaterThan(0);
    child?.kill("SIGKILL");

    const inline = await runWithBusyCaller(runScenario, await startServer());
    expect(inline.arrivedWhileHeld).toBeLessThanOrEqual(2);
  });

  it("answers a refused scenario as the engine does, naming the field, and stops when aborted", async () => {
    const baseUrl = await startServer();
    const refused = await runScenarioInThread({ ...SPEC, rate: -5 }, { baseUrl }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: "EngineConfigError", field: "rate" });

    const abort = new AbortController();
    const result = await runScenarioInThread(
      { ...SPEC, durationS: 30 },
      { baseUrl, signal: abort.signal, onProgress: () => abort.abort() },
    );
    expect(result.canceled).toBe(true);
    expect(result.metrics.requests).toBeGreaterThan(0);
    expect(result.metrics.requests).toBeLessThan(RATE * 10);
  });
});
