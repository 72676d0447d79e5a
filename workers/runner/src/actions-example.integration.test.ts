import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCaller } from "@benchboard/api";
import { createAgentToken, createApiToken } from "@benchboard/db";
import { DEFAULT_REDIS_URL } from "@benchboard/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentStack, startAgentStack } from "../test/agent-stack";

// The GitHub Actions example of docs/agents.md ("GitHub Actions (`--once`)"), run as a runner
// runs it: each `run:` step in a shell of its own (bash -eo pipefail), with the job's and the
// step's env and the `${{ … }}` expressions filled in, a step ending when its shell exits. The
// command is the packed CLI installed by the example's own npm step; the server is the REST
// routes agents and the CLI call, on a real database and Redis.

const root = fileURLToPath(new URL("../../../", import.meta.url));
const DOC = path.join(root, "docs/agents.md");
const CLI_DIR = path.join(root, "apps/cli");
// The YAML parser the CLI itself uses (a dependency of apps/cli, not of this package).
const YAML = createRequire(path.join(CLI_DIR, "package.json"))("yaml") as { parse(text: string): unknown };

const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
let stack: AgentStack | undefined;
let dir = "";
let workspace = "";
let prefix = "";
let target: http.Server | undefined;
let targetUrl = "";
const started: ChildProcess[] = [];

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Job {
  env?: Record<string, string>;
  steps: Step[];
}

/** The example's one job, parsed from the YAML block under its heading. */
function exampleJob(): Job {
  const docs = readFileSync(DOC, "utf8");
  const block = /^## GitHub Actions \(`--once`\)\n[\s\S]*?```yaml\n([\s\S]*?)```/m.exec(docs)?.[1];
  if (!block) throw new Error("no yaml block under '## GitHub Actions (`--once`)' in docs/agents.md");
  const jobs = Object.values((YAML.parse(block) as { jobs: Record<string, Job> }).jobs);
  expect(jobs).toHaveLength(1);
  return jobs[0]!;
}

/** `${{ … }}` as GitHub fills it in; an expression the test does not know is an error. */
function expand(text: string, context: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
    const value = context[expr];
    if (value === undefined) throw new Error(`the example uses \${{ ${expr} }}, which this test does not provide`);
    return value;
  });
}

interface StepResult {
  name: string;
  code: number | null;
  /** What the step printed until its shell exited. */
  output: string;
}

/**
 * Run the job's steps in order, each `run:` in its own bash as a runner does (`uses:` steps are
 * the runner's own setup and are skipped); stops at the first failing step. A process a step
 * leaves behind keeps running, as on a runner; `late` gets what it prints after its step ended.
 */
async function runJob(job: Job, context: Record<string, string>, env: Record<string, string>) {
  const results: StepResult[] = [];
  const late: string[] = [];
  for (const [index, step] of job.steps.entries()) {
    if (step.uses || !step.run) continue;
    const name = step.name ?? step.run.split("\n")[0]!;
    const file = path.join(dir, `step-${index}.sh`);
    writeFileSync(file, expand(step.run, context));
    const stepEnv: Record<string, string> = { ...env };
    for (const [k, v] of Object.entries({ ...job.env, ...step.env })) stepEnv[k] = expand(String(v), context);
    const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", file], {
      cwd: workspace,
      env: stepEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    started.push(child);
    let ended = false;
    const output: string[] = [];
    const take = (d: Buffer) => (ended ? late : output).push(String(d));
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
      child.once("exit", (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    ended = true;
    results.push({ name, code, output: output.join("") });
    if (code !== 0) break;
  }
  return { results, late };
}

/** Processes still running whose command line holds `marker` (here: the job's agent label). */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmdline.includes(marker)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

function killLeftovers(marker: string) {
  for (const pid of processesWith(marker)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}

const run = (file: string, args: string[], cwd: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    execFile(file, args, { cwd, timeout: 240_000, maxBuffer: 20_000_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== "number") reject(err);
      else resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
    });
  });

let tarball = "";

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "bb-actions-"));
  workspace = path.join(dir, "workspace");
  prefix = path.join(dir, "npm-prefix");
  mkdirSync(path.join(workspace, "tools"), { recursive: true });
  mkdirSync(prefix);
  // The packed CLI, where the example installs it from (npm runs the esbuild bundle first).
  const pack = await run("npm", ["pack", "--json", "--pack-destination", path.join(workspace, "tools")], CLI_DIR);
  expect(pack.code, pack.stderr).toBe(0);
  tarball = (JSON.parse(pack.stdout) as { filename: string }[])[0]!.filename;
  // 50 ms answers: latency well above the generator's own send lag, so the run is a valid measurement.
  target = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 50));
  await new Promise<void>((resolve) => target?.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await startAgentStack(redisUrl, `bbactions-${randomBytes(4).toString("hex")}`);
}, 300_000);

