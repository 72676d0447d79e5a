import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ZScenarioSpec } from "@benchboard/core";
import { createApiToken, createProject, createScenario, createTarget, ensureLocalOrganization } from "@benchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// Distributed load in users' hands: a sharded run launched from the form and from the CLI runs
// on two real worker processes, and its merged counts are the sum of its shards'.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = path.join(repoRoot, "apps/cli/bin/benchboard.js");

let stack: Stack;
let target: http.Server;
let projectId = "";
let projectSlug = "";
let targetId = "";
let scenarioId = "";
let token = "";
const workerIds: string[] = [];
const work = mkdtempSync(path.join(tmpdir(), "bb-shards-e2e-"));

beforeAll(async () => {
  target = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 5));
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  // Two workers, one run at a time each: a 2-shard run needs both.
  stack = await startStack({
    workers: [
      { labels: "lab", concurrency: 1 },
      { labels: "lab", concurrency: 1 },
    ],
  });
  const db = stack.db.db;
  const orgId = (await ensureLocalOrganization(db)).id;
  const project = await createProject(db, orgId, { name: "Sharded API" });
  projectId = project.id;
  projectSlug = project.slug;
  targetId = (await createTarget(db, orgId, { projectId, name: "local", kind: "http", baseUrl: targetUrl })).id;
  scenarioId = (
    await createScenario(db, orgId, {
      projectId,
      name: "steady",
      spec: ZScenarioSpec.parse({ engine: "http-open", rate: 50, durationS: 60, maxConnections: 8, warmupS: 0 }),
    })
  ).id;
  token = (
    await createApiToken(db, orgId, { name: "ci", scopes: ["runs:read", "runs:launch"], createdById: stack.user.id })
  ).token;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const online = await db.worker.findMany({ select: { id: true } });
    if (online.length === 2) {
      workerIds.push(...online.map((w) => w.id));
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(workerIds).toHaveLength(2);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  target?.close();
});

/** The run's stored counts and its shards' own, once it ended. */
async function shardFigures(runId: string) {
  const db = stack.db.db;
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { result: true, shards: true } });
  const metrics = (run.result?.metrics ?? {}) as Record<string, number>;
  const shards = run.shards
    .sort((a, b) => a.index - b.index)
    .map((s) => ({
      workerId: s.workerId,
      status: s.status,
      requests: ((s.result as { metrics?: Record<string, number> } | null)?.metrics ?? {}).requests ?? 0,
      success: ((s.result as { metrics?: Record<string, number> } | null)?.metrics ?? {}).success ?? 0,
    }));
  return { run, metrics, shards };
}

