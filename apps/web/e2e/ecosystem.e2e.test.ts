import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApiToken, createProject, createSession, ensureLocalOrganization } from "@benchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { type Stack, screenshotsDir, startStack } from "./harness";

// Where users already work: a token made in Settings with scopes and a project, the CLI wrapping
// a real vegeta while the run page follows live, and a project's configuration kept in a file.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = path.join(repoRoot, "apps/cli/bin/benchboard.js");
const TOOLS = path.join(repoRoot, ".data/tools");
const VEGETA = path.join(TOOLS, "vegeta");

let stack: Stack;
let target: http.Server;
let targetUrl = "";
let requestsSeen = 0;
let project = { id: "", slug: "" };
let copy = { id: "", slug: "" };
let token = "";
let orgWideToken = "";
let sessionCookie = "";
const work = mkdtempSync(path.join(tmpdir(), "bb-eco-e2e-"));

/** vegeta, built from the Go module proxy once and cached under .data/tools (scripts/lib.sh does the same). */
function ensureVegeta(): Promise<void> {
  if (existsSync(VEGETA)) return Promise.resolve();
  mkdirSync(TOOLS, { recursive: true });
  return new Promise((resolve, reject) => {
    execFile(
      "go",
      ["install", "github.com/tsenart/vegeta/v12@latest"],
      { env: { ...process.env, GOBIN: TOOLS }, timeout: 600_000 },
      (err, _stdout, stderr) => (err ? reject(new Error(`building vegeta failed: ${stderr}`)) : resolve()),
    );
  });
}

beforeAll(async () => {
  await ensureVegeta();
  // The reference target: every tenth request gets a 500, the rest 200 after about 2 ms.
  target = http.createServer((_req, res) => {
    const n = ++requestsSeen;
    setTimeout(() => {
      res.statusCode = n % 10 === 0 ? 500 : 200;
      res.end(n % 10 === 0 ? "boom" : "ok");
    }, 2);
  });
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await startStack();
  const orgId = (await ensureLocalOrganization(stack.db.db)).id;
  project = await createProject(stack.db.db, orgId, { name: "Checkout API" });
  copy = await createProject(stack.db.db, orgId, { name: "Checkout copy" });
  orgWideToken = (
    await createApiToken(stack.db.db, orgId, {
      name: "all projects",
      scopes: ["config:read", "config:write"],
      createdById: stack.user.id,
    })
  ).token;
  sessionCookie = `bb_session=${(await createSession(stack.db.db, stack.user.id)).token}`;
}, 900_000);

afterAll(async () => {
  await stack?.close();
  target?.close();
});

interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The real command with configuration from the environment, vegeta on the PATH. */
function start(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("BENCHBOARD_") || key.startsWith("GITHUB_")) delete env[key];
  Object.assign(env, {
    PATH: `${TOOLS}:${process.env.PATH}`,
    BENCHBOARD_URL: stack.baseUrl,
    BENCHBOARD_TOKEN: token,
    BENCHBOARD_STATE_FILE: path.join(work, "last-run.json"),
    ...options.env,
  });
  const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => {
    stdout += d;
  });
  child.stderr!.on("data", (d) => {
    stderr += d;
  });
  child.stdin!.end(options.stdin ?? "");
  const done = new Promise<CliResult>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done, output: () => stdout + stderr };
}

const benchboard = (args: string[], options?: Parameters<typeof start>[1]) => start(args, options).done;

async function until<T>(what: string, probe: () => Promise<T | null | undefined> | T | null | undefined, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// biome-ignore lint/suspicious/noExplicitAny: API answers are read loosely here; the server validates them
type Loose = Record<string, any>;

async function api(pathname: string, bearer = token) {
  const res = await fetch(`${stack.baseUrl}/api/v1${pathname}`, { headers: { authorization: `Bearer ${bearer}` } });
  return { status: res.status, body: (await res.json()) as Loose };
}

/** The run page's event stream, as the browser reads it: the first `run` event matching `accept`. */
async function sseEvent(runId: string, accept: (event: Loose) => boolean): Promise<Loose> {
  const controller = new AbortController();
  const res = await fetch(`${stack.baseUrl}/api/runs/${runId}/events`, {
    headers: { cookie: sessionCookie, accept: "text/event-stream" },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error("the event stream ended before a matching event");
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^event: run\ndata: (.*)$/m.exec(block)?.[1];
        if (data) {
          const event = JSON.parse(data);
          if (accept(event)) return event;
        }
      }
    }
  } finally {
    controller.abort();
  }
}

