import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApiToken, createProject, setProjectThresholds } from "@benchboard/db";
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
  // A project whose runs carry a threshold: p99 at most 60 ms (the unchanged server's 52.6 ms passes).
  const launch = await createProject(t.db, org.id, { name: "Launch API" });
  await setProjectThresholds(t.db, org.id, launch.id, [{ metric: "latency_p99", op: "<=", value: 60 }]);
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

function benchboard(cwd: string, args: string[], project = "checkout-api") {
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: cwd,
    BENCHBOARD_URL: apiUrl,
    BENCHBOARD_TOKEN: token,
    BENCHBOARD_PROJECT: project,
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
async function upload(
  cwd: string,
  fixture: string,
  branch: string,
  config = CONFIG,
  options: { project?: string; file?: string; scenario?: string } = {},
) {
  const out = await benchboard(
    cwd,
    [
      "upload",
      options.file ?? `${HEY}${fixture}.txt`,
      "--scenario",
      options.scenario ?? "checkout",
      "--branch",
      branch,
      "--config-json",
      config,
      "--idempotency-key",
      `gate-${uploads++}`,
      "--no-gate",
    ],
    options.project,
  );
  expect(out.code, out.stderr).toBe(0);
  return out;
}

/** A run in Benchboard's own format with exactly these metrics, written to `cwd`. */
function nativeRun(cwd: string, name: string, metrics: Record<string, number>): string {
  const file = path.join(cwd, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      schemaVersion: 1,
      startedAt: "2026-11-26T06:00:00Z",
      endedAt: "2026-11-26T06:00:20Z",
      result: { metrics: { requests: 20_000, success: 20_000, failed: 0, ...metrics } },
    }),
  );
  return file;
}

const workdir = () => mkdtempSync(path.join(tmpdir(), "bb-gate-"));

