// How long the request thread stalls while an agent's checkpoint body is read: in-thread (as
// the checkpoint and result routes did: JSON.parse, the schema, histograms re-encoded) versus on
// the parse pool (as they do now, leaving the thread the copy of the read result back). Bodies:
// the largest a run can make (100 series of 3,900 one-second points, ~6.4 MB) and the audit's
// 100 series of 20,000 points (~9.8 MB with small numbers), now refused for its length.
//
//   node --expose-gc --import tsx bench/agent-body.ts
//
// Printed per body: the median and largest of BENCH_ROUNDS (5) longest stalls each way.
import { performance } from "node:perf_hooks";
import { MAX_AGENT_SERIES_POINTS, readAgentBody } from "../packages/core/src/importers/agent-body";
import { ParsePool } from "../packages/core/src/importers/parse-pool";
import { envNumber, fmt, loadAverage, median } from "./lib";

const ROUNDS = envNumber("BENCH_ROUNDS", 5);
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

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

function checkpointText(series: number, points: number, sample: (i: number) => number): string {
  const start = Date.now();
  const values = Array.from({ length: points }, (_, i) => sample(i));
  return JSON.stringify({
    agentId: "bench",
    result: {
      metrics: { requests: points },
      series: Object.fromEntries(
        Array.from({ length: series }, (_, k) => [`m${k}`, { start, intervalMs: 1000, values }]),
      ),
      startedAt: start,
      endedAt: start + points * 1000,
    },
  });
}

const bodies = [
  {
    name: `largest a run makes: 100 × ${MAX_AGENT_SERIES_POINTS.toLocaleString("en-US")} points`,
    text: checkpointText(100, MAX_AGENT_SERIES_POINTS, (i) => ((i * 7_919) % 100_000) / 7),
  },
  { name: "audit's body: 100 × 20,000 points (refused now)", text: checkpointText(100, 20_000, (i) => i % 1000) },
];

console.log(`load average before: ${loadAverage()}`);
const pool = new ParsePool({ size: 1 });
await pool.agentBody("checkpoint", "{}").catch(() => {});
// What the ticker sees with nothing to do: the machine's own noise, to read the others against.
const idle: number[] = [];
for (let round = 0; round < ROUNDS; round++)
  idle.push(await longestStall(() => new Promise((r) => setTimeout(r, 300))));
console.log(
  `nothing read (300 ms): longest gap, median / max of ${ROUNDS}: ${fmt(median(idle), 1)} / ${fmt(Math.max(...idle), 1)} ms`,
);
for (const body of bodies) {
  const inThread: number[] = [];
  const onPool: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    collect();
    inThread.push(await longestStall(async () => readAgentBody("checkpoint", body.text)));
    collect();
    onPool.push(await longestStall(() => pool.agentBody("checkpoint", body.text)));
  }
  const mb = (body.text.length / 1_000_000).toFixed(1);
  console.log(
    `${body.name} (${mb} MB): request thread's longest stall, median / max of ${ROUNDS}: in-thread ${fmt(median(inThread), 1)} / ${fmt(Math.max(...inThread), 1)} ms, on the parse pool ${fmt(median(onPool), 1)} / ${fmt(Math.max(...onPool), 1)} ms`,
  );
}
await pool.close();
console.log(`load average after: ${loadAverage()}`);
