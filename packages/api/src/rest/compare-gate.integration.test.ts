import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApiToken, createProject } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisRateLimiter } from "../rate-limit";
import type { RestDeps } from "./auth";
import { compareHandler } from "./compare";
import type { RestResponse } from "./http";
import { getRunHandler, uploadRunHandler } from "./runs";
import { ZRestCompareResult } from "./schemas";

// The gate's three outcomes end to end: the real `benchboard` command uploads real hey outputs
// (an unchanged server five times on main, then a pull request that changes nothing and one that
// makes the server 2× slower) to the real REST handlers on a real HTTP server, and compares.
const BIN = fileURLToPath(new URL("../../../../apps/cli/bin/benchboard.js", import.meta.url));
const HEY = fileURLToPath(new URL("../../../core/src/fixtures/gate-hey/", import.meta.url));
const SCREENSHOTS = fileURLToPath(new URL("../../../../docs/screenshots/", import.meta.url));
const CONFIG = '{"instanceType":"ci-runner","vcpu":2}';

let t: TestDatabase;
let queue: Queue;
let redis: Redis;
let server: http.Server;
let apiUrl = "";
let token = "";

beforeAll(async () => {
  t = await createTestDatabase();
  const prefix = `bbgate-${randomBytes(4).toString("hex")}`;
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, prefix);
  redis = new Redis(process.env.REDIS_URL ?? DEFAULT_REDIS_URL);
  const deps: RestDeps = { db: t.db, queue, rateLimit: createRedisRateLimiter(redis, `${prefix}:`) };
  const org = await t.db.organization.create({ data: { name: "Acme", slug: "acme" } });
  await createProject(t.db, org.id, { name: "Checkout API" });
  token = (await createApiToken(t.db, org.id, { name: "ci", scopes: ["runs:read", "runs:write"], createdById: null }))
    .token;
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const url = `${apiUrl}${req.url}`;
    const body = chunks.length ? new Blob([Buffer.concat(chunks)]).stream() : null;
    const rest = { method: req.method ?? "GET", url, headers, body };
    const { pathname } = new URL(url);
    const run = /^\/api\/v1\/runs\/([^/]+)$/.exec(pathname);
    let out: RestResponse;
    if (pathname === "/api/v1/runs" && req.method === "POST") out = await uploadRunHandler(rest, deps);
    else if (pathname === "/api/v1/compare") out = await compareHandler(rest, deps);
    else if (run) out = await getRunHandler(rest, deps, decodeURIComponent(run[1]!));
    else out = { status: 404, body: { error: { message: "not found" } } };
    res.writeHead(out.status, { "content-type": "application/json", ...out.headers }).end(JSON.stringify(out.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.close();
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  redis?.disconnect();
  await t?.drop();
});

function benchboard(cwd: string, args: string[]) {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: cwd,
    BENCHBOARD_URL: apiUrl,
    BENCHBOARD_TOKEN: token,
    BENCHBOARD_PROJECT: "checkout-api",
  };
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== "number") return reject(err);
      resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
    });
  });
}

let uploads = 0;
/** Upload a hey output from `cwd` as CI would: the run it stores is what `compare` judges next. */
async function upload(cwd: string, fixture: string, branch: string, config = CONFIG) {
  const out = await benchboard(cwd, [
    "upload",
    `${HEY}${fixture}.txt`,
    "--scenario",
    "checkout",
    "--branch",
    branch,
    "--config-json",
    config,
    "--idempotency-key",
    `gate-${uploads++}`,
  ]);
  expect(out.code, out.stderr).toBe(0);
}

const workdir = () => mkdtempSync(path.join(tmpdir(), "bb-gate-"));

