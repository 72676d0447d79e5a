import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApiToken, ensureLocalOrganization, setProjectThresholds } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { createRunsQueue, DEFAULT_REDIS_URL } from "@benchboard/jobs";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisRateLimiter } from "../rate-limit";
import { createCaller } from "../root";
import type { RestDeps } from "./auth";
import { compareHandler } from "./compare";
import type { RestResponse } from "./http";
import { getRunHandler } from "./runs";

// `benchboard compare --github` end to end: the real command, against the real REST handlers on
// a real HTTP server, writing to a fake GitHub API (a small server on 127.0.0.1 answering the
// routes the command uses) through GITHUB_API_URL, as on GitHub Enterprise Server.
const BIN = fileURLToPath(new URL("../../../../apps/cli/bin/benchboard.js", import.meta.url));
const SCREENSHOTS = fileURLToPath(new URL("../../../../docs/screenshots/", import.meta.url));
const GH_TOKEN = `ghs_${randomBytes(12).toString("hex")}`;

let t: TestDatabase;
let queue: Queue;
let redis: Redis;
let apiUrl = "";
let githubUrl = "";
/** A GitHub having a bad minute: 502 on every call, or only on the check run. */
let badGithubUrl = "";
let badGithubFails: "everything" | "check-runs" = "everything";
let token = "";
let headId = "";
let okHeadId = "";
const servers: http.Server[] = [];

interface GitHubCall {
  method: string;
  path: string;
  auth: string | undefined;
  body: Record<string, unknown> | null;
}
const calls: GitHubCall[] = [];
const PERSON = { id: 4242, login: "a-reviewer", type: "User" };
const ACTIONS_BOT = { id: 41898282, login: "github-actions[bot]", type: "Bot" };
const comments = new Map<number, { id: number; body: string; user: typeof ACTIONS_BOT }>();
let nextId = 1000;

