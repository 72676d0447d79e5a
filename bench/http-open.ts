// The open-model engine side by side with vegeta and oha (both open models), on nginx serving a
// static file and on a server that answers after 50 ms, at several fixed rates: p50/p99 of each
// tool, the engine's against the better reference, and the engine's own send lag and CPU per
// request. Client and target are pinned to separate cores. The engine's latency counts from each
// request's due time; oha (`--latency-correction`) starts the clock when its pacer wakes and
// vegeta when a worker begins the hit, so their own lateness is left out of their figures. The
// engine's latency from the send, printed under its row, is the like-for-like figure.
import path from "node:path";
import {
  BENCH_DIR,
  CLIENT_CORE,
  type EngineSummary,
  envNumber,
  findTool,
  fmt,
  freePort,
  loadAverage,
  median,
  runEngine,
  runOha,
  runVegeta,
  SERVER_CORE,
  startNginx,
  startPinned,
  stop,
  waitForPort,
} from "./lib";

const RATES = (process.env.BENCH_RATES ?? "500,1000,5000,10000").split(",").map(Number);
const DURATION_S = envNumber("BENCH_DURATION_S", 8);
const DELAY_MS = envNumber("BENCH_DELAY_MS", 50);
const TARGETS = (process.env.BENCH_TARGETS ?? "nginx,delay").split(",");
/** Every tool gets the same connection budget, never fewer than this. */
const MIN_CONNECTIONS = envNumber("BENCH_CONNECTIONS", 64);
/**
 * Rounds per rate (each runs the three tools, the order rotating); the table shows each tool's
 * median p50 and p99 over them, and the p99 spread below it.
 */
const ROUNDS = envNumber("BENCH_ROUNDS", 3);
/** Ask for the engine at real-time priority (see packages/loadgen/src/realtime.ts; not above 5,000 req/s). */
const REALTIME = process.env.BENCH_REALTIME === "1";

interface Figures {
  p50: number;
  p99: number;
}

/** Median p50 and p99 of a tool's rounds; a string when every round failed, null when not run. */
function summarise(runs: (Figures | string | null)[]): Figures | string | null {
  const ok = runs.filter((r): r is Figures => r !== null && typeof r !== "string");
  if (ok.length === 0) return runs.find((r) => typeof r === "string") ?? null;
  return { p50: median(ok.map((r) => r.p50)), p99: median(ok.map((r) => r.p99)) };
}

/** Each engine run's `<prefix>_p50` and `<prefix>_p99`. */
function figuresOf(runs: EngineSummary[], prefix: "latency" | "latency_from_send"): Figures[] {
  return runs.map((e) => ({
    p50: e.metrics[`${prefix}_p50`] ?? Number.NaN,
    p99: e.metrics[`${prefix}_p99`] ?? Number.NaN,
  }));
}

function spread(runs: (Figures | string | null)[]): string {
  const p99s = runs.filter((r): r is Figures => r !== null && typeof r !== "string").map((r) => r.p99);
  return p99s.length ? `${fmt(Math.min(...p99s), 3)}–${fmt(Math.max(...p99s), 3)}` : "—";
}

/**
 * The connection budget every tool gets alike: what the rate holds open at the target's latency
 * with twice the room, and at least `BENCH_CONNECTIONS`, so that no tool queues for a connection.
 */
function connectionsFor(rate: number, latencyMs: number): number {
  return Math.max(MIN_CONNECTIONS, Math.ceil((rate * Math.max(latencyMs, 1)) / 1000) * 2);
}

function vegeta(bin: string, url: string, rate: number, latencyMs: number): Promise<Figures | string> {
  return runVegeta(CLIENT_CORE, bin, url, rate, connectionsFor(rate, latencyMs), DURATION_S);
}

function oha(bin: string, url: string, rate: number, latencyMs: number): Promise<Figures | string> {
  return runOha(CLIENT_CORE, bin, url, rate, connectionsFor(rate, latencyMs), DURATION_S);
}

function cell(f: Figures | string | null): string {
  if (f === null) return "—".padStart(17);
  if (typeof f === "string") return "failed".padStart(17);
  return `${fmt(f.p50, 3)} / ${fmt(f.p99, 3)}`.padStart(17);
}

