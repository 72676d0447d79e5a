// Parse time per MB of every upload format, on normal and on adversarial input, at 1 MB and
// 10 MB: the ratio of the two times is about 10 when reading is linear (a quadratic importer
// shows about 100). Then how long the request thread stalls while a 10 MB adversarial upload is
// read in-thread (as before) versus on the parse pool (as the server does now).
import { readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { ImportError } from "../packages/core/src/importers/import-error";
import { ParsePool } from "../packages/core/src/importers/parse-pool";
import { readUploadContent } from "../packages/core/src/importers/read-upload";
import { MAX_LINE_CHARS } from "../packages/core/src/importers/text";
import { envNumber, fmt, loadAverage, ROOT } from "./lib";

const ROUNDS = envNumber("BENCH_ROUNDS", 5);
/** Collected before each timed read when node runs with --expose-gc, so one read's garbage does not bill the next. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
const MB = 1_000_000;
const FIXTURES = path.join(ROOT, "packages/core/src/importers/fixtures");
const fixture = (p: string) => readFileSync(path.join(FIXTURES, p), "utf8");

/** A text report padded with lines the importer keeps as unrecognized output (a Lua script's, say). */
function paddedText(report: string, bytes: number): string {
  const line = "custom metric from the run script: requests 1234 errors 0 p99 12.5 ms\n";
  return report + line.repeat(Math.max(0, Math.ceil((bytes - report.length) / line.length)));
}

/** A JSON report with a large extra member the importer does not read. */
function paddedJson(report: string, bytes: number): string {
  const doc = JSON.parse(report) as Record<string, unknown>;
  const entry = { name: "padding entry", value: 12.5, tags: ["a", "b"] };
  const n = Math.max(0, Math.ceil((bytes - report.length) / JSON.stringify(entry).length));
  return JSON.stringify({ ...doc, benchPadding: Array.from({ length: n }, () => entry) });
}

/** Long runs of spaces: what made the old line patterns backtrack. */
function adversarialText(bytes: number): string {
  const line = `${" ".repeat(MAX_LINE_CHARS - 2)}x\n`;
  return line.repeat(Math.ceil(bytes / line.length));
}

/** Whitespace-heavy JSON, nested to just under the depth limit, with long strings. */
function adversarialJson(bytes: number): string {
  const item = `${"[".repeat(60)}"${" ".repeat(1_000)}"${"]".repeat(60)}`;
  const n = Math.ceil(bytes / (item.length + 1));
  return `{"schemaVersion":1,"result":{"metrics":{},"extra":{"x":[${Array.from({ length: n }, () => item).join(",")}]}}}`;
}

const FORMATS: { format: string; normal: (bytes: number) => string; adversarial: (bytes: number) => string }[] = [
  { format: "wrk", normal: (b) => paddedText(fixture("wrk2/latency.txt"), b), adversarial: adversarialText },
  { format: "hey", normal: (b) => paddedText(fixture("hey/mixed.txt"), b), adversarial: adversarialText },
  { format: "ab", normal: (b) => paddedText(fixture("ab/mixed.txt"), b), adversarial: adversarialText },
  { format: "drill", normal: (b) => paddedText(fixture("drill/stats-verbose.txt"), b), adversarial: adversarialText },
  { format: "k6", normal: (b) => paddedJson(fixture("k6/summary-export.json"), b), adversarial: adversarialJson },
  { format: "vegeta", normal: (b) => paddedJson(fixture("vegeta/mixed.json"), b), adversarial: adversarialJson },
  {
    format: "bifrost",
    normal: (b) => paddedJson(fixture("bifrost/results.json"), b),
    adversarial: adversarialJson,
  },
  {
    format: "native",
    normal: (b) => paddedJson(JSON.stringify({ schemaVersion: 1, result: { metrics: { rps: 100 } } }), b),
    adversarial: adversarialJson,
  },
];

/** Best of ROUNDS, in ms; a refusal (ImportError) counts as a finished read. */
function timeRead(format: string, content: string): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < ROUNDS; r++) {
    collect();
    const t0 = performance.now();
    try {
      readUploadContent({ format, content, provider: format === "bifrost" ? "bifrost" : undefined });
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
    }
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

console.log(`load average before: ${loadAverage()}`);
console.log("format   input        ms/MB at 1 MB   ms/MB at 10 MB   10 MB / 1 MB time (≈10 = linear)");
for (const { format, normal, adversarial } of FORMATS) {
  for (const [kind, make] of [
    ["normal", normal],
    ["adversarial", adversarial],
  ] as const) {
    const small = make(MB);
    const large = make(10 * MB);
    const t1 = timeRead(format, small);
    const t10 = timeRead(format, large);
    console.log(
      `${format.padEnd(8)} ${kind.padEnd(12)} ${fmt(t1 / (small.length / MB), 1).padStart(13)} ${fmt(t10 / (large.length / MB), 1).padStart(16)} ${fmt(t10 / t1, 1).padStart(18)}`,
    );
  }
}

/** Longest gap between timer ticks (1 ms apart) while `work` runs: how long requests would wait. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let done = false;
  let longest = 0;
  const ticking = (async () => {
    let last = performance.now();
    while (!done) {
      await new Promise((r) => setTimeout(r, 1));
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }
  })();
  await new Promise((r) => setTimeout(r, 5));
  await work().catch(() => {});
  done = true;
  await ticking;
  return longest;
}

const hostile = adversarialText(10 * MB - 100);
const slowest = { format: "drill", content: hostile };
const pool = new ParsePool({ size: 1 });
await pool.read({ format: "wrk", content: "warm-up" }).catch(() => {});
const inThread = await longestStall(async () => readUploadContent(slowest));
const onPool = await longestStall(() => pool.read(slowest));
await pool.close();
console.log(
  `request thread's longest stall while a 10 MB adversarial upload is read: in-thread ${fmt(inThread, 1)} ms, on the parse pool ${fmt(onPool, 1)} ms`,
);
console.log(`load average after: ${loadAverage()}`);