afterAll(async () => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await stack?.close();
  target?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** An organization with the example's project `shop`, target `api` and scenario `checkout`. */
async function organization(scopes: ("runs:read" | "runs:launch")[]) {
  const { t, queue, queueFor } = stack!;
  const org = await t.db.organization.create({
    data: { name: "Shop", slug: `shop-${randomBytes(3).toString("hex")}` },
  });
  const caller = createCaller({
    db: t.db,
    queue,
    queueFor,
    orgId: org.id,
    userId: null,
    role: "owner",
    secretKey: randomBytes(32),
  });
  const project = await caller.project.create({ name: "shop", slug: "shop" });
  await caller.target.create({ projectId: project.id, name: "api", kind: "http", baseUrl: targetUrl } as never);
  await caller.scenario.create({
    projectId: project.id,
    name: "checkout",
    spec: { engine: "http-open", rate: 20, durationS: 2 } as never,
  });
  const { token: agentToken } = await createAgentToken(t.db, org.id, { name: "ci agents", createdById: null });
  const { token: apiToken } = await createApiToken(t.db, org.id, { name: "ci", scopes, createdById: null });
  return { org, project, agentToken, apiToken };
}

/** What a runner gives every step, and the job's context. */
function runner(runId: string, secrets: { agentToken: string; apiToken: string }) {
  const context = {
    "github.run_id": runId,
    "github.run_attempt": "1",
    "vars.BENCHBOARD_URL": stack!.rest.url,
    "secrets.BENCHBOARD_AGENT_TOKEN": secrets.agentToken,
    "secrets.BENCHBOARD_TOKEN": secrets.apiToken,
  };
  const env = {
    PATH: [path.join(prefix, "bin"), path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
    HOME: dir,
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_STEP_SUMMARY: path.join(dir, `summary-${runId}.md`),
    // The runner's npm: global installs into its own prefix, nothing from a registry.
    npm_config_prefix: prefix,
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  };
  return { context, env };
}

describe("the GitHub Actions example for agents (docs/agents.md)", () => {
  it("installs the tarball it names, and its job waits for its agent: the run goes to it, and the agent's end is inside the job", async () => {
    const job = exampleJob();
    expect(job.steps.some((s) => s.run?.includes(`./tools/${tarball}`))).toBe(true);
    const org = await organization(["runs:read", "runs:launch"]);
    const runId = String(Date.now());
    // The job's agent label and name start so (the example may add the attempt).
    const label = `ci-${runId}`;
    const { context, env } = runner(runId, org);
    try {
      const { results, late } = await runJob(job, context, env);
      const last = results.at(-1)!;
      for (const step of results.slice(0, -1)) expect(step.code, `${step.name}\n${step.output}`).toBe(0);
      expect(last.name).toBe("Launch on this job's agent and gate");
      // The run went to this job's agent and succeeded.
      const runs = await stack!.t.db.run.findMany({ where: { orgId: org.org.id }, include: { result: true } });
      expect(runs).toHaveLength(1);
      expect(runs[0]!.status, runs[0]!.error ?? "").toBe("succeeded");
      const agentName = /^agent:([^:]+):/.exec(runs[0]!.workerIds[0] ?? "")?.[1] ?? "";
      expect(agentName.startsWith(label), runs[0]!.workerIds[0]).toBe(true);
      // The job ends by the run's gate: 0, or 1 when a busy machine made the run an invalid
      // measurement (the generator's own lateness is measured, and the run says so).
      expect(last.code, last.output).toBe(runs[0]!.result?.valid ? 0 : 1);
      // The agent ended inside the job, and nothing of it was left running after the job.
      expect(last.output, `printed after its step ended:\n${late.join("")}`).toMatch(
        new RegExp(`\\[agent ${agentName}\\] run ${runs[0]!.id} ended`),
      );
      expect(processesWith(label)).toEqual([]);
    } finally {
      killLeftovers(label);
    }
  }, 180_000);

  it("a refused launch fails the job with the launch's exit code and stops the agent it started", async () => {
    const job = exampleJob();
    // A token that may read runs but not launch them: the launch is refused.
    const org = await organization(["runs:read"]);
    const runId = String(Date.now() + 1);
    const label = `ci-${runId}`;
    const { context, env } = runner(runId, org);
    try {
      const { results } = await runJob(job, context, env);
      const last = results.at(-1)!;
      expect(last.code, last.output).toBe(2);
      expect(last.output).toMatch(/runs:launch/);
      // The job ended with its agent: none is left polling for a run that will never come.
      expect(processesWith(label)).toEqual([]);
      expect(await stack!.t.db.run.count({ where: { orgId: org.org.id } })).toBe(0);
    } finally {
      killLeftovers(label);
    }
  }, 180_000);
});
