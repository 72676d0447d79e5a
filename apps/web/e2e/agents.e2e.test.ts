import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ZScenarioSpec } from "@benchboard/core";
import { createAgentToken, createProject, createScenario, createSession, createTarget, signUp } from "@benchboard/db";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// Load agents as a tenant uses them: the CLI packed and installed with npm into an empty prefix
// outside the repository, two `benchboard agent` processes started from it, and an organization
// that is not the install's — with no verified origin — launching a 2-shard LLM run for its
// agents from the form, against a server on 127.0.0.1 that it declared agent-only.
const CLI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../cli");

let stack: Stack;
let page: Page;
let llm: http.Server;
const served = { completions: 0, metrics: 0 };
const agents: ChildProcess[] = [];
let orgId = "";
let projectId = "";
let targetId = "";
let scenarioId = "";

function run(file: string, args: string[], cwd: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(file, args, { cwd, timeout: 240_000, maxBuffer: 20_000_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== "number") reject(err);
      else resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  // An OpenAI-compatible server (50 ms per answer) with a Prometheus endpoint.
  llm = http.createServer((req, res) => {
    if (req.url === "/metrics") {
      served.metrics++;
      res.end(
        `# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes ${200_000_000 + served.metrics}\n`,
      );
      return;
    }
    served.completions++;
    req.resume();
    setTimeout(() => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          id: "c",
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content: "hello there" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
        }),
      );
    }, 50);
  });
  await new Promise<void>((r) => llm.listen(0, "127.0.0.1", r));
  const llmUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}`;

  // One install worker, offering the very label the agents offer: it must never take their runs.
  stack = await startStack({ workers: [{ labels: "lab" }] });
  const db = stack.db.db;
  // A stranger signs up: an organization of its own, no verified origin.
  const tenant = await signUp(db, { email: "tara@example.com", password: "tenant password 1", name: "Tara" });
  const membership = await db.membership.findFirstOrThrow({ where: { userId: tenant.id }, include: { org: true } });
  orgId = membership.orgId;
  expect(membership.org.slug).not.toBe("local");
  const session = await createSession(db, tenant.id);
  const context = await stack.browser.newContext({ viewport: { width: 1440, height: 1000 } });
  await context.addCookies([
    { name: "bb_session", value: session.token, url: stack.baseUrl, httpOnly: true, sameSite: "Lax" },
    { name: "bb_org", value: membership.org.slug, url: stack.baseUrl, sameSite: "Lax" },
  ]);
  page = await context.newPage();

  const project = await createProject(db, orgId, { name: "Private gateway" });
  projectId = project.id;
  targetId = (
    await createTarget(db, orgId, {
      projectId,
      name: "gateway",
      kind: "llm",
      baseUrl: llmUrl,
      agentLabel: "lab",
      monitors: [{ config: { kind: "prometheus", url: `${llmUrl}/metrics` } as never }],
    })
  ).id;
  scenarioId = (
    await createScenario(db, orgId, {
      projectId,
      name: "chat",
      spec: ZScenarioSpec.parse({ engine: "llm", rate: 40, durationS: 4, warmupS: 0, maxConnections: 20 }),
    })
  ).id;
  const { token } = await createAgentToken(db, orgId, { name: "lab", createdById: tenant.id });

  // The package as users get it, installed into an empty prefix outside the repository.
  const packDir = mkdtempSync(path.join(tmpdir(), "bb-agent-pack-"));
  const prefix = mkdtempSync(path.join(tmpdir(), "bb-agent-prefix-"));
  const elsewhere = mkdtempSync(path.join(tmpdir(), "bb-agent-home-"));
  const pack = await run("npm", ["pack", "--json", "--pack-destination", packDir], CLI_DIR);
  expect(pack.code, pack.stderr).toBe(0);
  const [packed] = JSON.parse(pack.stdout) as { filename: string }[];
  const install = await run(
    "npm",
    ["install", "-g", "--offline", "--no-audit", "--no-fund", "--prefix", prefix, path.join(packDir, packed!.filename)],
    elsewhere,
  );
  expect(install.code, install.stderr).toBe(0);
  const bin = path.join(prefix, "bin", "benchboard");
  for (const name of ["lab-1", "lab-2"]) {
    const child = spawn(bin, ["agent", "--name", name, "--label", "lab", "--poll-s", "5"], {
      cwd: elsewhere,
      env: {
        PATH: `${path.join(prefix, "bin")}:${path.dirname(process.execPath)}`,
        HOME: elsewhere,
        BENCHBOARD_URL: stack.baseUrl,
        BENCHBOARD_AGENT_TOKEN: token,
      } as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stderr?.on("data", (d) => stack.logs.push(`[${name}] ${d}`));
    agents.push(child);
  }
  const deadline = Date.now() + 60_000;
  while ((await db.agent.count({ where: { orgId, stoppedAt: null } })) < 2) {
    if (Date.now() > deadline) throw new Error(`agents did not announce\n${stack.logs.join("")}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 400_000);