function toRest(req: http.IncomingMessage, origin: string) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  return { method: req.method ?? "GET", url: `${origin}${req.url}`, headers, body: null };
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  t = await createTestDatabase();
  queue = createRunsQueue(process.env.REDIS_URL ?? DEFAULT_REDIS_URL, `bbgh-${randomBytes(4).toString("hex")}`);
  const org = await ensureLocalOrganization(t.db);
  const caller = createCaller({ db: t.db, queue, orgId: org.id, userId: null, role: "member" });
  const project = await caller.project.create({ name: "Checkout API" });
  await setProjectThresholds(t.db, org.id, project.id, [{ metric: "latency_p99", op: "<=", value: 50 }]);
  const upload = (branch: string, metrics: Record<string, number>) =>
    caller.upload.run({
      project: project.id,
      scenario: "checkout 500 rps",
      format: "native",
      branch,
      content: JSON.stringify({
        schemaVersion: 1,
        startedAt: "2026-11-26T06:00:00Z",
        endedAt: "2026-11-26T06:01:00Z",
        // The load that ran, which the run's title (and so the check run's name) says.
        scenario: { name: "checkout 500 rps", engine: "http-open", spec: { rate: 500, durationS: 60 } },
        result: { metrics: { requests: 30000, success: 30000, failed: 0, ...metrics } },
      }),
    });
  await upload("main", { rps: 500, latency_p50: 20, latency_p99: 45 });
  headId = (await upload("feature/cache", { rps: 430, latency_p50: 26, latency_p99: 71 })).id;
  // Within its thresholds, against a main with one run: nothing to judge a regression by.
  okHeadId = (await upload("feature/docs", { rps: 495, latency_p50: 20, latency_p99: 46 })).id;
  token = (await createApiToken(t.db, org.id, { name: "ci", scopes: ["runs:read"], createdById: null })).token;

  redis = new Redis(process.env.REDIS_URL ?? DEFAULT_REDIS_URL);
  const deps: RestDeps = {
    db: t.db,
    queue,
    rateLimit: createRedisRateLimiter(redis, `bbgh-${randomBytes(4).toString("hex")}:`),
  };
  const api = http.createServer(async (req, res) => {
    const rest = toRest(req, apiUrl);
    const url = new URL(rest.url);
    let out: RestResponse;
    const run = /^\/api\/v1\/runs\/([^/]+)$/.exec(url.pathname);
    if (url.pathname === "/api/v1/compare") out = await compareHandler(rest, deps);
    else if (run) out = await getRunHandler(rest, deps, decodeURIComponent(run[1]!));
    else out = { status: 404, body: { error: "not found" } };
    res.writeHead(out.status, { "content-type": "application/json", ...out.headers }).end(JSON.stringify(out.body));
  });
  apiUrl = await listen(api);

  // The fake GitHub API, under a GHE-style /api/v3 prefix.
  const github = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      const p = (req.url ?? "").replace(/\?.*$/, "");
      calls.push({ method: req.method ?? "", path: req.url ?? "", auth: req.headers.authorization, body });
      const send = (status: number, data: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(data));
      if (req.headers.authorization !== `token ${GH_TOKEN}`) return send(401, { message: "Bad credentials" });
      // A `ghs_` token is an app's installation token, as in Actions: it may not read /user.
      if (req.method === "GET" && p === "/api/v3/user") {
        return send(403, { message: "Resource not accessible by integration" });
      }
      if (req.method === "GET" && p === "/api/v3/repos/acme/shop/issues/7/comments") {
        return send(200, [{ id: 1, body: "LGTM", user: PERSON }, ...comments.values()]);
      }
      if (req.method === "POST" && p === "/api/v3/repos/acme/shop/issues/7/comments") {
        const c = { id: nextId++, body: String(body?.body), user: ACTIONS_BOT };
        comments.set(c.id, c);
        return send(201, c);
      }
      const patch = /^\/api\/v3\/repos\/acme\/shop\/issues\/comments\/(\d+)$/.exec(p);
      if (req.method === "PATCH" && patch && comments.has(Number(patch[1]))) {
        const c = { id: Number(patch[1]), body: String(body?.body), user: ACTIONS_BOT };
        comments.set(c.id, c);
        return send(200, c);
      }
      if (req.method === "POST" && p === "/api/v3/repos/acme/shop/check-runs") return send(201, { id: nextId++ });
      send(404, { message: "Not Found" });
    });
  });
  githubUrl = `${await listen(github)}/api/v3`;

  const badGithub = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const p = (req.url ?? "").replace(/\?.*$/, "");
      const send = (status: number, data: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(data));
      if (badGithubFails === "everything" || p.endsWith("/check-runs")) {
        return res.writeHead(502, { "content-type": "text/html" }).end("<html><h1>502 Bad Gateway</h1></html>");
      }
      if (req.method === "GET" && p === "/user")
        return send(403, { message: "Resource not accessible by integration" });
      if (req.method === "GET" && p === "/repos/acme/shop/issues/7/comments") return send(200, []);
      if (req.method === "POST" && p === "/repos/acme/shop/issues/7/comments") {
        return send(201, { id: 77, body: "", user: ACTIONS_BOT });
      }
      send(404, { message: "Not Found" });
    });
  });
  badGithubUrl = await listen(badGithub);
});