describe("distributed launch", () => {
  it("launches a 2-shard run from the form onto two worker processes, with a lower rate and a shorter duration", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/projects/${projectId}/launch?targetId=${targetId}&scenarioId=${scenarioId}`);
    // The form offers the online workers' label and estimates each shard's load.
    await page.locator("#launch-worker-label").selectOption("worker:lab");
    expect(await page.locator("#launch-worker-label option:checked").textContent()).toBe(
      "Install workers labelled lab (2 online)",
    );
    await page.locator("#launch-rate").fill("40");
    await page.locator("#launch-duration").fill("3");
    await page.locator("#launch-shards").fill("2");
    await page.getByText("Each of 2 workers sends 20 req/s, 4 connections").waitFor();
    // An override over the caps is refused at its field before anything is sent.
    await page.locator("#launch-rate").fill("20000");
    await page.getByRole("button", { name: /^Launch/ }).click();
    expect(await page.locator("#launch-rate-error").textContent()).toMatch(/^this launch asks for 20,000 req\/s/);
    await page.locator("#launch-rate").fill("40");
    await page.screenshot({ path: path.join(screenshotsDir, "launch-shards.png"), fullPage: true });
    await page.getByRole("button", { name: /^Launch/ }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
    const runId = page.url().split("/").pop() ?? "";
    await page.locator('[data-status="succeeded"], [data-status="failed"]').first().waitFor({ timeout: 60_000 });

    const { run, metrics, shards } = await shardFigures(runId);
    expect(run.status, run.error ?? "").toBe("succeeded");
    expect(run.shardCount).toBe(2);
    expect(run.workerLabel).toBe("lab");
    expect(run.scenarioSnapshot).toMatchObject({
      spec: { rate: 40, durationS: 3 },
      overrides: { rate: 40, durationS: 3 },
    });
    // Each shard on its own worker process; merged counts are the shards' sums.
    expect(new Set(shards.map((s) => s.workerId))).toEqual(new Set(workerIds));
    expect(shards.map((s) => s.status)).toEqual(["succeeded", "succeeded"]);
    expect(metrics.requests).toBe(shards[0]!.requests + shards[1]!.requests);
    expect(metrics.success).toBe(shards[0]!.success + shards[1]!.success);
    // 40 req/s for 3 s, split 20 + 20.
    expect(metrics.requests).toBeGreaterThanOrEqual(110);
    expect(metrics.requests).toBeLessThanOrEqual(122);

    // The run page lists each shard's worker and share.
    const table = page.getByRole("table", { name: "Shards" });
    await table.waitFor();
    const rows = await table.locator("tbody tr").allTextContents();
    expect(rows).toHaveLength(2);
    for (const [i, row] of rows.entries()) {
      expect(row).toContain(shards[i]!.workerId!);
      expect(row).toContain("20 req/s, up to 4 connections");
    }
    await page.getByText("Launched with rate 40 req/s, duration 3 s").waitFor();
    await page.screenshot({ path: path.join(screenshotsDir, "run-shards.png"), fullPage: true });
  });

  it("benchboard run --shards 2 --wait runs on both workers and reports the merged counts", async () => {
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const key of Object.keys(env))
        if (key.startsWith("BENCHBOARD_") || key.startsWith("GITHUB_")) delete env[key];
      Object.assign(env, {
        BENCHBOARD_URL: stack.baseUrl,
        BENCHBOARD_TOKEN: token,
        BENCHBOARD_STATE_FILE: path.join(work, "last-run.json"),
      });
      execFile(
        process.execPath,
        [
          BIN,
          "run",
          "steady",
          "--project",
          projectSlug,
          "--target",
          "local",
          "--shards",
          "2",
          "--worker-label",
          "lab",
          "--rate",
          "30",
          "--duration",
          "2",
          "--wait",
          // What is checked here is where the shards ran and how they merged; on a busy machine the
          // engine may honestly flag its own lateness, which has tests of its own.
          "--allow-invalid",
          "--json",
        ],
        { env, timeout: 90_000 },
        (err, stdout, stderr) =>
          resolve({
            code: err ? ((err as { code?: number }).code ?? 1) : 0,
            stdout: String(stdout),
            stderr: String(stderr),
          }),
      );
    });
    expect(result.code, result.stderr).toBe(0);
    const finished = JSON.parse(result.stdout) as {
      id: string;
      status: string;
      result: { metrics: Record<string, number> };
    };
    expect(finished.status).toBe("succeeded");
    const { run, metrics, shards } = await shardFigures(finished.id);
    expect(run.shardCount).toBe(2);
    expect(new Set(shards.map((s) => s.workerId))).toEqual(new Set(workerIds));
    expect(finished.result.metrics.requests).toBe(metrics.requests);
    expect(metrics.requests).toBe(shards[0]!.requests + shards[1]!.requests);
    expect(metrics.requests).toBeGreaterThanOrEqual(55);
    expect(metrics.requests).toBeLessThanOrEqual(62);
  });

  it("refuses through REST a split the scenario cannot take and an unknown label, naming the field", async () => {
    const launch = (body: object) =>
      fetch(`${stack.baseUrl}/api/v1/runs/launch`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ project: projectSlug, scenario: "steady", target: "local", ...body }),
      });
    const tooMany = await launch({ shards: 9 });
    expect(tooMany.status).toBe(409);
    expect(await tooMany.json()).toMatchObject({
      error: { field: "shards", message: expect.stringContaining("maxConnections (8) is below the shard count") },
    });
    const nowhere = await launch({ workerLabel: "mars" });
    expect(nowhere.status).toBe(409);
    expect(await nowhere.json()).toMatchObject({ error: { field: "workerLabel" } });
    const bad = await launch({ rate: -1 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { field: "rate", message: expect.stringContaining("rate must be above 0") },
    });
    const doc = (await (await fetch(`${stack.baseUrl}/api/v1/openapi.json`)).json()) as {
      components: { schemas: { LaunchInput: { properties: Record<string, unknown> } } };
    };
    expect(Object.keys(doc.components.schemas.LaunchInput.properties)).toEqual(
      expect.arrayContaining(["shards", "workerLabel", "rate", "concurrency", "durationS"]),
    );
  });
});