describe("benchboard compare: pass, fail and inconclusive on real hey runs", () => {
  it("two main runs: a 2× slower pull request is inconclusive (exit 3), not passed", async () => {
    const main = workdir();
    // Another instance config's run on main is no baseline for this one.
    const stored = await upload(main, "main-3", "main", '{"instanceType":"ci-runner","vcpu":4}');
    // Named as the web app titles it: the config it ran on, then where it came from.
    expect(stored.stdout).toMatch(/^Stored Run #1 · ci-runner \(import:hey, scenario checkout\) in Checkout API: http/);
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

    // The statistical gate needs 3 baseline runs to test anything: with 2 it says it could not
    // judge the 2× slower run, whether 5 runs were asked for or only the 2 there are.
    for (const history of [[], ["--history", "2"]]) {
      const args = ["compare", "--baseline", "main", "--gate", "statistical", ...history];
      const statistical = await benchboard(pr, args);
      expect(statistical.code, statistical.stdout + statistical.stderr).toBe(3);
      expect(statistical.stdout).toMatch(/^## ⚠️ Benchboard: inconclusive, /);
      expect(statistical.stdout).not.toContain("✅");
      expect(statistical.stdout).toContain(
        "| Latency p50 | 6.1 ms | 11.5 ms | +88.5% | — | ⚠️ can't tell (noise unknown) |",
      );
      const judged = ZRestCompareResult.parse(JSON.parse((await benchboard(pr, [...args, "--json"])).stdout));
      expect(judged).toMatchObject({ outcome: "inconclusive", passed: false, gate: "statistical", regressed: [] });
      expect(judged.metrics.every((m) => m.verdict === "inconclusive" && m.noise === null)).toBe(true);
    }
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

    // This project has no thresholds: with no baseline either, nothing judged the run.
    const nothing = await benchboard(pr, ["compare", "--baseline", "release", "--allow-no-baseline"]);
    expect(nothing.code, nothing.stdout + nothing.stderr).toBe(3);
    expect(nothing.stdout).toMatch(/^## ⚠️ Benchboard: inconclusive, no baseline and no thresholds to judge by\n/);
    expect(nothing.stdout).not.toContain("✅");
    expect(nothing.stdout).toContain("**Why the gate could not judge**");
    const nothingJson = JSON.parse(
      (await benchboard(pr, ["compare", "--baseline", "release", "--allow-no-baseline", "--json"])).stdout,
    ) as { outcome: string; passed: boolean; inconclusiveReasons: string[] };
    expect(nothingJson).toMatchObject({ outcome: "inconclusive", passed: false });
    expect(nothingJson.inconclusiveReasons.join("\n")).toMatch(/no thresholds/);
    const optOut = await benchboard(pr, [
      "compare",
      "--baseline",
      "release",
      "--allow-no-baseline",
      "--on-inconclusive",
      "pass",
    ]);
    expect(optOut.code).toBe(0);
    expect(optOut.stdout).toMatch(/^## ⚠️ Benchboard: inconclusive, no baseline and no thresholds/);

    // Where the run has thresholds, they judge it: pass, or fail.
    const within = workdir();
    await upload(within, "pr-unchanged", "first", CONFIG, { project: "launch-api" });
    const allowed = await benchboard(within, ["compare", "--baseline", "release", "--allow-no-baseline"], "launch-api");
    expect(allowed.code, allowed.stdout + allowed.stderr).toBe(0);
    expect(allowed.stdout).toMatch(/^## ✅ Benchboard: run passed its thresholds\n/);
    expect(allowed.stdout).toContain("- ✅ Latency p99 <= 60 ms (52.6 ms; project threshold)");
    const beyond = workdir();
    await upload(beyond, "pr-2x-slower", "first", CONFIG, { project: "launch-api" });
    const failed = await benchboard(beyond, ["compare", "--baseline", "release", "--allow-no-baseline"], "launch-api");
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^## ❌ Benchboard: 1 failed threshold\n/);
  });

  it("a baseline of 1 or 2 runs asked for: the tolerance alone passes, and the header says the noise was not estimated", async () => {
    const dir = workdir();
    const metrics = (rps: number, p50: number, p99: number) => ({
      rps,
      latency_mean: p50 * 1.2,
      latency_p50: p50,
      latency_p99: p99,
    });
    const few = { scenario: "search", file: "" };
    await upload(dir, "", "main", CONFIG, { ...few, file: nativeRun(dir, "main-a", metrics(1000, 6.1, 21)) });
    await upload(dir, "", "main", CONFIG, { ...few, file: nativeRun(dir, "main-b", metrics(1012, 6.0, 21.6)) });
    const head = workdir();
    await upload(head, "", "tidy", CONFIG, { ...few, file: nativeRun(head, "pr", metrics(1005, 6.05, 21.3)) });

    for (const runs of [1, 2]) {
      const gate = await benchboard(head, ["compare", "--baseline", "main", "--history", String(runs)]);
      expect(gate.code, gate.stdout + gate.stderr).toBe(0);
      const header = gate.stdout.split("\n")[0];
      expect(header).toBe(
        `## ✅ Benchboard: no regression beyond ±5% (${runs} ${runs === 1 ? "run" : "runs"} of main; the baseline's noise not estimated from ${runs === 1 ? "1 run" : "2 runs"})`,
      );
      expect(header).not.toContain("and the baseline's noise");
    }

    // Beyond the tolerance with 2 runs, the noise gate cannot judge: inconclusive, never ✅.
    const slow = workdir();
    await upload(slow, "", "slow", CONFIG, { ...few, file: nativeRun(slow, "pr", metrics(990, 11.5, 40)) });
    const unknown = await benchboard(slow, ["compare", "--baseline", "main", "--history", "2"]);
    expect(unknown.code).toBe(3);
    expect(unknown.stdout).toMatch(/^## ⚠️ Benchboard: inconclusive, /);
    expect(unknown.stdout).not.toContain("✅");
  });

  it("a metric one side did not measure: inconclusive, naming the metric", async () => {
    const main = workdir();
    const p99s = [20.1, 21.4, 19.8, 20.6, 22.0];
    for (const [i, p99] of p99s.entries()) {
      const file = nativeRun(main, `main-${i}`, { rps: 1000 + i * 4, latency_p50: 6 + i * 0.05, latency_p99: p99 });
      await upload(main, "", "main", CONFIG, { scenario: "catalog", file });
    }
    const head = workdir();
    // Head reported no p99 (its tool was asked for none): whether p99 regressed is unknown.
    await upload(head, "", "no-p99", CONFIG, {
      scenario: "catalog",
      file: nativeRun(head, "pr", { rps: 1003, latency_p50: 6.1 }),
    });
    const gate = await benchboard(head, ["compare", "--baseline", "main"]);
    expect(gate.code, gate.stdout + gate.stderr).toBe(3);
    expect(gate.stdout).toMatch(/^## ⚠️ Benchboard: inconclusive, Latency p99: head did not measure it\n/);
    expect(gate.stdout).toContain("| Latency p99 | 20.6 ms | — | — | — | ⚠️ not comparable: head did not measure it |");
    expect(gate.stdout).not.toContain("✅");
    const body = ZRestCompareResult.parse(
      JSON.parse((await benchboard(head, ["compare", "--baseline", "main", "--json"])).stdout),
    );
    expect(body).toMatchObject({ outcome: "inconclusive", passed: false, reasons: [] });
    expect(body.inconclusiveReasons).toEqual(["Latency p99: head did not measure it"]);
    expect(body.metrics.find((m) => m.key === "latency_p99")).toMatchObject({ verdict: "incomparable", head: null });
  });
});