afterAll(async () => {
  for (const a of agents) a.kill("SIGTERM");
  await Promise.all(agents.map((a) => (a.exitCode === null ? new Promise((r) => a.once("exit", r)) : null)));
  await stack?.close();
  llm?.close();
});

describe("load agents from the packed CLI", () => {
  it("run a tenant's 2-shard LLM run launched from the form on two agents, live, merged exactly, with the agent's memory series", async () => {
    await page.goto(`${stack.baseUrl}/workers`);
    await page.getByRole("table", { name: "Agents" }).waitFor();
    expect(await page.getByRole("table", { name: "Agents" }).textContent()).toMatch(/lab-1.*lab-2|lab-2.*lab-1/s);
    await page.screenshot({ path: path.join(screenshotsDir, "agents-workers-page.png"), fullPage: true });

    await page.goto(`${stack.baseUrl}/projects/${projectId}/launch?targetId=${targetId}&scenarioId=${scenarioId}`);
    await page.locator("#launch-worker-label").selectOption("agent:lab");
    expect(await page.locator("#launch-worker-label option:checked").textContent()).toBe(
      "Agents labelled lab (2 online)",
    );
    await page.locator("#launch-shards").fill("2");
    await page.screenshot({ path: path.join(screenshotsDir, "agents-launch.png"), fullPage: true });
    const before = served.completions;
    const metricsBefore = served.metrics;
    await page.getByRole("button", { name: /^Launch/ }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
    const runId = page.url().split("/").pop() ?? "";
    // The page is live while the agents run it.
    await page.locator('[data-status="running"]').first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(screenshotsDir, "agents-run-live.png"), fullPage: true });
    await page.locator('[data-status="succeeded"], [data-status="failed"]').first().waitFor({ timeout: 90_000 });
    await page.screenshot({ path: path.join(screenshotsDir, "agents-run-done.png"), fullPage: true });

    const db = stack.db.db;
    const stored = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { result: true, shards: true } });
    expect(stored.status, `${stored.error}\n${stack.logs.join("").slice(-3_000)}`).toBe("succeeded");
    expect(stored.agentLabel).toBe("lab");
    expect(stored.orgId).toBe(orgId);
    const shards = stored.shards.sort((a, b) => a.index - b.index);
    expect(new Set(shards.map((s) => s.workerId?.split(":")[1]))).toEqual(new Set(["lab-1", "lab-2"]));
    const shardRequests = shards.map((s) => (s.result as { metrics: { requests: number } }).metrics.requests);
    const metrics = stored.result?.metrics as Record<string, number>;
    expect(metrics.requests).toBe(shardRequests[0]! + shardRequests[1]!);
    expect(metrics.requests).toBeGreaterThanOrEqual(140);
    expect(served.completions - before).toBeGreaterThanOrEqual(metrics.requests!);
    // Memory sampled by the agent from the target's Prometheus endpoint.
    const mem = await db.series.findFirst({ where: { runId, metric: "mem_bytes" } });
    expect((mem?.values as (number | null)[] | undefined)?.filter((v) => v !== null).length).toBeGreaterThanOrEqual(2);
    expect(served.metrics).toBeGreaterThan(metricsBefore);
    // The install's worker, offering the same label, never took it.
    expect(stored.workerIds.every((w) => w.startsWith("agent:"))).toBe(true);
  }, 240_000);
});
