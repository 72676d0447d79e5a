// Runs one scenario and prints a JSON summary as its last line; spawned pinned to a core by the benches.
import { readFileSync } from "node:fs";
import { warmOpenModelCode } from "../packages/loadgen/src/engines/http-open";
import { runScenario } from "../packages/loadgen/src/index";
import { threadSchedstats } from "./lib";

/**
 * Per thread of this process: ms on a CPU and ms runnable but waiting for one, by thread name.
 * A main thread that waits for its core while another of the process's threads holds it shows
 * here, not in a CPU profile.
 */
function schedstat(): Map<string, { name: string; cpuMs: number; waitMs: number; slices: number }> {
  const threads = new Map<string, { name: string; cpuMs: number; waitMs: number; slices: number }>();
  for (const [tid, t] of threadSchedstats("self")) {
    try {
      threads.set(tid, { name: readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim(), ...t });
    } catch {
      // the thread ended meanwhile
    }
  }
  return threads;
}

const [specJson, baseUrl] = process.argv.slice(2);
if (!specJson || !baseUrl) {
  console.error("usage: engine-child.ts <spec json> <base url>");
  process.exit(2);
}
const spec = JSON.parse(specJson) as { engine: string };
// The open model's once-per-process code warm-up (a worker or agent pays it on its first run),
// measured apart so that CPU per request is a warmed process's, as in a long-lived worker.
const warmStart = process.cpuUsage();
if (spec.engine === "http-open" || spec.engine === "llm") await warmOpenModelCode();
const warmCpu = process.cpuUsage(warmStart);
const before = process.cpuUsage();
const threadsBefore = process.env.BENCH_SCHEDSTAT ? schedstat() : null;
// BENCH_REALTIME=1 asks for real-time scheduling as a worker with BENCHBOARD_ENGINE_REALTIME=1
// does (refused, or above 5,000 req/s, the result says the run kept normal scheduling, and why).
const result = await runScenario(spec as Parameters<typeof runScenario>[0], {
  baseUrl,
  realtime: process.env.BENCH_REALTIME === "1",
});
const cpu = process.cpuUsage(before);
if (threadsBefore) {
  for (const [tid, t] of schedstat()) {
    const b = threadsBefore.get(tid) ?? { cpuMs: 0, waitMs: 0, slices: 0 };
    const cpuMs = t.cpuMs - b.cpuMs;
    if (cpuMs < 1 && t.waitMs - b.waitMs < 1) continue;
    console.error(
      `thread ${tid === String(process.pid) ? "main" : tid} ${t.name}: on CPU ${cpuMs.toFixed(1)} ms, ` +
        `waiting for it ${(t.waitMs - b.waitMs).toFixed(1)} ms, ${t.slices - b.slices} slices`,
    );
  }
}
console.log(
  JSON.stringify({
    metrics: result.metrics,
    valid: result.valid,
    invalidReasons: result.invalidReasons,
    extra: { schedule: (result.extra as { schedule?: unknown } | undefined)?.schedule },
    series: { rps: result.series.rps?.values, latency_p99: result.series.latency_p99?.values },
    errors: result.errors,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    codeWarmupCpuSeconds: (warmCpu.user + warmCpu.system) / 1e6,
  }),
);
