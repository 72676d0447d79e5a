// Max req/s of the http-closed engine against nginx, beside wrk, autocannon (and drill when
// installed) on the same target in the same run; client and nginx pinned to separate cores.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  CLIENT_CORE,
  envNumber,
  fmt,
  LOADGEN_BIN,
  loadAverage,
  median,
  runEngine,
  runPinnedTimed,
  SERVER_CORE,
  startNginx,
} from "./lib";

const DURATION_S = envNumber("BENCH_DURATION_S", 10);
const CONNECTIONS = envNumber("BENCH_CONNECTIONS", 64);
const ROUNDS = envNumber("BENCH_ROUNDS", 2);
const NGINX_MODE = process.env.BENCH_NGINX === "minimal" ? "minimal" : "static";

interface Measured {
  rps: number;
  /** CPU the client used per request, in µs. */
  cpuUs: number;
}

async function wrk(url: string): Promise<Measured> {
  const { stdout, cpuSeconds } = await runPinnedTimed(CLIENT_CORE, "wrk", [
    "-t1",
    `-c${CONNECTIONS}`,
    `-d${DURATION_S}s`,
    url,
  ]);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(stdout);
  const total = /(\d+) requests in/.exec(stdout);
  if (!rps || !total) throw new Error(`could not read wrk output:\n${stdout}`);
  const problems = /(Socket errors:.*|Non-2xx or 3xx responses:.*)/.exec(stdout);
  if (problems) console.log(`  wrk reported ${problems[1]}`);
  return { rps: Number(rps[1]), cpuUs: (cpuSeconds * 1e6) / Number(total[1]) };
}

async function autocannon(url: string): Promise<Measured> {
  const { stdout, stderr, cpuSeconds } = await runPinnedTimed(CLIENT_CORE, path.join(LOADGEN_BIN, "autocannon"), [
    "-c",
    String(CONNECTIONS),
    "-d",
    String(DURATION_S),
    "-j",
    url,
  ]);
  const json = JSON.parse(stdout) as { requests?: { total: number }; duration: number };
  if (!json.requests) throw new Error(`could not read autocannon output: ${stderr}`);
  // Its CPU includes node's start-up (~0.1 s), a few % of a 10 s run.
  return { rps: json.requests.total / json.duration, cpuUs: (cpuSeconds * 1e6) / json.requests.total };
}

function drillBinary(): string | null {
  const candidates = [path.join(os.homedir(), ".cargo/bin/drill"), "/usr/local/bin/drill", "/usr/bin/drill"];
  return candidates.find((c) => existsSync(c)) ?? null;
}

