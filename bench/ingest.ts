// Upload bursts: BENCH_UPLOADS uploads (k6 summaries and wrk text, alternating) in flight at once
// from BENCH_ORGS organizations through POST /api/v1/runs — the same handler the web app serves,
// called in-process with real requests, on a fresh test database, real Redis rate limiting and
// the process's parse pool. A refused upload (503) is retried with its Idempotency-Key after
// Retry-After, as the CLI does. Prints uploads/s and the time per upload (first attempt until
// stored) at p50/p99, the refusals, and checks that every upload was stored exactly once.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { uploadRunHandler } from "../packages/api/src/rest/runs";
import { createUploadingOrg, startTestServices } from "../packages/api/src/testing/services";
import { envNumber, fmt, loadAverage, ROOT } from "./lib";

const UPLOADS = envNumber("BENCH_UPLOADS", 200);
const ORGS = envNumber("BENCH_ORGS", 4);
const ROUNDS = envNumber("BENCH_ROUNDS", 3);
const fixture = (path: string) => readFileSync(`${ROOT}/packages/core/src/importers/fixtures/${path}`, "utf8");
const K6 = fixture("k6/summary-export.json");
const WRK = fixture("wrk/latency.txt");

const prefix = `bbingest-${process.pid}`;
const services = await startTestServices(prefix);
const { t } = services;
console.log(`load average before: ${loadAverage()}`);
try {
  const deps = services.restDeps({ requestsPerWindow: 1_000_000 });
  // Fresh organizations each round: an organization may upload 120 runs a minute.
  const organizations = async (round: number) => {
    const orgs = [];
    for (let i = 0; i < ORGS; i++) orgs.push(await createUploadingOrg(t.db, `Org ${round}.${i}`, `org-${round}-${i}`));
    return orgs;
  };
  type Org = Awaited<ReturnType<typeof organizations>>[number];
  const upload = (org: Org, i: number, key: string) => {
    const format = i % 2 === 0 ? "k6" : "wrk";
    const url = `http://bench.test/api/v1/runs?project=${org.project}&format=${format}`;
    const headers = { authorization: `Bearer ${org.token}`, "content-type": "text/plain", "idempotency-key": key };
    return uploadRunHandler(new Request(url, { method: "POST", headers, body: i % 2 === 0 ? K6 : WRK }), deps);
  };

  console.log(`${UPLOADS} uploads in flight at once from ${ORGS} organizations (k6 and wrk alternating)\n`);
  console.log(
    `${"round".padEnd(6)} ${"uploads/s".padStart(10)} ${"p50 ms".padStart(9)} ${"p99 ms".padStart(9)} ${"503s".padStart(6)} other`,
  );
  for (let round = 1; round <= ROUNDS; round++) {
    const orgs = await organizations(round);
    const times: number[] = [];
    const statuses = new Map<number, number>();
    let refusals = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: UPLOADS }, async (_, i) => {
        const org = orgs[i % ORGS]!;
        const began = performance.now();
        for (;;) {
          const res = await upload(org, i, `r${round}-${i}`);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status !== 503) break;
          refusals++;
          await new Promise((r) => setTimeout(r, Number(res.headers?.["retry-after"] ?? 1) * 1000));
        }
        times.push(performance.now() - began);
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? Number.NaN;
    const other = [...statuses].filter(([s]) => s !== 201 && s !== 503).map(([s, n]) => `${n}× ${s}`);
    console.log(
      `${String(round).padEnd(6)} ${fmt(UPLOADS / seconds, 1).padStart(10)} ${fmt(at(0.5), 0).padStart(9)} ${fmt(at(0.99), 0).padStart(9)} ${String(refusals).padStart(6)} ${other.join(", ") || "none"}`,
    );
    const stored = await t.db.run.count({ where: { idempotencyKey: { startsWith: `r${round}-` } } });
    if (stored !== UPLOADS) throw new Error(`round ${round}: ${stored} runs stored for ${UPLOADS} uploads`);
  }
  console.log(`\nevery upload stored exactly once; load average after: ${loadAverage()}`);
} finally {
  await services.close();
  const { parsePool } = await import("../packages/core/src/importers/parse-pool");
  await parsePool().close();
}
// The handler's own shared clients (the rate limiter's Redis connection, the database pool) live
// as long as the process, as they do in the web app: end it once everything above is cleaned up.
process.exit(process.exitCode ?? 0);
