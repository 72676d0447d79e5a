// The open-model engine at a fixed rate (default 5,000 req/s) against a server that answers
// after 50 ms, engine and server pinned to separate cores: achieved/target rate and latency.
import path from "node:path";
import {
  BENCH_DIR,
  CLIENT_CORE,
  envNumber,
  fmt,
  freePort,
  loadAverage,
  runEngine,
  SERVER_CORE,
  startPinned,
  stop,
  waitForPort,
} from "./lib";

const RATE = envNumber("BENCH_RATE", 5_000);
const DURATION_S = envNumber("BENCH_DURATION_S", 30);
const DELAY_MS = envNumber("BENCH_DELAY_MS", 50);

async function main() {
  console.log(
    `http-open: ${fmt(RATE)} req/s for ${DURATION_S} s against a ${DELAY_MS} ms server; engine on core ${CLIENT_CORE}, ` +
      `server on core ${SERVER_CORE}; load average ${loadAverage()}`,
  );
  const port = await freePort();
  const server = startPinned(SERVER_CORE, process.execPath, [
    "--import",
    "tsx",
    path.join(BENCH_DIR, "delay-server.ts"),
    String(port),
    String(DELAY_MS),
  ]);
  try {
    await waitForPort(port);
    const r = await runEngine(
      CLIENT_CORE,
      { engine: "http-open", rate: RATE, durationS: DURATION_S, warmupS: 1, maxConnections: 2_000, timeoutMs: 10_000 },
      `http://127.0.0.1:${port}`,
    );
    const m = r.metrics;
    const achievedRatio = (m.rps ?? 0) / (m.target_rps ?? RATE);
    const schedule = (r.extra.schedule ?? {}) as Record<string, number | null>;
    console.log(`  target      ${fmt(m.target_rps, 1)} req/s`);
    console.log(
      `  achieved    ${fmt(m.rps, 1)} req/s  → achieved/target = ${fmt(achievedRatio, 4)} (goal within 1%) ${Math.abs(1 - achievedRatio) <= 0.01 ? "OK" : "OUTSIDE GOAL"}`,
    );
    console.log(
      `  requests    ${fmt(m.requests)} (failed ${fmt(m.failed)})  valid: ${r.valid}${r.valid ? "" : ` — ${r.invalidReasons.join("; ")}`}`,
    );
    console.log(
      `  latency     p50 ${fmt(m.latency_p50, 2)} ms  p90 ${fmt(m.latency_p90, 2)}  p99 ${fmt(m.latency_p99, 2)}  max ${fmt(m.latency_max, 2)}  (p50 − delay = ${fmt((m.latency_p50 ?? 0) - DELAY_MS, 2)} ms)`,
    );
    console.log(
      `  send lag    p50 ${fmt(schedule.sendLagP50Ms ?? undefined, 2)} ms  p99 ${fmt(schedule.sendLagP99Ms ?? undefined, 2)} ms  max ${fmt(schedule.sendLagMaxMs ?? undefined, 2)} ms; late (>100 ms) ${fmt(schedule.lateSends ?? 0)}`,
    );
    const p99 = r.series.latency_p99 ?? [];
    const rpsSeries = r.series.rps ?? [];
    const worst = p99
      .map((v, i) => ({ second: i, p99: v ?? 0, rps: rpsSeries[i] ?? 0 }))
      .sort((a, b) => b.p99 - a.p99)
      .slice(0, 3);
    console.log(
      `  worst secs  ${worst.map((w) => `#${w.second}: p99 ${fmt(w.p99, 1)} ms at ${fmt(w.rps)} req/s`).join(";  ")}`,
    );
    console.log(
      `  engine CPU  ${fmt(r.cpuSeconds, 1)} s over the run (${fmt((r.cpuSeconds / (DURATION_S + 1)) * 100, 0)}% of a core)`,
    );
  } finally {
    await stop(server);
  }
  console.log(`load average after: ${loadAverage()}`);
}

await main();
