import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(BENCH_DIR, "..");
export const LOADGEN_BIN = path.join(ROOT, "packages/loadgen/node_modules/.bin");

/**
 * Per thread of a process, by thread id: ms on a CPU, ms runnable but waiting for one (the
 * scheduler's run-queue delay) and time slices, from `/proc/<pid>/task/<tid>/schedstat`, which
 * counts nanoseconds (`/proc/<pid>/stat` counts 10 ms ticks). A thread that ends meanwhile is
 * left out.
 */
export function threadSchedstats(pid: number | "self"): Map<string, { cpuMs: number; waitMs: number; slices: number }> {
  const threads = new Map<string, { cpuMs: number; waitMs: number; slices: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [cpu, wait, slices] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8")
        .trim()
        .split(" ")
        .map(Number);
      threads.set(tid, { cpuMs: (cpu ?? 0) / 1e6, waitMs: (wait ?? 0) / 1e6, slices: slices ?? 0 });
    } catch {
      // the thread ended meanwhile
    }
  }
  return threads;
}

/** Cores: the tool under test on one, the target on the other, so they never share a core. */
export const CLIENT_CORE = process.env.BENCH_CLIENT_CORE ?? "0";
export const SERVER_CORE = process.env.BENCH_SERVER_CORE ?? "1";

export function envNumber(name: string, fallback: number): number {
  const v = process.env[name];
  return v === undefined || v === "" ? fallback : Number(v);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, "127.0.0.1");
      sock.once("connect", () => {
        sock.destroy();
        resolve(true);
      });
      sock.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Run a command pinned to `core`, collecting its output. */
export function runPinned(
  core: string,
  command: string,
  args: string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("taskset", ["-c", core, command, ...args], { cwd: options.cwd ?? ROOT });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 600_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Run a command pinned to `core` through bash, whose `times` builtin then reports the CPU the
 * command used: CPU per request is the figure that a loaded machine disturbs least.
 */
export async function runPinnedTimed(
  core: string,
  command: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; cpuSeconds: number }> {
  const r = await runPinned(core, "bash", ["-c", '"$@"; code=$?; times >&2; exit $code', "bench", command, ...args]);
  const lines = r.stderr.trim().split("\n");
  const children = lines[lines.length - 1] ?? "";
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
    (sum, m) => sum + Number(m[1]) * 60 + Number(m[2]),
    0,
  );
  return { ...r, stderr: lines.slice(0, -2).join("\n"), cpuSeconds: seconds };
}

/** Start a long-running process pinned to `core`; the caller stops it with `kill`. */
export function startPinned(core: string, command: string, args: string[]): ChildProcess {
  const child = spawn("taskset", ["-c", core, command, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
  });
  return child;
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await exited;
  clearTimeout(timer);
}

/**
 * nginx with one worker on a high port, config in a temp dir. `static` (the default) serves a
 * 12-byte file with the access log on, as nginx usually runs: then nginx on one core is the
 * bottleneck for a fast client. `minimal` answers from config with no log, so nginx outruns
 * every client and the comparison becomes one of client CPU per request.
 */