describe("benchboard compare: pass, fail and inconclusive on real hey runs", () => {
  it("two main runs: a 2× slower pull request is inconclusive (exit 3), not passed", async () => {
    const main = workdir();
    // Another instance config's run on main is no baseline for this one.
    await upload(main, "main-3", "main", '{"instanceType":"ci-runner","vcpu":4}');
    await upload(main, "main-1", "main");
    await upload(main, "main-2", "main");
    const pr = workdir();
    await upload(pr, "pr-2x-slower", "slow-early");

    const gate = await benchboard(pr, ["compare", "--baseline", "main"]);
    expect(gate.code, gate.stderr).toBe(3);
    expect(gate.stdout).toMatch(/^## ⚠️ Benchboard: inconclusive, 2 of 5 baseline runs\n/);
    expect(gate.stdout).not.toContain("✅");
    expect(gate.stdout).toContain("**Why the gate could not judge**");
    expect(gate.stdout).toContain("| Latency p99 | 21.15 ms | 80 ms | +278.3% | — | ⚠️ can't tell (noise unknown) |");
    expect(gate.stderr).toContain("the gate could not judge (see the summary above)");
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(
      path.join(SCREENSHOTS, "gate-inconclusive.md"),
      gate.stdout.replaceAll(apiUrl, "https://benchboard.example.com"),
    );

    const json = await benchboard(pr, ["compare", "--baseline", "main", "--json"]);
    expect(json.code).toBe(3);
    const body = ZRestCompareResult.parse(JSON.parse(json.stdout));
    expect(body).toMatchObject({ outcome: "inconclusive", passed: false, reasons: [], regressed: [] });
    expect(body.baseline.runs).toHaveLength(2);
    expect(body.metrics.find((m) => m.key === "latency_p99")).toMatchObject({ verdict: "inconclusive", noise: null });

    // Opting out passes the job, and still says what happened.
    const optOut = await benchboard(pr, ["compare", "--baseline", "main", "--on-inconclusive", "pass"]);
    expect(optOut.code).toBe(0);
    expect(optOut.stdout).toMatch(/^## ⚠️ Benchboard: inconclusive/);
    expect(optOut.stderr).toContain("passing as --on-inconclusive pass asks");
  });

  it("five main runs: the no-op pull request passes (exit 0), the 2× slower one fails (exit 1)", async () => {
    const main = workdir();
    for (const run of ["main-3", "main-4", "main-5"]) await upload(main, run, "main");

    const noop = workdir();
    await upload(noop, "pr-unchanged", "noop");
    const pass = await benchboard(noop, ["compare", "--baseline", "main"]);
    expect(pass.code, pass.stdout + pass.stderr).toBe(0);
    expect(pass.stdout).toMatch(
      /^## ✅ Benchboard: no regression beyond ±5% and the baseline's noise \(5 runs of main\)\n/,
    );
    // p99 is +136 % over main's median, and within main's own noise: not a regression.
    expect(pass.stdout).toMatch(
      /\| Latency p99 \| 22\.3 ms \| 52\.6 ms \| \+135\.9% \| ≤ [\d.]+ ms \| within noise \|/,
    );

    // The same no-op run against the latest main run alone, by the tolerance: a false alarm.
    const single = await benchboard(noop, ["compare", "--baseline", "main", "--history", "1", "--gate", "tolerance"]);
    expect(single.code).toBe(1);

    const slow = workdir();
    await upload(slow, "pr-2x-slower", "slow");
    const fail = await benchboard(slow, ["compare", "--baseline", "main"]);
    expect(fail.code).toBe(1);
    expect(fail.stdout).toMatch(/^## ❌ Benchboard: \d+ regressions\n/);
    expect(fail.stdout).toMatch(/\| Latency p50 \| 6\.1 ms \| 11\.5 ms \| \+88\.5% \| ≤ 6\.1 ms \| ❌ regressed \|/);
    expect(fail.stdout).toContain("**Why the gate failed**");
    const body = ZRestCompareResult.parse(
      JSON.parse((await benchboard(slow, ["compare", "--baseline", "main", "--json"])).stdout),
    );
    expect(body).toMatchObject({ outcome: "fail", passed: false });
    expect(body.regressed).toEqual(
      expect.arrayContaining(["rps", "latency_mean", "latency_p50", "latency_p90", "latency_p95", "latency_p99"]),
    );
  });

  it("no run of the baseline branch: inconclusive, or judged by thresholds alone when asked", async () => {
    const pr = workdir();
    await upload(pr, "pr-unchanged", "first");
    const none = await benchboard(pr, ["compare", "--baseline", "release"]);
    expect(none.code).toBe(3);
    expect(none.stdout).toMatch(/^## ⚠️ Benchboard: inconclusive, no baseline to compare with\n/);
    const allowed = await benchboard(pr, ["compare", "--baseline", "release", "--allow-no-baseline"]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^## ✅ Benchboard: run passed its thresholds\n/);
  });
});
