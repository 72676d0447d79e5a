// The open-model engine beside oha and vegeta when other work shares the machine: nginx on its
// own core, the client (each tool in turn) on another, and per condition either nothing else,
// a busy loop pinned to the client's core, or a busy loop on each core. The tools alternate
// within each round (the order rotating), so each faces the same neighbours' noise. Printed per
// condition: each tool's median p50 / p99 and their spread, the engine's p50 minus oha's and its
// p99 over oha's, the engine's send lag and how many of its runs were valid, and the load
// average before and after. The engine's latency counts from each request's due time (its own
// lateness included); oha's and vegeta's from when their pacer gets to the request.
import { type ChildProcess, spawn } from "node:child_process";
import {
  CLIENT_CORE,
  type EngineSummary,
  envNumber,
  figuresCell,
  findTool,
  fmt,
  loadAverage,
  median,
  medianFigures,
  nativeSenderBin,
  runEngine,
  runNativeSender,
  runOha,
  runVegeta,
  SERVER_CORE,
  startNginx,
  stop,
  type ToolFigures,
  type ToolRun,
} from "./lib";

const DURATION_S = envNumber("BENCH_DURATION_S", 6);
const ROUNDS = envNumber("BENCH_ROUNDS", 3);
const CONNECTIONS = envNumber("BENCH_CONNECTIONS", 64);
/**
 * `BENCH_NATIVE=1`: the native sender probe (bench/native-sender/sender.c, built with `cc`) runs
 * in every round too: what one thread without a JavaScript event loop reads on the same host.
 */
const NATIVE = process.env.BENCH_NATIVE === "1";
/** Another checkout (e.g. the previous commit's, with its dependencies) whose engine runs beside this one's. */
const BASELINE_DIR = process.env.BENCH_BASELINE_DIR;

interface Condition {
  name: string;
  rate: number;
  /** Cores that get a busy loop for the condition's runs. */
  busyCores: string[];
}

const ALL_CONDITIONS: Condition[] = [
  { name: "quiet", rate: 1000, busyCores: [] },
  { name: "quiet", rate: 5000, busyCores: [] },
  { name: "busy loop on the client's core", rate: 1000, busyCores: [CLIENT_CORE] },
  { name: "both cores busy", rate: 1000, busyCores: [CLIENT_CORE, SERVER_CORE] },
];
/** `BENCH_CONDITIONS`: indexes into the list above (e.g. `2,3`), all by default. */
const CONDITIONS = process.env.BENCH_CONDITIONS
  ? process.env.BENCH_CONDITIONS.split(",").map((i) => ALL_CONDITIONS[Number(i)]!)
  : ALL_CONDITIONS;

/**
 * A process that spins on `core` at normal priority until stopped, in a session of its own like
 * any other job on the host. (Where the kernel groups tasks by session, `autogroup`, a loop
 * started in the bench's own session would share the engine's group and take its share of the
 * core from inside: `BENCH_BUSY_SAME_SESSION=1` measures that case.)
 */
function busyLoop(core: string): ChildProcess {
  return spawn("taskset", ["-c", core, process.execPath, "-e", "for (;;) {}"], {
    stdio: "ignore",
    detached: process.env.BENCH_BUSY_SAME_SESSION !== "1",
  });
}