/** A port nothing listens on: taken from the OS, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

afterAll(async () => {
  for (const s of servers) s.close();
  await queue?.obliterate({ force: true }).catch(() => {});
  await queue?.close();
  redis?.disconnect();
  await t?.drop();
});

function event(fork: boolean) {
  const dir = mkdtempSync(path.join(tmpdir(), "bb-gh-"));
  const file = path.join(dir, "event.json");
  writeFileSync(
    file,
    JSON.stringify({
      pull_request: {
        number: 7,
        head: { sha: "a1b2c3d4e5f6", repo: { full_name: fork ? "stranger/shop" : "acme/shop", fork } },
        base: { repo: { full_name: "acme/shop" } },
      },
      repository: { full_name: "acme/shop" },
    }),
  );
  return { dir, file };
}

function compareGithub(fork = false, head = headId, options: { githubUrl?: string; args?: string[] } = {}) {
  const { dir, file } = event(fork);
  const summary = path.join(dir, "summary.md");
  writeFileSync(summary, "");
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    BENCHBOARD_URL: apiUrl,
    BENCHBOARD_TOKEN: token,
    GITHUB_ACTIONS: "true",
    GITHUB_TOKEN: GH_TOKEN,
    GITHUB_REPOSITORY: "acme/shop",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: file,
    GITHUB_API_URL: options.githubUrl ?? githubUrl,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_WORKFLOW_REF: "acme/shop/.github/workflows/bench.yml@refs/pull/7/merge",
    GITHUB_SERVER_URL: "https://github.example.test",
    GITHUB_RUN_ID: "99",
  };
  return new Promise<{ code: number; stdout: string; stderr: string; summary: string }>((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, "compare", "--baseline", "main", "--head", head, "--github", ...(options.args ?? [])],
      { cwd: dir, env, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") return reject(err);
        resolve({
          code: typeof err?.code === "number" ? err.code : 0,
          stdout,
          stderr,
          summary: readFileSync(summary, "utf8"),
        });
      },
    );
  });
}

describe("compare --github", () => {
  it("creates one comment and a check run, then updates the same comment in place", async () => {
    const first = await compareGithub();
    // The gate fails (p99 71 ms against a 50 ms threshold, and regressions): exit 1.
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain("pull request comment created");
    const posted = calls.filter((c) => c.method === "POST" && c.path.endsWith("/issues/7/comments"));
    expect(posted).toHaveLength(1);
    const body = String(posted[0]!.body?.body);
    expect(body).toMatch(/^<!-- benchboard:compare checkout-api\/checkout 500 rps -->/);
    expect(body).toContain("| Latency p99 | 45 ms | 71 ms | +57.8% |");
    expect(body).toContain("❌ Benchboard");
    // Both runs are named by their titles, as the web app names them.
    expect(body).toMatch(
      /head \[Run #2 · 500 req\/s · 60 s\]\(http:.*\) `feature\/cache` against the last run of `main`, \[Run #1 · 500 req\/s · 60 s\]/,
    );
    expect(body).toContain(`${apiUrl}/runs/${headId}`);
    expect(body).toContain(`/compare?runs=`);
    expect(body).toContain("https://github.example.test/acme/shop/actions/runs/99");
    const checks = calls.filter((c) => c.method === "POST" && c.path.endsWith("/check-runs"));
    expect(checks).toHaveLength(1);
    expect(checks[0]!.body).toMatchObject({
      head_sha: "a1b2c3d4e5f6",
      status: "completed",
      conclusion: "failure",
      name: "Benchboard: checkout 500 rps · 500 req/s · 60 s",
    });
    expect((checks[0]!.body?.output as { title: string }).title).toMatch(/^threshold Latency p99 <= 50 ms failed/);
    const annotations = (checks[0]!.body?.output as { annotations: Record<string, unknown>[] }).annotations;
    expect(annotations).toEqual([
      expect.objectContaining({
        path: ".github/workflows/bench.yml",
        annotation_level: "failure",
        title: "Threshold failed: Latency p99",
        message: "Latency p99 <= 50 ms failed: 71 ms (Run #2 · 500 req/s · 60 s, checkout 500 rps)",
      }),
    ]);
    // Every call carried the token; none of it reached the output.
    expect(calls.every((c) => c.auth === `token ${GH_TOKEN}`)).toBe(true);
    expect(first.stdout + first.stderr + first.summary).not.toContain(GH_TOKEN);
    mkdirSync(SCREENSHOTS, { recursive: true });
    // Kept for the docs with a stable address in place of this run's random port.
    writeFileSync(path.join(SCREENSHOTS, "pr-comment.md"), body.replaceAll(apiUrl, "https://benchboard.example.com"));

    const created = [...comments.keys()];
    const second = await compareGithub();
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("pull request comment updated");
    expect(calls.filter((c) => c.method === "POST" && c.path.endsWith("/issues/7/comments"))).toHaveLength(1);
    const patched = calls.filter((c) => c.method === "PATCH");
    expect(patched).toHaveLength(1);
    expect(patched[0]!.path).toBe(`/api/v3/repos/acme/shop/issues/comments/${created[0]}`);
    expect([...comments.keys()]).toEqual(created);
    expect(calls.filter((c) => c.method === "POST" && c.path.endsWith("/check-runs"))).toHaveLength(2);
  });

  it("a fork's pull request writes the job summary only, and says so", async () => {
    const before = calls.length;
    const fork = await compareGithub(true);
    expect(fork.code).toBe(1);
    expect(calls.length).toBe(before);
    expect(fork.summary).toContain("comes from a fork");
    expect(fork.summary).toContain("| Latency p99 | 45 ms | 71 ms | +57.8% |");
  });

  it("an inconclusive gate is a neutral check run and says so in the comment, exit 3", async () => {
    const before = calls.length;
    const result = await compareGithub(false, okHeadId);
    expect(result.code, result.stderr).toBe(3);
    const check = calls.slice(before).find((c) => c.method === "POST" && c.path.endsWith("/check-runs"));
    expect(check?.body).toMatchObject({
      conclusion: "neutral",
      name: "Benchboard: checkout 500 rps · 500 req/s · 60 s",
    });
    const output = check!.body?.output as { title: string; summary: string };
    expect(output.title).toMatch(/^Inconclusive: the baseline has 1 of the 5 runs of main it needs/);
    const comment = [...comments.values()].at(-1)!.body;
    expect(comment).toContain("## ⚠️ Benchboard: inconclusive, 1 of 5 baseline runs");
    expect(comment).not.toContain("✅ Benchboard");
    expect(result.summary).toContain("**Why the gate could not judge**");
    writeFileSync(
      path.join(SCREENSHOTS, "pr-comment-inconclusive.md"),
      comment.replaceAll(apiUrl, "https://benchboard.example.com"),
    );
  });

  it("no baseline run: the neutral check run and the comment say inconclusive; thresholds judged are written as usual", async () => {
    let before = calls.length;
    const none = await compareGithub(false, okHeadId, { args: ["--baseline", "nightly"] });
    expect(none.code, none.stderr).toBe(3);
    let check = calls.slice(before).find((c) => c.method === "POST" && c.path.endsWith("/check-runs"));
    expect(check?.body).toMatchObject({ conclusion: "neutral", head_sha: "a1b2c3d4e5f6" });
    expect((check!.body?.output as { title: string }).title).toMatch(
      /^Inconclusive: no baseline: no succeeded, valid run of branch "nightly"/,
    );
    let written = calls.slice(before).find((c) => c.method !== "GET" && c.path.includes("/issues/"));
    let comment = String(written?.body?.body);
    expect(comment).toMatch(
      /^<!-- benchboard:compare checkout-api\/checkout 500 rps -->\n## ⚠️ Benchboard: inconclusive, no baseline to compare with\n/,
    );
    expect(comment).toContain("**Why the gate could not judge**");
    expect(comment).not.toContain("✅ Benchboard");
    expect(comment).not.toContain("base run #");
    expect(none.summary).not.toContain("nothing was written to the pull request");
    expect(none.stderr).toMatch(/pull request comment (created|updated)/);

    // --allow-no-baseline: the run's threshold (p99 ≤ 50 ms) judged it, and that verdict is written.
    before = calls.length;
    const judged = await compareGithub(false, okHeadId, { args: ["--baseline", "nightly", "--allow-no-baseline"] });
    expect(judged.code, judged.stderr).toBe(0);
    check = calls.slice(before).find((c) => c.method === "POST" && c.path.endsWith("/check-runs"));
    expect(check?.body).toMatchObject({ conclusion: "success" });
    written = calls.slice(before).find((c) => c.method !== "GET" && c.path.includes("/issues/"));
    comment = String(written?.body?.body);
    expect(comment).toContain("## ✅ Benchboard: run passed its thresholds");
    expect(comment).toContain("- ✅ Latency p99 <= 50 ms (46 ms; project threshold)");

    before = calls.length;
    const failed = await compareGithub(false, headId, { args: ["--baseline", "nightly", "--allow-no-baseline"] });
    expect(failed.code, failed.stderr).toBe(1);
    check = calls.slice(before).find((c) => c.method === "POST" && c.path.endsWith("/check-runs"));
    expect(check?.body).toMatchObject({ conclusion: "failure" });
    const annotations = (check!.body?.output as { annotations: Record<string, unknown>[] }).annotations;
    expect(annotations).toEqual([expect.objectContaining({ title: "Threshold failed: Latency p99" })]);
  });

  // GitHub failing costs nothing but the pull request's copy: the Markdown, the job summary and
  // the exit code are the gate's, and one warning line says what failed.
  function expectOneWarning(result: { stdout: string; stderr: string; summary: string }, warning: RegExp) {
    const warnings = result.stderr.split("\n").filter((line) => line.includes("warning"));
    expect(warnings, result.stderr).toHaveLength(1);
    expect(warnings[0]).toMatch(warning);
    expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
    expect(result.stdout + result.stderr + result.summary).not.toContain(GH_TOKEN);
  }

  it("GitHub answering 502: Markdown, job summary and the gate's exit code, with one warning line", async () => {
    badGithubFails = "everything";
    const failed = await compareGithub(false, headId, { githubUrl: badGithubUrl });
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stdout).toContain("| Latency p99 | 45 ms | 71 ms | +57.8% |");
    expect(failed.summary).toContain("| Latency p99 | 45 ms | 71 ms | +57.8% |");
    expect(failed.summary).toContain("GitHub answered HTTP 502 while reading the pull request's comments");
    expectOneWarning(
      failed,
      /^benchboard: warning: GitHub answered HTTP 502 while reading the pull request's comments; /,
    );
    expect(failed.stderr).toContain("the comparison failed the gate");

    const passed = await compareGithub(false, okHeadId, {
      githubUrl: badGithubUrl,
      args: ["--on-inconclusive", "pass"],
    });
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.summary).toContain("## ⚠️ Benchboard: inconclusive, 1 of 5 baseline runs");
    expectOneWarning(
      passed,
      /^benchboard: warning: GitHub answered HTTP 502 while reading the pull request's comments; /,
    );

    // The comment went in, the check run did not: the warning names the step that failed.
    badGithubFails = "check-runs";
    const partly = await compareGithub(false, headId, { githubUrl: badGithubUrl });
    expect(partly.code, partly.stderr).toBe(1);
    expect(partly.stderr).toContain("pull request comment created (id 77)");
    expectOneWarning(partly, /^benchboard: warning: GitHub answered HTTP 502 while adding the check run; /);
    expect(partly.summary).toContain("| Latency p99 | 45 ms | 71 ms | +57.8% |");
  });

  it("GitHub unreachable (a closed port): the gate's exit code and job summary, one warning line", async () => {
    const port = await closedPort();
    const unreachable = `http://127.0.0.1:${port}/api/v3`;
    const inconclusive = await compareGithub(false, okHeadId, { githubUrl: unreachable });
    expect(inconclusive.code, inconclusive.stderr).toBe(3);
    expect(inconclusive.stdout).toContain("## ⚠️ Benchboard: inconclusive, 1 of 5 baseline runs");
    expect(inconclusive.summary).toContain("## ⚠️ Benchboard: inconclusive, 1 of 5 baseline runs");
    expectOneWarning(
      inconclusive,
      new RegExp(
        `^benchboard: warning: could not reach GitHub at http://127\\.0\\.0\\.1:${port}/api/v3 \\(ECONNREFUSED\\) while reading the pull request's comments; `,
      ),
    );
    const failed = await compareGithub(false, headId, { githubUrl: unreachable });
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.summary).toContain("| Latency p99 | 45 ms | 71 ms | +57.8% |");
    expectOneWarning(failed, /^benchboard: warning: could not reach GitHub at .* \(ECONNREFUSED\)/);
  });
});
