// Records the hey outputs the regression-gate tests read: six runs of an unchanged server (the
// baseline branch's history and a pull request that changes nothing) and one run of the same
// server doing twice the work per request (a pull request that makes it 2× slower).
//
//   HEY=.data/tools/hey pnpm exec tsx bench/gate-fixtures.ts [outDir]
//
// The server hashes a buffer per request on its one thread, so its latency is its queue at the
// given concurrency: what moves between unchanged runs is the machine, as in CI.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./lib";

const HEY = process.env.HEY ?? path.join(ROOT, ".data/tools/hey");
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, "packages/core/src/fixtures/gate-hey"));
const DURATION = process.env.BENCH_DURATION_S ?? "8";
const CONNECTIONS = process.env.BENCH_CONNECTIONS ?? "8";
/** Rounds of hashing per request: the unchanged server's work; the slow one does twice as many. */
const WORK = Number(process.env.BENCH_WORK ?? 60);

let rounds = WORK;
const block = Buffer.alloc(16 * 1024, 7);
const server = http.createServer((_req, res) => {
  let digest = block;
  for (let i = 0; i < rounds; i++) digest = createHash("sha256").update(block).update(digest).digest();
  res.end(digest.toString("hex").slice(0, 16));
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

function hey(): Promise<string> {
  // hey runs in its own process; this one keeps serving while it waits.
  return new Promise((resolve, reject) => {
    execFile(HEY, ["-z", `${DURATION}s`, "-c", CONNECTIONS, url], { timeout: 120_000 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}

mkdirSync(OUT, { recursive: true });
console.log(`${HEY} against ${url}, ${DURATION} s × ${CONNECTIONS} connections; load ${os.loadavg()[0]!.toFixed(2)}`);
// Interleaved, so that a drift of the machine's load over the recording falls on both sides.
const plan: { file: string; work: number }[] = [
  { file: "main-1.txt", work: WORK },
  { file: "main-2.txt", work: WORK },
  { file: "pr-unchanged.txt", work: WORK },
  { file: "main-3.txt", work: WORK },
  { file: "main-4.txt", work: WORK },
  { file: "pr-2x-slower.txt", work: WORK * 2 },
  { file: "main-5.txt", work: WORK },
];
for (const step of plan) {
  rounds = step.work;
  const text = await hey();
  writeFileSync(path.join(OUT, step.file), text);
  const p95 = /95%+ in ([\d.]+) secs/.exec(text)?.[1];
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text)?.[1];
  console.log(`${step.file}: ${rps} req/s, p95 ${p95} s (load ${os.loadavg()[0]!.toFixed(2)})`);
}
server.close();