async function main() {
  const vegetaBin = findTool("vegeta");
  const ohaBin = findTool("oha");
  console.log(
    `http-open side by side: ${DURATION_S} s per tool and rate; engine and tools on core ${CLIENT_CORE}, target on core ${SERVER_CORE}`,
  );
  console.log(`vegeta: ${vegetaBin ?? "not found"}; oha: ${ohaBin ?? "not found"}; load average ${loadAverage()}`);
  console.log(`${ROUNDS} round(s) per rate, medians shown`);
  console.log(
    `engine scheduling: ${REALTIME ? "real-time asked for (BENCH_REALTIME=1; the notes say which runs kept normal scheduling, and why)" : "normal"}`,
  );
  const notes: string[] = [];
  const warmupCpuMs: number[] = [];
  for (const target of TARGETS) {
    let url: string;
    let close: () => Promise<void>;
    let latencyMs: number;
    if (target === "nginx") {
      const nginx = await startNginx(SERVER_CORE, "static");
      url = nginx.url;
      close = nginx.stop;
      latencyMs = 1;
    } else {
      const port = await freePort();
      const server = startPinned(SERVER_CORE, process.execPath, [
        "--import",
        "tsx",
        path.join(BENCH_DIR, "delay-server.ts"),
        String(port),
        String(DELAY_MS),
      ]);
      await waitForPort(port);
      url = `http://127.0.0.1:${port}/`;
      close = () => stop(server);
      latencyMs = DELAY_MS;
    }
    console.log(`\n${target === "nginx" ? "nginx (1 worker), static file" : `${DELAY_MS} ms server`} — p50 / p99 ms`);
    console.log(
      `${"rate".padStart(7)} ${"benchboard".padStart(17)} ${"vegeta".padStart(17)} ${"oha".padStart(17)}  ${"Δp50 vs best".padStart(12)} ${"p99 ratio".padStart(9)}  send lag p50/p99/max ms   CPU µs/req  GC % / max ms  valid`,
    );
    try {
      for (const rate of RATES) {
        const engineRuns: EngineSummary[] = [];
        const vegetaRuns: (Figures | string | null)[] = [];
        const ohaRuns: (Figures | string | null)[] = [];
        const tools = [
          async () => {
            engineRuns.push(
              await runEngine(
                CLIENT_CORE,
                {
                  engine: "http-open",
                  rate,
                  durationS: DURATION_S,
                  warmupS: 1,
                  maxConnections: connectionsFor(rate, latencyMs),
                  timeoutMs: 10_000,
                },
                url.replace(/\/$/, ""),
              ),
            );
          },
          async () => {
            vegetaRuns.push(vegetaBin ? await vegeta(vegetaBin, url, rate, latencyMs) : null);
          },
          async () => {
            ohaRuns.push(ohaBin ? await oha(ohaBin, url, rate, latencyMs) : null);
          },
        ];
        for (let round = 0; round < ROUNDS; round++)
          for (let i = 0; i < tools.length; i++) await tools[(round + i) % tools.length]!();
        // The engine's other figures are from its median round by p99.
        const byP99 = [...engineRuns].sort(
          (a, b) =>
            (a.metrics.latency_p99 ?? Number.POSITIVE_INFINITY) - (b.metrics.latency_p99 ?? Number.POSITIVE_INFINITY),
        );
        const engine = byP99[(byP99.length - 1) >> 1]!;
        const m = engine.metrics;
        const engineFigures = figuresOf(engineRuns, "latency");
        const ours = summarise(engineFigures) as Figures;
        const v = summarise(vegetaRuns);
        const o = summarise(ohaRuns);
        for (const r of [...vegetaRuns, ...ohaRuns]) if (typeof r === "string") notes.push(`${target} ${rate}: ${r}`);
        const refs = [v, o].filter((r): r is Figures => r !== null && typeof r !== "string");
        const bestP50 = refs.length ? Math.min(...refs.map((r) => r.p50)) : Number.NaN;
        const bestP99 = refs.length ? Math.min(...refs.map((r) => r.p99)) : Number.NaN;
        const schedule = (engine.extra.schedule ?? {}) as Record<string, number | string | null>;
        if (REALTIME && schedule.scheduling !== "realtime")
          notes.push(
            `${target} ${rate}: the engine ran at normal scheduling: ${schedule.schedulingNote ?? "not asked"}`,
          );
        const lag = [
          m.send_lag_p50 ?? (schedule.sendLagP50Ms as number | null),
          m.send_lag_p99 ?? (schedule.sendLagP99Ms as number | null),
          m.send_lag_max ?? (schedule.sendLagMaxMs as number | null),
        ];
        const cpuPerRequestUs = (engine.cpuSeconds / Math.max(1, m.requests ?? 0)) * 1e6;
        console.log(
          `${fmt(rate).padStart(7)} ${cell(ours)} ${cell(v)} ${cell(o)}  ${fmt(ours.p50 - bestP50, 3).padStart(12)} ${fmt(ours.p99 / bestP99, 2).padStart(9)}  ${lag
            .map((x) => fmt(x ?? undefined, 3))
            .join(" / ")
            .padEnd(
              24,
            )} ${fmt(cpuPerRequestUs, 1).padStart(10)}  ${`${fmt(m.gc_pause_share, 2)} / ${fmt(m.gc_pause_max, 2)}`.padStart(13)}  ${engine.valid ? "yes" : "no"}`,
        );
        // Like for like: oha and vegeta start each request's clock when their pacer or worker gets
        // to it, so their own lateness is never in their figures; the engine's latency counts from
        // the due time. Its latency from the send leaves that out the same way.
        const fromSend = summarise(figuresOf(engineRuns, "latency_from_send")) as Figures;
        console.log(
          `${"".padStart(7)} ${cell(fromSend)}  ← benchboard timed from the send, as oha and vegeta time it: Δp50 vs best ${fmt(fromSend.p50 - bestP50, 3)}, p99 ratio ${fmt(fromSend.p99 / bestP99, 2)}`,
        );
        if (ROUNDS > 1)
          console.log(
            `${"".padStart(7)} p99 spread over ${ROUNDS} rounds: benchboard ${spread(engineFigures)}, vegeta ${spread(vegetaRuns)}, oha ${spread(ohaRuns)}; engine valid in ${engineRuns.filter((e) => e.valid).length} of ${engineRuns.length}`,
          );
        for (const e of engineRuns) {
          if (!e.valid) notes.push(`${target} ${rate}: ${e.invalidReasons.join("; ")}`);
          if (e.codeWarmupCpuSeconds !== undefined) warmupCpuMs.push(e.codeWarmupCpuSeconds * 1000);
        }
      }
    } finally {
      await close();
    }
  }
  for (const n of notes) console.log(`  note: ${n}`);
  if (warmupCpuMs.length > 0)
    console.log(
      `  the engine's once-per-process code warm-up (before each run here, a fresh process; not in CPU µs/req): ${fmt(Math.min(...warmupCpuMs))}–${fmt(Math.max(...warmupCpuMs))} ms of CPU`,
    );
  console.log(`\nload average after: ${loadAverage()}`);
}

await main();
