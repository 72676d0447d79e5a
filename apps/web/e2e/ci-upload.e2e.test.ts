import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { formatMetric, mean, ZScenarioSpec } from "@benchboard/core";
import { importRun } from "@benchboard/core/importers";
import {
  createApiToken,
  createProject,
  createScenario,
  createTarget,
  ensureLocalOrganization,
  revokeApiToken,
} from "@benchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// CI's path end to end: the real `benchboard` command against the real app and worker, with API
// tokens made on the stack's database.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = path.join(repoRoot, "apps/cli/bin/benchboard.js");
const FIXTURES = path.join(repoRoot, "packages/core/src/importers/fixtures");

let stack: Stack;
let target: http.Server;
let targetUrl = "";
let orgId = "";
let projectSlug = "";
let token = "";
let rivalToken = "";
const work = mkdtempSync(path.join(tmpdir(), "bb-ci-e2e-"));
const stepSummary = path.join(work, "step-summary.md");

beforeAll(async () => {
  target = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 2));
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await startStack();
  const db = stack.db.db;
  orgId = (await ensureLocalOrganization(db)).id;
  projectSlug = (await createProject(db, orgId, { name: "Checkout API" })).slug;
  token = (
    await createApiToken(db, orgId, {
      name: "GitHub Actions",
      scopes: ["runs:read", "runs:write", "runs:launch"],
      createdById: stack.user.id,
    })
  ).token;
  const rival = await db.organization.create({ data: { name: "Rival", slug: "rival" } });
  rivalToken = (
    await createApiToken(db, rival.id, { name: "theirs", scopes: ["runs:read", "runs:write"], createdById: null })
  ).token;
});

afterAll(async () => {
  await stack?.close();
  target?.close();
});

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real command, as a CI step runs it: configuration from the environment only. */
function benchboard(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(childEnv)) {
    if (key.startsWith("BENCHBOARD_") || key.startsWith("GITHUB_")) delete childEnv[key];
  }
  Object.assign(childEnv, {
    BENCHBOARD_URL: stack.baseUrl,
    BENCHBOARD_TOKEN: token,
    BENCHBOARD_STATE_FILE: path.join(work, "last-run.json"),
    GITHUB_STEP_SUMMARY: stepSummary,
    ...env,
  });
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: FIXTURES, timeout: 90_000, env: childEnv },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") reject(err);
        else resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
      },
    );
  });
}

function lastRunId(): string {
  return (JSON.parse(readFileSync(path.join(work, "last-run.json"), "utf8")) as { id: string }).id;
}

async function api(pathname: string, bearer = token) {
  const res = await fetch(`${stack.baseUrl}/api/v1${pathname}`, { headers: { authorization: `Bearer ${bearer}` } });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown> & { result: { metrics: Record<string, number> } },
  };
}

function nativeFile(name: string, metrics: Record<string, number>): string {
  const file = path.join(work, name);
  writeFileSync(file, JSON.stringify({ schemaVersion: 1, tool: { name: "custom" }, result: { metrics } }));
  return file;
}

function expectNoSecret(result: CliResult, secret = token) {
  expect(result.stdout).not.toContain(secret);
  expect(result.stderr).not.toContain(secret);
}