export async function startNginx(
  core: string,
  mode: "static" | "minimal" = "static",
): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "benchboard-nginx-"));
  const port = await freePort();
  // nginx's worker runs as an unprivileged user: it must be able to read the file.
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, "index.html"), "hello world\n", { mode: 0o644 });
  const location =
    mode === "minimal"
      ? `access_log off; location / { default_type text/plain; return 200 "hello world\\n"; }`
      : `access_log ${dir}/access.log; root ${dir}; location / { index index.html; }`;
  const conf = `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 8192; }
http {
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 100000000;
  keepalive_timeout 300s;
  server {
    listen 127.0.0.1:${port};
    ${location}
  }
}
`;
  writeFileSync(path.join(dir, "nginx.conf"), conf);
  const child = startPinned(core, "nginx", [
    "-p",
    dir,
    "-c",
    path.join(dir, "nginx.conf"),
    "-e",
    path.join(dir, "error.log"),
  ]);
  await waitForPort(port);
  return {
    url: `http://127.0.0.1:${port}/`,
    stop: async () => {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Run one scenario in a child process pinned to `core`; returns the engine's result summary. */
export async function runEngine(
  core: string,
  spec: unknown,
  baseUrl: string,
  /** Another checkout's root, to run its engine instead of this one's (`BENCH_BASELINE_DIR`). */
  root = ROOT,
): Promise<EngineSummary> {
  const { code, stdout, stderr } = await runPinned(core, process.execPath, [
    // e.g. BENCH_ENGINE_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the engine
    ...(process.env.BENCH_ENGINE_NODE_FLAGS ?? "").split(" ").filter(Boolean),
    "--import",
    "tsx",
    path.join(root, "bench/engine-child.ts"),
    JSON.stringify(spec),
    baseUrl,
  ]);
  if (code !== 0) throw new Error(`engine child failed (${code}): ${stderr}`);
  // BENCH_SCHEDSTAT=1: the child's per-thread CPU and run-queue wait (see engine-child.ts).
  if (process.env.BENCH_SCHEDSTAT && stderr.trim()) console.log(stderr.trimEnd().replace(/^/gm, "    "));
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as EngineSummary;
}

export interface EngineSummary {
  metrics: Record<string, number>;
  valid: boolean;
  invalidReasons: string[];
  extra: Record<string, unknown>;
  errors: { kind: string; message: string; count: number }[];
  cpuSeconds: number;
  /** CPU of the open model's once-per-process code warm-up, before the run (not in `cpuSeconds`). */
  codeWarmupCpuSeconds?: number;
  series: { rps?: (number | null)[]; latency_p99?: (number | null)[] };
}

/** Load average, and CPU pressure (share of time some task waited for a CPU) when the kernel reports it. */
export function loadAverage(): string {
  const load = os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(" ");
  let pressure = "";
  try {
    const some = /some avg10=([\d.]+)/.exec(readFileSync("/proc/pressure/cpu", "utf8"));
    if (some) pressure = `, CPU pressure ${some[1]}%`;
  } catch {
    // no PSI on this kernel
  }
  return load + pressure;
}

export function fmt(n: number | undefined, digits = 0): string {
  return n === undefined || Number.isNaN(n)
    ? "—"
    : n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** The median of the finite values (the mean of the middle two for an even count); NaN for none. */
export function median(values: number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** p50 and p99 of one run, in ms. */
export interface ToolFigures {
  p50: number;
  p99: number;
}

/** One run of a tool: its figures, why it failed, or null where the tool is not installed. */
export type ToolRun = ToolFigures | string | null;

/** The runs that produced figures. */
export function toolFigures(runs: ToolRun[]): ToolFigures[] {
  return runs.filter((r): r is ToolFigures => r !== null && typeof r !== "string");
}

/** Median p50 and p99 over the runs that produced figures, or null when none did. */
export function medianFigures(runs: ToolRun[]): ToolFigures | null {
  const ok = toolFigures(runs);
  return ok.length ? { p50: median(ok.map((r) => r.p50)), p99: median(ok.map((r) => r.p99)) } : null;
}

/** "p50 / p99 (p50 range / p99 range)" of the runs, for a table cell; "—" without figures. */
export function figuresCell(runs: ToolRun[]): string {
  const s = medianFigures(runs);
  if (!s) return "—";
  const ok = toolFigures(runs);
  const range = (k: "p50" | "p99") =>
    `${fmt(Math.min(...ok.map((r) => r[k])), 2)}–${fmt(Math.max(...ok.map((r) => r[k])), 2)}`;
  return `${fmt(s.p50, 3)} / ${fmt(s.p99, 3)} (${range("p50")} / ${range("p99")})`;
}

/** A tool's binary: in the state directory (vegeta), where cargo installs (oha), or on PATH. */
export function findTool(name: string): string | null {
  const candidates = [
    path.join(ROOT, ".data/tools", name),
    path.join(os.homedir(), ".cargo/bin", name),
    path.join(os.homedir(), "go/bin", name),
    ...(process.env.PATH ?? "").split(":").map((dir) => path.join(dir, name)),
  ];
  return candidates.find((p) => existsSync(p)) ?? null;
}

/** vegeta at a fixed rate, pinned to `core`; its p50/p99, or why it failed. */
export async function runVegeta(
  core: string,
  bin: string,
  url: string,
  rate: number,
  connections: number,
  durationS: number,
): Promise<ToolFigures | string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "benchboard-vegeta-"));
  try {
    const out = path.join(dir, "results.bin");
    const attack = await runPinned(core, "bash", [
      "-c",
      `echo "GET ${url}" | "$0" attack -rate=${rate}/1s -duration=${durationS}s -workers=${connections} -output=${out}`,
      bin,
    ]);
    if (attack.code !== 0) return `vegeta failed: ${attack.stderr.slice(0, 200)}`;
    const report = await runPinned(core, bin, ["report", "-type=json", out]);
    const r = JSON.parse(report.stdout) as { latencies: Record<string, number> };
    return { p50: r.latencies["50th"]! / 1e6, p99: r.latencies["99th"]! / 1e6 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** oha at a fixed rate (`--latency-correction`), pinned to `core`; its p50/p99, or why it failed. */
export async function runOha(
  core: string,
  bin: string,
  url: string,
  rate: number,
  connections: number,
  durationS: number,
): Promise<ToolFigures | string> {
  const r = await runPinned(core, bin, [
    "-z",
    `${durationS}s`,
    "-q",
    String(rate),
    "--latency-correction",
    "-c",
    String(connections),
    "--no-tui",
    "--output-format",
    "json",
    url,
  ]);
  if (r.code !== 0) return `oha failed: ${r.stderr.slice(0, 200)}`;
  const j = JSON.parse(r.stdout) as { latencyPercentiles: Record<string, number> };
  return { p50: j.latencyPercentiles.p50! * 1000, p99: j.latencyPercentiles.p99! * 1000 };
}

/**
 * The native sender probe (bench/native-sender/sender.c), built with the system's C compiler into
 * .data/tools on first use; null where there is no compiler or the build failed.
 */
export function nativeSenderBin(): string | null {
  const source = path.join(ROOT, "bench/native-sender/sender.c");
  const bin = path.join(ROOT, ".data/tools/native-sender");
  if (existsSync(bin) && statSync(bin).mtimeMs >= statSync(source).mtimeMs) return bin;
  mkdirSync(path.dirname(bin), { recursive: true });
  const built = spawnSync("cc", ["-O2", "-o", bin, source], { encoding: "utf8" });
  if (built.status !== 0) {
    console.log(`native sender probe not built: ${(built.stderr || String(built.error)).slice(0, 200)}`);
    return null;
  }
  return bin;
}

/**
 * The native sender probe at a fixed rate, pinned to `core`: its p50/p99 from the due time, and
 * from the write (`fromSend`: where oha's `--latency-correction` starts its clock, when its
 * pacer wakes), or why it failed.
 */
export async function runNativeSender(
  core: string,
  bin: string,
  url: string,
  rate: number,
  connections: number,
  durationS: number,
): Promise<(ToolFigures & { fromSend: ToolFigures }) | string> {
  const u = new URL(url);
  const r = await runPinned(core, bin, [
    u.hostname,
    u.port || "80",
    String(rate),
    String(durationS),
    String(connections),
    u.pathname || "/",
  ]);
  if (r.code !== 0) return `native sender failed: ${r.stderr.slice(0, 200)}`;
  const j = JSON.parse(r.stdout) as { p50: number; p99: number; sendP50: number; sendP99: number };
  return { p50: j.p50, p99: j.p99, fromSend: { p50: j.sendP50, p99: j.sendP99 } };
}