async function main() {
  const ohaBin = findTool("oha");
  const vegetaBin = findTool("vegeta");
  const nativeBin = NATIVE ? nativeSenderBin() : null;
  console.log(
    `contention: ${DURATION_S} s per tool, ${ROUNDS} round(s); client on core ${CLIENT_CORE}, nginx on core ${SERVER_CORE}; ${CONNECTIONS} connections each`,
  );
  console.log(`oha: ${ohaBin ?? "not found"}; vegeta: ${vegetaBin ?? "not found"}; load average ${loadAverage()}`);
  const nginx = await startNginx(SERVER_CORE, "static");
  const rows: string[] = [];
  try {
    for (const condition of CONDITIONS) {
      const loadBefore = loadAverage();
      const busy = condition.busyCores.map(busyLoop);
      const engineRuns: EngineSummary[] = [];
      const baselineRuns: EngineSummary[] = [];
      const engineFailures: string[] = [];
      const ohaRuns: ToolRun[] = [];
      const vegetaRuns: ToolRun[] = [];
      const nativeRuns: ToolRun[] = [];
      try {
        // Let the busy loops settle into their cores before the first run.
        if (busy.length) await new Promise((r) => setTimeout(r, 500));
        const engine = (root: string | undefined, into: EngineSummary[]) => async () => {
          const run = await runEngine(
            CLIENT_CORE,
            {
              engine: "http-open",
              rate: condition.rate,
              durationS: DURATION_S,
              warmupS: 1,
              maxConnections: CONNECTIONS,
              timeoutMs: 10_000,
            },
            nginx.url.replace(/\/$/, ""),
            root,
          ).catch((error: Error) => error.message.slice(0, 300));
          if (typeof run === "string") engineFailures.push(run);
          else into.push(run);
        };
        const tools = [
          engine(undefined, engineRuns),
          ...(BASELINE_DIR ? [engine(BASELINE_DIR, baselineRuns)] : []),
          async () => {
            ohaRuns.push(
              ohaBin ? await runOha(CLIENT_CORE, ohaBin, nginx.url, condition.rate, CONNECTIONS, DURATION_S) : null,
            );
          },
          async () => {
            vegetaRuns.push(
              vegetaBin
                ? await runVegeta(CLIENT_CORE, vegetaBin, nginx.url, condition.rate, CONNECTIONS, DURATION_S)
                : null,
            );
          },
          ...(nativeBin
            ? [
                async () => {
                  nativeRuns.push(
                    await runNativeSender(CLIENT_CORE, nativeBin, nginx.url, condition.rate, CONNECTIONS, DURATION_S),
                  );
                },
              ]
            : []),
        ];
        for (let round = 0; round < ROUNDS; round++)
          for (let i = 0; i < tools.length; i++) await tools[(round + i) % tools.length]!();
      } finally {
        for (const child of busy) await stop(child);
      }
      const loadAfter = loadAverage();
      const engine: ToolRun[] = engineRuns.map((e) => ({
        p50: e.metrics.latency_p50 ?? Number.NaN,
        p99: e.metrics.latency_p99 ?? Number.NaN,
      }));
      const baseline: ToolRun[] = baselineRuns.map((e) => ({
        p50: e.metrics.latency_p50 ?? Number.NaN,
        p99: e.metrics.latency_p99 ?? Number.NaN,
      }));
      const fromSend: ToolRun[] = engineRuns.map((e) => ({
        p50: e.metrics.latency_from_send_p50 ?? Number.NaN,
        p99: e.metrics.latency_from_send_p99 ?? Number.NaN,
      }));
      const e = medianFigures(engine);
      const o = medianFigures(ohaRuns);
      const lag50 = median(engineRuns.map((r) => r.metrics.send_lag_p50 ?? Number.NaN));
      const lag99 = median(engineRuns.map((r) => r.metrics.send_lag_p99 ?? Number.NaN));
      const lagMax = Math.max(...engineRuns.map((r) => r.metrics.send_lag_max ?? Number.NaN));
      const valid = engineRuns.filter((r) => r.valid).length;
      const label = `${condition.name}, ${fmt(condition.rate)} req/s`;
      console.log(`\n${label} (load average ${loadBefore} → ${loadAfter})`);
      console.log(`  benchboard            ${figuresCell(engine)}`);
      console.log(`  benchboard from send  ${figuresCell(fromSend)}`);
      if (BASELINE_DIR)
        console.log(
          `  baseline engine       ${figuresCell(baseline)}; send lag p50 / p99 ${fmt(median(baselineRuns.map((r) => r.metrics.send_lag_p50 ?? Number.NaN)), 3)} / ${fmt(median(baselineRuns.map((r) => r.metrics.send_lag_p99 ?? Number.NaN)), 3)} ms; valid ${baselineRuns.filter((r) => r.valid).length} of ${baselineRuns.length}`,
        );
      console.log(`  oha                   ${figuresCell(ohaRuns)}`);
      console.log(`  vegeta                ${figuresCell(vegetaRuns)}`);
      if (nativeBin) {
        const n = medianFigures(nativeRuns);
        console.log(
          `  native sender probe   ${figuresCell(nativeRuns)}; p99 over oha's ×${fmt(n && o ? n.p99 / o.p99 : Number.NaN, 2)}`,
        );
        console.log(
          `  probe from send       ${figuresCell(nativeRuns.map((r) => (r !== null && typeof r === "object" && "fromSend" in r ? (r as { fromSend: ToolFigures }).fromSend : r)))}`,
        );
      }
      const dp50 = e && o ? e.p50 - o.p50 : Number.NaN;
      const r99 = e && o ? e.p99 / o.p99 : Number.NaN;
      console.log(
        `  engine vs oha: p50 ${dp50 >= 0 ? "+" : ""}${fmt(dp50, 3)} ms (goal ≤ 0.1), p99 ×${fmt(r99, 2)} (goal ≤ 1.25); send lag p50 / p99 / max ${fmt(lag50, 3)} / ${fmt(lag99, 3)} / ${fmt(lagMax, 1)} ms; valid ${valid} of ${engineRuns.length}`,
      );
      for (const r of engineRuns) if (!r.valid) console.log(`  invalid: ${r.invalidReasons.join("; ")}`);
      for (const r of [...ohaRuns, ...vegetaRuns, ...nativeRuns]) if (typeof r === "string") console.log(`  ${r}`);
      for (const f of engineFailures) console.log(`  the engine failed: ${f}`);
      rows.push(
        `| ${label} | ${loadBefore.split(",")[0]} → ${loadAfter.split(",")[0]} | ${figuresCell(engine)} |${BASELINE_DIR ? ` ${figuresCell(baseline)} |` : ""} ${figuresCell(ohaRuns)} | ${figuresCell(vegetaRuns)} |${nativeBin ? ` ${figuresCell(nativeRuns)} |` : ""} ${fmt(dp50, 3)} | ${fmt(r99, 2)} | ${fmt(lag50, 3)} / ${fmt(lag99, 3)} | ${valid} of ${engineRuns.length} |`,
      );
    }
  } finally {
    await nginx.stop();
  }
  console.log(
    `\n| condition | load avg | benchboard p50 / p99 (ranges) |${BASELINE_DIR ? " baseline engine |" : ""} oha | vegeta |${nativeBin ? " native sender probe |" : ""} p50 − oha | p99 / oha | send lag p50 / p99 | valid |`,
  );
  console.log(
    `| --- | --- | --- |${BASELINE_DIR ? " --- |" : ""} --- | --- |${nativeBin ? " --- |" : ""} ---: | ---: | --- | --- |`,
  );
  for (const row of rows) console.log(row);
  console.log(`\nload average after: ${loadAverage()}`);
}

await main();