describe("CI uploads through the benchboard command", () => {
  it("uploads a tool's output with a token; the run is visible through the API; a retry stores nothing new", async () => {
    const args = [
      "upload",
      "wrk/latency.txt",
      "--format",
      "wrk",
      "--project",
      projectSlug,
      "--scenario",
      "static files",
    ];
    const env = { GITHUB_ACTIONS: "true", GITHUB_REF_NAME: "main", GITHUB_SHA: "0123456789abcdef0123" };
    const result = await benchboard([...args, "--tag", "ci"], env);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const id = lastRunId();
    expect(result.stdout).toBe(
      `Stored Run #1 · static files (import:wrk) in Checkout API: ${stack.baseUrl}/runs/${id}\n`,
    );
    expectNoSecret(result);

    const { status, body } = await api(`/runs/${id}`);
    expect(status).toBe(200);
    const expected = importRun("wrk", readFileSync(path.join(FIXTURES, "wrk/latency.txt"), "utf8"));
    expect(body).toMatchObject({
      id,
      number: 1,
      status: "succeeded",
      source: "import:wrk",
      scenario: { name: "static files" },
      git: { branch: "main", commit: "0123456789abcdef0123" },
      tags: ["ci"],
      project: { slug: projectSlug },
    });
    expect(body.result.metrics).toEqual(expected.result.metrics);

    const again = await benchboard([...args, "--tag", "ci"], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Already stored Run #1 · static files (import:wrk)`);
    expect(await stack.db.db.run.count()).toBe(1);
  });

  it("compare exits 3 when it cannot judge, 1 on a regression and 0 otherwise, with a Markdown summary", async () => {
    const upload = async (file: string, branch: string) => {
      const result = await benchboard([
        "upload",
        file,
        "--project",
        projectSlug,
        "--scenario",
        "checkout",
        "--branch",
        branch,
      ]);
      expect(result.code).toBe(0);
      return lastRunId();
    };
    await upload(nativeFile("main.json", { rps: 1000, latency_p50: 4, latency_p99: 10, requests: 60_000 }), "main");
    const slower = await upload(
      nativeFile("slower.json", { rps: 800, latency_p50: 4.2, latency_p99: 10.1 }),
      "feature/pool",
    );

    // Head is the run just uploaded from this checkout. One run of main shows nothing of its
    // noise: the default gate (tolerance and noise, against main's last 5 runs) cannot judge.
    const unjudged = await benchboard(["compare", "--baseline", "main"]);
    expect(unjudged.code).toBe(3);
    expect(unjudged.stdout.split("\n")[0]).toBe("## ⚠️ Benchboard: inconclusive, 1 of 5 baseline runs");
    expect(unjudged.stdout).not.toContain("✅");

    // Judged by the tolerance alone against the latest run, when asked.
    const byTolerance = ["--gate", "tolerance", "--history", "1"];
    const regressed = await benchboard(["compare", "--baseline", "main", ...byTolerance]);
    expect(regressed.code).toBe(1);
    expect(regressed.stdout.split("\n")[0]).toBe("## ❌ Benchboard: 1 regression");
    expect(regressed.stdout).toContain("| Achieved rate | 1,000 req/s | 800 req/s | −20.0% | — | ❌ regressed |");
    expect(regressed.stdout).toContain(
      "- Achieved rate regressed −20.0% against the last 1 run of main (1,000 req/s → 800 req/s): beyond the 5% tolerance",
    );
    expect(regressed.stderr).toBe("benchboard: the comparison failed the gate (see the summary above)\n");
    expect(readFileSync(stepSummary, "utf8")).toContain(regressed.stdout);
    expectNoSecret(regressed);

    const tolerated = await benchboard([
      "compare",
      "--baseline",
      "main",
      "--head",
      slower,
      "--tolerance",
      "25",
      ...byTolerance,
    ]);
    expect(tolerated.code).toBe(0);
    expect(tolerated.stdout.split("\n")[0]).toBe("## ✅ Benchboard: no regression beyond ±25% (1 run of main)");

    await upload(nativeFile("same.json", { rps: 985, latency_p50: 3.9, latency_p99: 10.2 }), "feature/pool");
    const same = await benchboard(["compare", "--baseline", "main", ...byTolerance]);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain("| Achieved rate | 1,000 req/s | 985 req/s | −1.5% | — | unchanged |");

    const noBaseline = await benchboard(["compare", "--baseline", "release"]);
    expect(noBaseline.code).toBe(3);
    expect(noBaseline.stdout.split("\n")[0]).toBe("## ⚠️ Benchboard: inconclusive, no baseline to compare with");
    expect(noBaseline.stdout).toContain('no succeeded, valid run of branch "release" for scenario "checkout"');
    // This project has no thresholds: with no baseline either, nothing judged the run.
    const thresholdsOnly = await benchboard(["compare", "--baseline", "release", "--allow-no-baseline"]);
    expect(thresholdsOnly.code).toBe(3);
    expect(thresholdsOnly.stdout.split("\n")[0]).toBe(
      "## ⚠️ Benchboard: inconclusive, no baseline and no thresholds to judge by",
    );
    expect(thresholdsOnly.stdout).not.toContain("✅");
  });

  it("run --wait launches a stored scenario, shows progress on stderr and exits 1 when thresholds fail", async () => {
    const db = stack.db.db;
    const project = await db.project.findFirstOrThrow({ where: { orgId, slug: projectSlug } });
    await createTarget(db, orgId, { projectId: project.id, name: "local", kind: "http", baseUrl: targetUrl });
    // Long enough for the worker to report progress a few times.
    const spec = ZScenarioSpec.parse({ engine: "http-closed", concurrency: 2, durationS: 3 });
    await createScenario(db, orgId, {
      projectId: project.id,
      name: "smoke",
      spec,
      thresholds: [{ metric: "success_rate", op: ">=", value: 99 }],
    });
    await createScenario(db, orgId, {
      projectId: project.id,
      name: "strict",
      spec,
      thresholds: [{ metric: "latency_p99", op: "<", value: 0.0001 }],
    });

    const ok = await benchboard([
      "run",
      "smoke",
      "--project",
      projectSlug,
      "--target",
      "local",
      "--wait",
      "--poll-interval",
      "0.5",
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(/^Queued Run #\d+ · .+ \(scenario smoke\): http/);
    // Not a terminal: one line per status change or tenth done, with the counts so far.
    expect(ok.stderr).toMatch(/\nrun #\d+ running \[#+-*\] \d+% [\d,]+ req 0 err [\d,]+ req\/s\n/);
    expect(ok.stderr).toMatch(/\nrun #\d+ succeeded \[/);
    expect(ok.stdout.split("\n")[0]).toBe("## ✅ Benchboard: run passed its thresholds");
    expect(ok.stdout).toContain("- ✅ Success rate >= 99.00% (100.00%; scenario threshold)");
    const run = await api(`/runs/${lastRunId()}`);
    expect(run.body).toMatchObject({ status: "succeeded", source: "launched", scenario: { name: "smoke" } });

    const strict = await benchboard(["run", "strict", "--project", projectSlug, "--target", "local", "--wait"]);
    expect(strict.code).toBe(1);
    expect(strict.stdout.split("\n")[0]).toBe("## ❌ Benchboard: 1 failed threshold");
    // The gate names the threshold, with its unit, and what the run measured.
    expect(strict.stderr).toMatch(/benchboard: run #\d+ failed threshold Latency p99 < 100 ns \(was [\d.,]+ m?s\)\n$/);
    expectNoSecret(strict);

    // A re-attempted CI job with the same key follows the first launch instead of starting another.
    const again = ["run", "smoke", "--project", projectSlug, "--target", "local", "--idempotency-key", "job-42"];
    const before = await db.run.count({ where: { projectId: project.id } });
    const first = await benchboard(again);
    const second = await benchboard(again);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(second.stdout).toBe(first.stdout);
    expect(first.stdout).toMatch(/^Queued Run #\d+ · .+ \(scenario smoke\): http/);
    expect(await db.run.count({ where: { projectId: project.id } })).toBe(before + 1);
  });

  it("run --wait --repetitions prints one summary for the group and gates over the whole group", async () => {
    const db = stack.db.db;
    const project = await db.project.findFirstOrThrow({ where: { orgId, slug: projectSlug } });
    await createTarget(db, orgId, { projectId: project.id, name: "repeated", kind: "http", baseUrl: targetUrl });
    const spec = ZScenarioSpec.parse({ engine: "http-closed", concurrency: 2, durationS: 1 });
    await createScenario(db, orgId, {
      projectId: project.id,
      name: "repeat",
      spec,
      thresholds: [{ metric: "success_rate", op: ">=", value: 99 }],
    });
    await createScenario(db, orgId, {
      projectId: project.id,
      name: "repeat strict",
      spec,
      thresholds: [{ metric: "latency_p99", op: "<", value: 0.0001 }],
    });
    const args = ["--project", projectSlug, "--target", "repeated", "--wait", "--poll-interval", "0.5"];

    const ok = await benchboard(["run", "repeat", "--repetitions", "3", ...args]);
    expect(ok.code, ok.stderr).toBe(0);
    const lines = ok.stdout.split("\n");
    expect(lines[0]).toBe("## ✅ Benchboard: all 3 repetitions passed");
    // The group as the server stored it: the summary's means are of these runs.
    const runs = await db.run.findMany({
      where: { projectId: project.id, scenarioName: "repeat" },
      include: { result: true },
      orderBy: { number: "asc" },
    });
    expect(runs).toHaveLength(3);
    expect(new Set(runs.map((r) => r.groupId)).size).toBe(1);
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    const rps = runs.map((r) => (r.result?.metrics as Record<string, number>).rps!);
    const rpsRow = lines.find((l) => l.startsWith("| Achieved rate |"));
    expect(rpsRow).toBeDefined();
    expect(rpsRow!.split("|").map((c) => c.trim())[2]).toBe(formatMetric("rps", mean(rps)));
    expect(ok.stdout).toContain("**Across the group** (3 runs)");
    // Each run named by its title, which says which repetition it was.
    for (const [i, r] of runs.entries())
      expect(ok.stdout).toMatch(
        new RegExp(
          `\\| \\[Run #${r.number} · [^\\]]*repetition ${i + 1} of 3\\]\\(http[^)]+/runs/${r.id}\\) \\| succeeded \\| ✅ passed \\|`,
        ),
      );
    expect(ok.stdout).toContain(`/compare?runs=${runs.map((r) => r.id).join(",")}`);
    expect(readFileSync(stepSummary, "utf8")).toContain("## ✅ Benchboard: all 3 repetitions passed");

    const strict = await benchboard(["run", "repeat strict", "--repetitions", "2", ...args]);
    expect(strict.code).toBe(1);
    expect(strict.stdout.split("\n")[0]).toBe("## ❌ Benchboard: 2 of 2 repetitions failed the gate");
    expect(strict.stdout).toMatch(/\| succeeded \| ❌ failed threshold Latency p99 < 100 ns \(was [\d.,]+ m?s\) \|/);
    expect(strict.stderr).toMatch(/benchboard: run #\d+ failed threshold Latency p99 < 100 ns/);
    expectNoSecret(strict);
  });

  it("refuses revoked tokens and other organizations' tokens", async () => {
    const revoked = await createApiToken(stack.db.db, orgId, {
      name: "old",
      scopes: ["runs:write"],
      createdById: null,
    });
    await revokeApiToken(stack.db.db, orgId, revoked.record.id);
    const before = await stack.db.db.run.count();
    const args = ["upload", "hey/mixed.txt", "--project", projectSlug];

    const refused = await benchboard(args, { BENCHBOARD_TOKEN: revoked.token });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      "benchboard: upload refused (HTTP 401): the API token is invalid, revoked or expired\n",
    );
    expectNoSecret(refused, revoked.token);

    const rival = await benchboard(args, { BENCHBOARD_TOKEN: rivalToken });
    expect(rival.code).toBe(2);
    expect(rival.stderr).toContain(
      `upload refused (HTTP 404): project: no project "${projectSlug}" in this organization`,
    );
    const pinned = await benchboard(args, { BENCHBOARD_TOKEN: rivalToken, BENCHBOARD_ORG: "local" });
    expect(pinned.stderr).toContain('refused (HTTP 401): the API token does not belong to the organization "local"');
    expect(await stack.db.db.run.count()).toBe(before);

    const someRun = lastRunId();
    expect((await api(`/runs/${someRun}`, rivalToken)).status).toBe(404);
    expect((await api(`/runs/${someRun}`, revoked.token)).status).toBe(401);
    const anonymous = await fetch(`${stack.baseUrl}/api/v1/runs/${someRun}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({
      error: { message: "missing API token: send the header Authorization: Bearer <token>" },
    });
  });

  it("serves the OpenAPI document and the run schema without a token", async () => {
    const doc = (await (await fetch(`${stack.baseUrl}/api/v1/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/runs", "/runs/launch", "/runs/{id}", "/compare"]));
    const schema = (await (await fetch(`${stack.baseUrl}/api/v1/schema/run.json`)).json()) as { title: string };
    expect(schema.title).toBe("Benchboard normalized run");
  });
});

describe("the Upload results page", () => {
  it("stores a file picked in the browser, and names the line of a broken one", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/runs/upload`);
    await page.getByRole("heading", { name: "Upload results" }).waitFor();

    const broken = path.join(work, "broken-wrk.txt");
    writeFileSync(
      broken,
      readFileSync(path.join(FIXTURES, "wrk/latency.txt"), "utf8").split("\n").slice(0, 11).join("\n"),
    );
    const before = await stack.db.db.run.count();
    await page.getByLabel("File", { exact: true }).setInputFiles(broken);
    await page.getByLabel("Format", { exact: true }).selectOption("wrk");
    await page.getByRole("button", { name: "Upload" }).click();
    await page.getByText('wrk output, line 11: no "Requests/sec:" line').waitFor();
    expect(await stack.db.db.run.count()).toBe(before);

    await page.getByLabel("File", { exact: true }).setInputFiles(path.join(FIXTURES, "hey/mixed.txt"));
    await page.getByLabel("Format", { exact: true }).selectOption("auto");
    await page.getByLabel("Project", { exact: true }).selectOption({ label: "Checkout API" });
    await page.getByLabel("Scenario name", { exact: true }).fill("mixed statuses");
    await page.getByLabel("Tags", { exact: true }).fill("manual, hey");
    await page.screenshot({ path: path.join(screenshotsDir, "upload.png") });
    await page.getByRole("button", { name: "Upload" }).click();
    // The page's own address also looks like /runs/<something>.
    await page.waitForURL((url) => /^\/runs\/[a-z0-9]+$/.test(url.pathname) && url.pathname !== "/runs/upload");
    const id = new URL(page.url()).pathname.split("/").pop()!;
    const run = await stack.db.db.run.findUniqueOrThrow({ where: { id }, include: { result: true } });
    expect(run).toMatchObject({
      source: "import:hey",
      status: "succeeded",
      scenarioName: "mixed statuses",
      tags: ["manual", "hey"],
      createdById: stack.user.id,
    });
    expect(run.result?.metrics).toEqual(
      importRun("hey", readFileSync(path.join(FIXTURES, "hey/mixed.txt"), "utf8")).result.metrics,
    );
  });
});