async function drill(bin: string, url: string, expectedRps: number): Promise<Measured> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "benchboard-drill-"));
  const iterations = Math.max(CONNECTIONS, Math.round(expectedRps * DURATION_S));
  const file = path.join(dir, "plan.yml");
  writeFileSync(
    file,
    `base: '${url.replace(/\/$/, "")}'\niterations: ${iterations}\nconcurrency: ${CONNECTIONS}\nplan:\n  - name: root\n    request:\n      url: /\n`,
  );
  try {
    const { stdout, cpuSeconds } = await runPinnedTimed(CLIENT_CORE, bin, ["--benchmark", file, "--stats", "--quiet"]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips drill's ANSI colours
    const m = /Requests per second\s+([\d.]+)/.exec(stdout.replace(/\x1b\[[0-9;]*m/g, ""));
    if (!m) throw new Error(`could not read drill output:\n${stdout}`);
    return { rps: Number(m[1]), cpuUs: (cpuSeconds * 1e6) / iterations };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  console.log(
    `http-closed vs reference tools: nginx on core ${SERVER_CORE}, each client on core ${CLIENT_CORE}, ` +
      `${CONNECTIONS} connections, ${DURATION_S} s per run, ${ROUNDS} round(s), nginx ${NGINX_MODE}; load average ${loadAverage()}`,
  );
  const nginx = await startNginx(SERVER_CORE, NGINX_MODE);
  const best: Record<string, Measured> = {};
  const rounds: Record<string, Measured>[] = [];
  const show = (tool: string, m: Measured) =>
    console.log(`  ${tool.padEnd(12)} ${fmt(m.rps).padStart(8)} req/s   ${fmt(m.cpuUs, 1).padStart(6)} µs CPU/request`);
  const keep = (tool: string, m: Measured) => {
    const prev = best[tool];
    best[tool] = {
      rps: Math.max(prev?.rps ?? 0, m.rps),
      cpuUs: Math.min(prev?.cpuUs ?? Number.POSITIVE_INFINITY, m.cpuUs),
    };
    show(tool, m);
  };
  const drillBin = process.env.BENCH_DRILL === "0" ? null : drillBinary();
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round} (load average ${loadAverage()})`);
      const thisRound: Record<string, Measured> = {};
      rounds.push(thisRound);
      const measure = (tool: string, m: Measured) => {
        thisRound[tool] = m;
        keep(tool, m);
      };
      const tools: [string, () => Promise<Measured>][] = [
        ["wrk", () => wrk(nginx.url)],
        ["autocannon", () => autocannon(nginx.url)],
        [
          "benchboard",
          async () => {
            const engine = await runEngine(
              CLIENT_CORE,
              { engine: "http-closed", concurrency: CONNECTIONS, durationS: DURATION_S, timeoutMs: 10_000 },
              nginx.url,
            );
            if ((engine.metrics.failed ?? 0) > 0) console.log(`  engine errors: ${JSON.stringify(engine.errors)}`);
            return {
              rps: engine.metrics.rps ?? 0,
              cpuUs: (engine.cpuSeconds * 1e6) / (engine.metrics.requests ?? 1),
            };
          },
        ],
      ];
      // Each round starts with a different tool, so that none always runs in the same slot
      // (for instance last, after the others' access-log writes and a neighbour's drift).
      const shift = (round - 1) % tools.length;
      for (const [tool, run] of [...tools.slice(shift), ...tools.slice(0, shift)]) measure(tool, await run());
    }
    if (drillBin) keep("drill", await drill(drillBin, nginx.url, best.benchboard?.rps ?? 20_000));
  } finally {
    await nginx.stop();
  }
  // The machine is shared: a neighbour's burst can hit any one run, so each round's tools run
  // back to back and the headline is the median of the per-round ratios.
  const roundRatios = (tool: string) =>
    rounds.map((r) => (r.benchboard?.rps ?? Number.NaN) / (r[tool]?.rps ?? Number.NaN));
  console.log("\nper-round req/s ratios and their median (the headline):");
  for (const [tool, goal] of [
    ["wrk", 0.7],
    ["autocannon", 1.0],
  ] as const) {
    const ratios = roundRatios(tool);
    const m = median(ratios);
    console.log(
      `  benchboard / ${tool.padEnd(10)} ${ratios.map((r) => fmt(r, 2)).join("  ")}  → median ${fmt(m, 2)} (goal ≥ ${goal.toFixed(2)}: ${m >= goal ? "OK" : "below"})`,
    );
  }
  console.log("\nbest of rounds (highest req/s, lowest CPU per request):");
  for (const [tool, m] of Object.entries(best)) show(tool, m);
  const engine = best.benchboard ?? { rps: 0, cpuUs: Number.NaN };
  const ratio = (tool: string) => engine.rps / (best[tool]?.rps ?? Number.NaN);
  // CPU per request is what a busy neighbour disturbs least: reference CPU ÷ engine CPU.
  const efficiency = (tool: string) => (best[tool]?.cpuUs ?? Number.NaN) / engine.cpuUs;
  const line = (tool: string) =>
    console.log(
      `  benchboard / ${tool.padEnd(10)} best req/s ratio ${fmt(ratio(tool), 2)}   CPU-efficiency ratio ${fmt(efficiency(tool), 2)}`,
    );
  line("wrk");
  line("autocannon");
  if (best.drill) line("drill");
  console.log(`load average after: ${loadAverage()}`);
}

await main();