/** vegeta's own text report: total requests, success ratio and status counts. */
function vegetaReport(text: string) {
  const requests = /^Requests\s+\[total, rate, throughput\]\s+(\d+),/m.exec(text);
  const success = /^Success\s+\[ratio\]\s+([\d.]+)%/m.exec(text);
  const codes = /^Status Codes\s+\[code:count\]\s+(.*)$/m.exec(text);
  expect(requests && success && codes, `vegeta's report in:\n${text}`).toBeTruthy();
  const statusCounts = Object.fromEntries(
    codes![1]!
      .trim()
      .split(/\s+/)
      .map((pair) => pair.split(":"))
      .map(([code, count]) => [code!, Number(count)]),
  );
  return { requests: Number(requests![1]), successPct: Number(success![1]), statusCounts };
}

describe("ecosystem", () => {
  it("Settings → API tokens creates a token with scopes and a project; the project page shows its slug", async () => {
    const { page } = stack;
    await page.goto(`${stack.baseUrl}/settings/tokens`);
    const form = page.getByRole("form", { name: "Create API token" });
    await form.getByLabel("Token name").fill("GitHub Actions");
    await form.getByLabel("Project", { exact: true }).selectOption({ label: `Checkout API (${project.slug})` });
    // Read and upload runs are on by default; add configuration.
    await expect.poll(() => form.getByLabel(/Read runs/).isChecked()).toBe(true);
    await form.getByLabel(/Read configuration/).check();
    await form.getByLabel(/Change configuration/).check();
    await form.getByRole("button", { name: "Create token" }).click();
    token = (await page.getByLabel("New API token").textContent())!.trim();
    expect(token).toMatch(/^bb_/);
    const row = page.getByRole("table", { name: "API tokens" }).getByRole("row", { name: /GitHub Actions/ });
    await expect.poll(() => row.textContent()).toContain("runs:read, runs:write, config:read, config:write");
    expect(await row.textContent()).toContain("Checkout API");
    const stored = await stack.db.db.apiToken.findFirstOrThrow({ where: { name: "GitHub Actions" } });
    expect(stored).toMatchObject({
      projectId: project.id,
      scopes: ["runs:read", "runs:write", "config:read", "config:write"],
    });
    await page.screenshot({ path: path.join(screenshotsDir, "settings-api-token-scopes.png"), fullPage: true });

    // No scope at all is refused, naming the field.
    await form.getByLabel("Token name").fill("nothing");
    for (const label of [/Read runs/, /Upload runs/, /Read configuration/, /Change configuration/]) {
      await form.getByLabel(label).uncheck();
    }
    await form.getByRole("button", { name: "Create token" }).click();
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("choose at least one scope");

    await page.goto(`${stack.baseUrl}/projects/${project.id}`);
    const slug = page.getByRole("region", { name: "Project slug" });
    await expect.poll(() => slug.textContent()).toContain(project.slug);
    expect(await slug.getByLabel("CLI command").textContent()).toBe(
      `benchboard upload results.json --project ${project.slug}`,
    );
    await page.screenshot({ path: path.join(screenshotsDir, "project-slug.png") });
  });

  it("benchboard exec -- vegeta attack: the run page is live, the stored totals equal vegeta's report", async () => {
    const run = start(
      [
        "exec",
        "--project",
        project.slug,
        "--scenario",
        "vegeta steady",
        "--",
        "vegeta",
        "attack",
        "-rate",
        "40",
        "-duration",
        "10s",
      ],
      { stdin: `GET ${targetUrl}/\n` },
    );
    const runId = await until("the run to start", () => {
      const file = path.join(work, "last-run.json");
      return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { id: string }).id : null;
    });
    // Live while it runs: the event stream the run page reads carries per-second figures.
    const live = await sseEvent(
      runId,
      (e) => e.status === "running" && e.progress?.requests > 0 && e.progress?.samples?.length > 0,
    );
    expect(live.progress).toMatchObject({ rps: expect.any(Number), errors: expect.any(Number) });
    expect(live.progress.samples[0]).toMatchObject({ t: expect.any(Number), rps: expect.any(Number) });
    const { page } = stack;
    await page.goto(`${stack.baseUrl}/runs/${runId}`);
    await expect.poll(() => page.getByLabel("Live figures").isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.getByLabel("Live figures").textContent()).toContain("Requests");
    await expect.poll(() => page.getByText("● live").isVisible(), { timeout: 20_000 }).toBe(true);
    await page.screenshot({ path: path.join(screenshotsDir, "exec-vegeta-live.png"), fullPage: true });

    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`benchboard: Run #1 · vegeta steady is live at ${stack.baseUrl}/runs/${runId}`);
    expect(result.stdout).toContain(`Stored Run #1 · vegeta steady (exec:vegeta): ${stack.baseUrl}/runs/${runId}`);
    expect(result.stdout + result.stderr).not.toContain(token);
    const own = vegetaReport(result.stdout);
    expect(own.requests).toBe(400);

    const { status, body } = await api(`/runs/${runId}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: "succeeded", source: "exec:vegeta", scenario: { name: "vegeta steady" } });
    expect(body.result.metrics.requests).toBe(own.requests);
    expect(body.result.statusCounts).toEqual(own.statusCounts);
    expect(body.result.metrics.success_rate).toBeCloseTo(own.successPct, 2);
    expect(body.result.metrics.failed).toBe(own.statusCounts["500"] ?? 0);
    // The merged histogram holds every request.
    const stored = await stack.db.db.runResult.findUniqueOrThrow({ where: { runId } });
    expect(stored.histogram).toBeTruthy();
    expect(requestsSeen).toBeGreaterThanOrEqual(own.requests);
  });

  it("Ctrl-C stops vegeta and ends the run canceled with what was measured", async () => {
    const run = start(
      ["exec", "--project", project.slug, "--", "vegeta", "attack", "-rate", "20", "-duration", "60s"],
      { stdin: `GET ${targetUrl}/\n` },
    );
    await until("the run to report requests", async () => {
      const file = path.join(work, "last-run.json");
      if (!existsSync(file)) return null;
      const id = (JSON.parse(readFileSync(file, "utf8")) as { id: string }).id;
      const { body } = await api(`/runs/${id}`);
      return body.number === 2 && body.progress?.requests > 0 ? id : null;
    });
    const interruptedAt = Date.now();
    run.child.kill("SIGINT");
    const result = await run.done;
    expect(Date.now() - interruptedAt).toBeLessThan(15_000);
    expect(result.code).toBe(130);
    const runId = (JSON.parse(readFileSync(path.join(work, "last-run.json"), "utf8")) as { id: string }).id;
    const { body } = await api(`/runs/${runId}`);
    expect(body).toMatchObject({ status: "canceled", number: 2 });
    expect(body.error).toMatch(/^interrupted; vegeta exited with status/);
    expect(body.result.metrics.requests).toBeGreaterThan(0);
    expect(body.result.metrics.requests).toBeLessThan(20 * 60);
  });

  it("benchboard apply twice changes nothing but the given secret the second time; export then apply recreates the project", async () => {
    const file = path.join(work, "benchboard.yml");
    writeFileSync(
      file,
      `version: 1
project: ${project.slug}
thresholds:
  - { metric: latency_p99, op: "<", value: 250 }
targets:
  - name: api
    kind: http
    baseUrl: ${targetUrl}
    headers:
      - { name: x-env, value: ci }
      - { name: authorization, secret: true, value: "Bearer \${API_KEY}" }
instanceConfigs:
  - { name: small, instanceType: t3.small, vcpu: 2, memoryMb: 2048, knobs: { workers: 4 } }
scenarios:
  - name: steady
    description: 20 req/s for 5 s
    spec: { engine: http-open, rate: 20, durationS: 5 }
    thresholds:
      - { metric: success_rate, op: ">=", value: 99 }
`,
    );
    const env = { API_KEY: "k3y-from-ci-secrets" };
    const missing = await benchboard(["apply", "-f", file]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      "benchboard: targets[0].headers[1].value: the environment variable API_KEY is not set\n",
    );

    const plan = await benchboard(["apply", "-f", file, "--dry-run"], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toBe(
      [
        "~ update project thresholds",
        "+ create target api",
        "+ create instance config small",
        "+ create scenario steady",
        `Plan for ${project.slug}: 3 to create, 1 to update, 0 unchanged (dry run: nothing changed)`,
        "",
      ].join("\n"),
    );
    expect(await stack.db.db.target.count({ where: { projectId: project.id } })).toBe(0);

    const first = await benchboard(["apply", "-f", file], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`Applied to ${project.slug}: 3 to create, 1 to update, 0 unchanged`);
    const snapshot = async () =>
      JSON.stringify(
        await Promise.all([
          stack.db.db.target.findMany({ where: { projectId: project.id }, orderBy: { name: "asc" } }),
          stack.db.db.instanceConfig.findMany({ where: { projectId: project.id }, orderBy: { name: "asc" } }),
          stack.db.db.scenario.findMany({ where: { projectId: project.id }, orderBy: { name: "asc" } }),
          stack.db.db.project.findUniqueOrThrow({ where: { id: project.id }, select: { thresholds: true } }),
        ]),
      );
    const afterFirst = await snapshot();
    const second = await benchboard(["apply", "-f", file], { env });
    expect(second.code, second.stderr).toBe(0);
    // A secret value given in the file is never compared with the stored one (that would confirm
    // a guess): it is written again, and only that; every other row is left as it was.
    expect(second.stdout).toContain("~ update target api (headers)");
    expect(second.stdout).toContain(`Applied to ${project.slug}: 0 to create, 1 to update, 3 unchanged`);
    const withoutSecrets = (json: string) =>
      JSON.stringify(
        (JSON.parse(json) as [Record<string, unknown>[], ...unknown[]]).map((part, i) =>
          i === 0 && Array.isArray(part) ? part.map(({ secrets, updatedAt, ...rest }) => rest) : part,
        ),
      );
    expect(withoutSecrets(await snapshot())).toBe(withoutSecrets(afterFirst));

    const exported = path.join(work, "exported.yml");
    const exportRun = await benchboard(["export", "--project", project.slug, "-o", exported]);
    expect(exportRun.code, exportRun.stderr).toBe(0);
    const doc = parseYaml(readFileSync(exported, "utf8"));
    expect(JSON.stringify(doc)).not.toContain("k3y-from-ci-secrets");
    expect(doc.targets[0].headers).toEqual([
      { name: "x-env", value: "ci" },
      { name: "authorization", secret: true },
    ]);

    // A file that names one project is not applied to another.
    const conflict = await benchboard(["apply", "-f", exported, "--project", copy.slug], { env });
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toContain(project.slug);
    expect(conflict.stderr).toContain(copy.slug);
    doc.project = copy.slug;
    writeFileSync(exported, stringifyYaml(doc));

    // The token made in Settings is limited to its project.
    const limited = await benchboard(["apply", "-f", exported, "--project", copy.slug], { env });
    expect(limited.code).toBe(2);
    expect(limited.stderr).toContain("project: this API token is limited to another project");

    // Onto an empty project: the secret has to be given, as the export's header says.
    const wide = { BENCHBOARD_TOKEN: orgWideToken };
    const refused = await benchboard(["apply", "-f", exported, "--project", copy.slug], { env: wide });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('target "api": headers.1.value: enter a value for this secret header');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the file names the environment variable, apply expands it
    doc.targets[0].headers[1].value = "Bearer ${API_KEY}";
    writeFileSync(exported, stringifyYaml(doc));
    const recreated = await benchboard(["apply", "-f", exported, "--project", copy.slug], { env: { ...env, ...wide } });
    expect(recreated.code, recreated.stderr).toBe(0);
    const source = await api(`/projects/${project.slug}/config`, orgWideToken);
    const recreatedDoc = await api(`/projects/${copy.slug}/config`, orgWideToken);
    expect(source.status).toBe(200);
    expect({ ...recreatedDoc.body, project: project.slug }).toEqual(source.body);
    const again = await benchboard(["apply", "-f", exported, "--project", copy.slug], { env: { ...env, ...wide } });
    // Everything but the given secret is unchanged; the secret is written again, never compared.
    expect(again.stdout).toContain("0 to create, 1 to update, 3 unchanged");
  });
});
