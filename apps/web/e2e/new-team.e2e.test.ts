import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { formatDeltaPct, formatMetric, mean, ratioDeltaInterval, sampleVariance, welchTTest } from "@benchboard/core";
import { importRun } from "@benchboard/core/importers";
import {
  createApiToken,
  createInvitation,
  createProject,
  createUploadedRun,
  ensureLocalOrganization,
} from "@benchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// What a new team meets first: real tool output imported in the browser and with the CLI, an
// invitation link, a teammate's run link, and a configuration file applied all or nothing.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = path.join(repoRoot, "apps/cli/bin/benchboard.js");
const FIXTURES = path.join(repoRoot, "packages/core/src/importers/fixtures");

let stack: Stack;
let orgId = "";
let project = { id: "", slug: "" };
let token = "";
const work = mkdtempSync(path.join(tmpdir(), "bb-new-team-e2e-"));

beforeAll(async () => {
  stack = await startStack();
  const db = stack.db.db;
  orgId = (await ensureLocalOrganization(db)).id;
  project = await createProject(db, orgId, { name: "Storefront" });
  token = (
    await createApiToken(db, orgId, {
      name: "CI",
      scopes: ["runs:read", "runs:write", "config:read", "config:write"],
      createdById: stack.user.id,
    })
  ).token;
});

afterAll(async () => {
  await stack?.close();
});

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function benchboard(args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith("BENCHBOARD_") || key.startsWith("GITHUB_")) delete env[key];
  }
  Object.assign(env, {
    BENCHBOARD_URL: stack.baseUrl,
    BENCHBOARD_TOKEN: token,
    BENCHBOARD_STATE_FILE: path.join(work, "last-run.json"),
  });
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { cwd: FIXTURES, timeout: 90_000, env }, (err, stdout, stderr) => {
      if (err && typeof err.code !== "number") reject(err);
      else resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
    });
  });
}

const shot = (name: string) => stack.page.screenshot({ path: path.join(screenshotsDir, name), fullPage: true });

describe("real tool output", () => {
  it("imports ab's output with its ERROR blocks in the browser, keeping them as the run's notes", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/runs/upload`);
    await page.getByRole("heading", { name: "Upload results" }).waitFor();
    await page.getByLabel("File", { exact: true }).setInputFiles(path.join(FIXTURES, "ab/unreliable-error.txt"));
    await page.getByLabel("Project", { exact: true }).selectOption({ label: "Storefront" });
    await page.getByRole("button", { name: "Upload" }).click();
    await page.waitForURL((url) => /^\/runs\/[a-z0-9]+$/.test(url.pathname) && url.pathname !== "/runs/upload");
    const notes = page.getByLabel("Notes", { exact: true });
    await notes.waitFor();
    expect(await notes.inputValue()).toContain(
      "ab: ERROR: The median and mean for the processing time are more than twice the standard deviation apart. These results are NOT reliable.",
    );
    await shot("run-ab-unreliable.png");
    const id = new URL(page.url()).pathname.split("/").pop()!;
    const run = await stack.db.db.run.findUniqueOrThrow({ where: { id }, include: { result: true } });
    expect(run.source).toBe("import:ab");
    expect(run.result?.metrics).toEqual(
      importRun("ab", readFileSync(path.join(FIXTURES, "ab/unreliable-error.txt"), "utf8")).result.metrics,
    );
  });

  it("imports hey 0.1.5 and ab's WARNING output with the CLI, exit 0", async () => {
    const hey = await benchboard(["upload", "hey-0.1.5/mixed.txt", "--project", project.slug, "--scenario", "hey"]);
    expect(hey.stderr).toBe("");
    expect(hey.code).toBe(0);
    expect(hey.stdout).toMatch(/^Stored Run #\d+ · hey \(import:hey\) in Storefront: /);
    const heyRun = await stack.db.db.run.findFirstOrThrow({
      where: { projectId: project.id, source: "import:hey" },
      include: { result: true },
    });
    expect(heyRun.result?.metrics).toMatchObject({ requests: 2000, latency_p50: 0.6, latency_p99: 8.5 });

    const ab = await benchboard(["upload", "ab/unreliable-warning.txt", "--project", project.slug]);
    expect(ab.code).toBe(0);
    const abRun = await stack.db.db.run.findFirstOrThrow({
      where: { projectId: project.id, source: "import:ab", scenarioName: "ab" },
      orderBy: { createdAt: "desc" },
    });
    expect(abRun.notes).toContain("ab: WARNING: The median and mean for the waiting time are not within a normal");
  });
});

describe("invitations and links between organizations", () => {
  it("lands an invitee in the inviting organization, with no organization of their own", async () => {
    const db = stack.db.db;
    await createProject(db, orgId, { name: "Team dashboard" });
    const { token: invite } = await createInvitation(db, orgId, {
      email: "vera@example.com",
      role: "viewer",
      invitedById: stack.user.id,
    });
    const orgsBefore = await db.organization.count();
    const context = await stack.browser.newContext({ viewport: { width: 1400, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${stack.baseUrl}/invite/${invite}`);
      await page.getByText("You are invited to").waitFor();
      await page.screenshot({ path: path.join(screenshotsDir, "invite.png") });
      await page.getByRole("link", { name: "Create account" }).click();
      await page.getByLabel("Name", { exact: true }).fill("Vera Viewer");
      await page.getByLabel("Password", { exact: true }).fill("a long password 7");
      expect(await page.getByLabel("Email", { exact: true }).inputValue()).toBe("vera@example.com");
      await page.getByRole("button", { name: "Create account" }).click();
      await page.waitForURL((url) => url.pathname === "/");
      await page.getByRole("link", { name: "Team dashboard" }).first().waitFor();
      await page.screenshot({ path: path.join(screenshotsDir, "invitee-landing.png") });
      const vera = await db.user.findUniqueOrThrow({ where: { email: "vera@example.com" } });
      const memberships = await db.membership.findMany({
        where: { userId: vera.id, org: { demo: false } },
        select: { orgId: true, role: true },
      });
      expect(memberships).toEqual([{ orgId, role: "viewer" }]);
      expect(await db.organization.count()).toBe(orgsBefore);
    } finally {
      await context.close();
    }
  });

  it("offers to switch to the organization of a teammate's run link", async () => {
    const db = stack.db.db;
    const side = await db.organization.create({ data: { name: "Side team", slug: "side-team" } });
    await db.membership.create({ data: { orgId: side.id, userId: stack.user.id, role: "member" } });
    const sideProject = await createProject(db, side.id, { name: "Side project" });
    const { run } = await createUploadedRun(db, side.id, {
      projectId: sideProject.id,
      source: "import:hey",
      scenarioName: "side run",
      result: importRun("hey", readFileSync(path.join(FIXTURES, "hey-0.1.5/mixed.txt"), "utf8")).result,
    });
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/runs/${run.id}`);
    await page.getByRole("heading", { name: "This run belongs to Side team" }).waitFor();
    await shot("run-other-organization.png");
    await page.getByRole("button", { name: "Switch to Side team" }).click();
    await page.getByText(`Run #${run.number} ·`).waitFor();
    await page.getByText("scenario “side run”").waitFor();
    expect(new URL(page.url()).pathname).toBe(`/runs/${run.id}`);
    // A run nobody here can see says so without a field name.
    await page.goto(`${baseUrl}/runs/does-not-exist`);
    await page.getByText("There is no such run in your organizations").waitFor();
    expect(await page.getByText("id: run not found").count()).toBe(0);
    // Back to the install's organization for the tests after this one.
    await page.context().addCookies([{ name: "bb_org", value: "local", url: baseUrl }]);
  });
});

describe("configuration as code", () => {
  it("applies a file all or nothing: a refused item leaves the project as it was; a new slug creates the project", async () => {
    const good = path.join(work, "benchboard.yml");
    writeFileSync(
      good,
      [
        "version: 1",
        `project: ${project.slug}`,
        "thresholds:",
        "  - { metric: latency_p99, op: '<', value: 250 }",
        "scenarios:",
        "  - name: checkout 50 rps",
        "    spec: { engine: http-open, rate: 50, durationS: 10 }",
      ].join("\n"),
    );
    const applied = await benchboard(["apply", "-f", good]);
    expect(applied.code, applied.stderr).toBe(0);

    const bad = path.join(work, "half.yml");
    writeFileSync(
      bad,
      [
        "version: 1",
        `project: ${project.slug}`,
        "thresholds:",
        "  - { metric: latency_p99, op: '<', value: 999 }",
        "scenarios:",
        "  - name: checkout 50 rps",
        "    spec: { engine: http-open, rate: 75, durationS: 10 }",
        "  - name: half applied",
        "    spec: { engine: http-open, rate: 10, durationS: 5 }",
        "targets:",
        "  - { name: metadata, kind: http, baseUrl: 'http://169.254.169.254/' }",
      ].join("\n"),
    );
    const plan = await benchboard(["apply", "-f", bad, "--dry-run"]);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain('target "metadata"');
    const refused = await benchboard(["apply", "-f", bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('target "metadata"');

    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/projects/${project.id}/scenarios`);
    await page.getByText("checkout 50 rps").first().waitFor();
    expect(await page.getByText("half applied").count()).toBe(0);
    await shot("apply-refused-unchanged.png");
    const scenario = await stack.db.db.scenario.findFirstOrThrow({
      where: { projectId: project.id, name: "checkout 50 rps" },
    });
    expect((scenario.spec as { rate: number }).rate).toBe(50);
    expect(await stack.db.db.target.count({ where: { projectId: project.id } })).toBe(0);
    expect((await stack.db.db.project.findUniqueOrThrow({ where: { id: project.id } })).thresholds as unknown).toEqual([
      { metric: "latency_p99", op: "<", value: 250 },
    ]);

    const fresh = path.join(work, "fresh.yml");
    writeFileSync(
      fresh,
      [
        "version: 1",
        "project: payments-api",
        "projectName: Payments API",
        "scenarios:",
        "  - name: pay 20 rps",
        "    spec: { engine: http-open, rate: 20, durationS: 5 }",
      ].join("\n"),
    );
    const created = await benchboard(["apply", "-f", fresh]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain("+ create project payments-api");
    await page.goto(`${baseUrl}/`);
    await page.getByRole("link", { name: "Payments API" }).first().waitFor();
    await shot("apply-created-project.png");
  });
});

describe("a stranger's first steps and what a team expects", () => {
  it("starts a new target empty and a new scenario within the organization's caps", async () => {
    const db = stack.db.db;
    const { page, baseUrl } = stack;
    await db.organization.update({ where: { id: orgId }, data: { caps: { maxConnections: 200, maxDurationS: 300 } } });
    try {
      await page.goto(`${baseUrl}/projects/${project.id}/targets/new`);
      const baseUrlField = page.getByLabel("Base URL", { exact: true });
      await baseUrlField.waitFor();
      expect(await baseUrlField.inputValue()).toBe("");
      expect(await baseUrlField.getAttribute("placeholder")).toBe("https://staging.example.com");
      await shot("target-new-empty.png");

      await page.goto(`${baseUrl}/projects/${project.id}/scenarios/new`);
      const connections = page.getByLabel("Max connections", { exact: true });
      await connections.waitFor();
      expect(await connections.inputValue()).toBe("200");
      await shot("scenario-new-within-caps.png");
    } finally {
      await db.organization.update({ where: { id: orgId }, data: { caps: {} } });
    }
  });

  it("asks before revoking a token or an invitation, and copies an invitation link", async () => {
    const { page, baseUrl } = stack;
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
    await page.goto(`${baseUrl}/settings/members`);
    await page.getByLabel("Email", { exact: true }).fill("nia@example.com");
    await page.getByRole("button", { name: "Create invitation" }).click();
    const link = (await page.getByLabel("Invitation link").textContent())?.trim() ?? "";
    await page.getByRole("button", { name: "Copy link" }).click();
    await page.getByText("Copied").first().waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);

    const pending = page.getByRole("list", { name: "Pending invitations" });
    await pending.getByRole("button", { name: "Revoke" }).first().click();
    const dialog = page.getByRole("alertdialog", { name: "Revoke this invitation?" });
    await dialog.waitFor();
    await shot("settings-revoke-confirm.png");
    // Dismissing changes nothing.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await stack.db.db.invitation.count({ where: { email: "nia@example.com" } })).toBe(1);
    await pending.getByRole("button", { name: "Revoke" }).first().click();
    await dialog.getByRole("button", { name: "Revoke invitation" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await stack.db.db.invitation.count({ where: { email: "nia@example.com" } })).toBe(0);

    // The CI token made earlier: revoking asks first too.
    await page.goto(`${baseUrl}/settings/tokens`);
    await page
      .getByRole("table", { name: "API tokens" })
      .getByRole("row", { name: /^CI / })
      .getByRole("button", { name: "Revoke" })
      .click();
    const tokenDialog = page.getByRole("alertdialog", { name: 'Revoke the token "CI"?' });
    await tokenDialog.waitFor();
    await tokenDialog.getByRole("button", { name: "Revoke token" }).click();
    await tokenDialog.waitFor({ state: "detached" });
    expect((await stack.db.db.apiToken.findFirstOrThrow({ where: { name: "CI" } })).revokedAt).not.toBeNull();
  });
});

describe("runs that look alike", () => {
  it("labels runs by what they ran in the runs list and in the compare picker", async () => {
    const db = stack.db.db;
    const labels = await db.project.create({ data: { orgId, name: "Gateway sizes", slug: "gateway-sizes" } });
    const spec = { engine: "http-open", spec: { engine: "http-open", rate: 5000, durationS: 60 } };
    for (const [number, instanceType] of [
      [1, "t3.medium"],
      [2, "t3.xlarge"],
    ] as const) {
      const run = await db.run.create({
        data: {
          orgId,
          projectId: labels.id,
          number,
          status: "succeeded",
          scenarioName: "5k rps",
          scenarioSnapshot: spec,
          configSnapshot: { name: `gateway ${instanceType}`, instanceType },
          startedAt: new Date(),
          endedAt: new Date(),
        },
      });
      // The larger instance's run is invalid: every list says so beside "succeeded".
      await db.runResult.create({
        data: {
          runId: run.id,
          metrics: { rps: 4990 + number },
          ...(number === 2 ? { valid: false, invalidReasons: ["the load generator fell behind its schedule"] } : {}),
        },
      });
    }
    const { page, baseUrl } = stack;
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.goto(`${baseUrl}/runs?projectId=${labels.id}`);
    await page.getByText("5,000 req/s · 60 s · t3.medium").waitFor();
    await page.getByText("5,000 req/s · 60 s · t3.xlarge").waitFor();
    await shot("runs-labels.png");

    await page.goto(`${baseUrl}/compare`);
    await page.getByLabel("Add runs").fill("5k rps");
    const picker = page.getByRole("table", { name: "Runs to add" });
    await picker.getByText("5,000 req/s · 60 s · t3.xlarge").waitFor();
    await picker.getByText("5,000 req/s · 60 s · t3.medium").waitFor();
    const invalidRow = picker.getByRole("row").filter({ hasText: "t3.xlarge" });
    await invalidRow.getByText("invalid", { exact: true }).waitFor();
    expect(await picker.getByRole("row").filter({ hasText: "t3.medium" }).getByText("invalid").count()).toBe(0);
    await shot("compare-picker-labels.png");
    await page.setViewportSize({ width: 1440, height: 1000 });
  });

  it("filters a trend by config and load, and says a change point is a config switch", async () => {
    const db = stack.db.db;
    const trendProject = await db.project.create({ data: { orgId, name: "Trend configs", slug: "trend-configs" } });
    const spec = { engine: "http-open", spec: { engine: "http-open", rate: 5000, durationS: 60 } };
    for (let i = 0; i < 16; i++) {
      const instanceType = i < 8 ? "t3.medium" : "t3.xlarge";
      const run = await db.run.create({
        data: {
          orgId,
          projectId: trendProject.id,
          number: i + 1,
          status: "succeeded",
          scenarioName: "5k",
          branch: "main",
          scenarioSnapshot: spec,
          configSnapshot: { name: `gw ${instanceType}`, instanceType },
          createdAt: new Date(Date.UTC(2026, 9, 1 + i)),
          startedAt: new Date(Date.UTC(2026, 9, 1 + i)),
        },
      });
      await db.runResult.create({ data: { runId: run.id, metrics: { rps: (i < 8 ? 4000 : 5000) + (i % 3) * 10 } } });
    }
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/trends?projectId=${trendProject.id}&scenario=5k&metric=rps`);
    const changes = page.getByRole("list", { name: "Change points" });
    await changes.getByText("the config changed here (gw t3.medium → gw t3.xlarge)").waitFor();
    await shot("trend-config-switch.png");
    await page.getByLabel("Config", { exact: true }).selectOption("gw t3.xlarge");
    await page.getByText("No change point in this history.").waitFor();
    await page.getByText("8 runs over time").waitFor();
    expect(await page.getByLabel("Load", { exact: true }).locator("option").allTextContents()).toEqual([
      "All loads",
      "5,000 req/s · 60 s",
    ]);
    await shot("trend-config-filter.png");
  });
});

describe("a chat that lasts its duration", () => {
  it("makes a chat scenario chat until its duration ends, and says what that sends", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/projects/${project.id}/scenarios/new`);
    await page.getByLabel("Scenario name").fill("chat for 20 s");
    await page.getByLabel("Engine").selectOption("ws-chat");
    const ends = page.getByLabel("Ends", { exact: true });
    expect(await ends.inputValue()).toBe("messages");
    await ends.selectOption("duration");
    await page.getByText("Users keep sending, one message per interval, until the duration ends").waitFor();
    await page.getByLabel("Users", { exact: true }).fill("100");
    await page.getByLabel("Interval between messages (ms)", { exact: true }).fill("500");
    await page.getByLabel("Duration (s)", { exact: true }).fill("20");
    // 100 users × (20 s ÷ 500 ms) messages, over the 20 s.
    const estimate = page.getByRole("definition");
    await page.getByLabel("Estimated load").getByText("4,000").waitFor();
    expect(await estimate.nth(1).textContent()).toBe("20 s");
    await shot("scenario-chat-duration.png");
    await page.getByRole("button", { name: "Create scenario" }).click();
    await page.getByRole("table", { name: "Scenarios" }).getByText("chat for 20 s").waitFor();
    const stored = await stack.db.db.scenario.findFirstOrThrow({ where: { orgId, name: "chat for 20 s" } });
    expect(stored.spec).toMatchObject({ engine: "ws-chat", users: 100, endsAfter: "duration", durationS: 20 });
  });
});

describe("trends by shard count", () => {
  it("filters a trend by shard count, and says a change point is a shard count switch", async () => {
    const db = stack.db.db;
    const shardProject = await db.project.create({ data: { orgId, name: "Trend shards", slug: "trend-shards" } });
    const spec = { engine: "http-open", spec: { engine: "http-open", rate: 5000, durationS: 60 } };
    for (let i = 0; i < 16; i++) {
      const run = await db.run.create({
        data: {
          orgId,
          projectId: shardProject.id,
          number: i + 1,
          status: "succeeded",
          scenarioName: "5k",
          branch: "main",
          shardCount: i < 8 ? 1 : 4,
          scenarioSnapshot: spec,
          configSnapshot: { name: "gw", instanceType: "t3.xlarge" },
          createdAt: new Date(Date.UTC(2026, 9, 1 + i)),
          startedAt: new Date(Date.UTC(2026, 9, 1 + i)),
        },
      });
      await db.runResult.create({ data: { runId: run.id, metrics: { rps: (i < 8 ? 3000 : 5000) + (i % 3) * 10 } } });
    }
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/trends?projectId=${shardProject.id}&scenario=5k&metric=rps`);
    const changes = page.getByRole("list", { name: "Change points" });
    await changes.getByText("the shard count changed here (1 → 4)").waitFor();
    const shards = page.getByLabel("Shards", { exact: true });
    expect(await shards.locator("option").allTextContents()).toEqual(["All shard counts", "1 shard", "4 shards"]);
    await shards.selectOption("4");
    await page.getByText("8 runs over time").waitFor();
    await page.getByText("No change point in this history.").waitFor();
    expect(new URL(page.url()).searchParams.get("shards")).toBe("4");
    await shot("trend-shard-filter.png");
  });
});

describe("repetition groups in compare", () => {
  it("shows each group's mean and spread in its column, the figures the p-value and interval come from", async () => {
    const db = stack.db.db;
    const groups = await db.project.create({ data: { orgId, name: "Repeated", slug: "repeated" } });
    const spec = { engine: "http-open", spec: { engine: "http-open", rate: 500, durationS: 30 } };
    // Three repetitions on each side; the first run of each is NOT its group's mean.
    const before = { latency_mean: [10.4, 9.1, 9.8], rps: [499.1, 498.2, 499.6] };
    const after = { latency_mean: [13.0, 14.6, 15.1], rps: [497.9, 499.0, 498.4] };
    const firstIds: string[] = [];
    let number = 0;
    for (const [g, values] of [before, after].entries()) {
      for (let i = 0; i < 3; i++) {
        const run = await db.run.create({
          data: {
            orgId,
            projectId: groups.id,
            number: ++number,
            status: "succeeded",
            scenarioName: "steady 500",
            scenarioSnapshot: spec,
            configSnapshot: { name: "gw", instanceType: g === 0 ? "t3.medium" : "t3.xlarge" },
            groupId: `repeated-${g}`,
            groupIndex: i,
            createdAt: new Date(Date.UTC(2026, 10, 1, g, i)),
            startedAt: new Date(Date.UTC(2026, 10, 1, g, i)),
            endedAt: new Date(Date.UTC(2026, 10, 1, g, i, 30)),
          },
        });
        await db.runResult.create({
          data: { runId: run.id, metrics: { latency_mean: values.latency_mean[i]!, rps: values.rps[i]! } },
        });
        if (i === 0) firstIds.push(run.id);
      }
    }
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/compare?runs=${firstIds.join(",")}`);
    const row = page.locator('tr[data-metric="latency_mean"]');
    await row.locator("[data-ci]").waitFor();
    const [baseCell, headCell] = [row.locator("td").nth(0), row.locator("td").nth(1)];
    const sd = (v: number[]) => Math.sqrt(sampleVariance(v));
    const a = before.latency_mean;
    const b = after.latency_mean;
    // The columns show the groups' means and spreads, not the first runs (10.4 ms and 13 ms)…
    expect(await baseCell.locator("div").first().textContent()).toBe(formatMetric("latency_mean", mean(a)));
    expect(await headCell.locator("div").first().textContent()).toBe(formatMetric("latency_mean", mean(b)));
    expect(await baseCell.locator("[data-group-mean]").textContent()).toBe(
      `mean of 3 runs · ± ${formatMetric("latency_mean", sd(a))}`,
    );
    expect(await headCell.locator("[data-group-mean]").textContent()).toBe(
      `mean of 3 runs · ± ${formatMetric("latency_mean", sd(b))}`,
    );
    // …and the delta beside them is of those means, inside the interval computed from the groups.
    const delta = (mean(b) - mean(a)) / mean(a);
    const test = welchTTest(a, b)!;
    // On the log scale: a change of the geometric means, never below −100 %.
    const ci = ratioDeltaInterval(a, b)!;
    expect(ci.low).toBeLessThan(delta);
    expect(ci.high).toBeGreaterThan(delta);
    expect(await headCell.locator("[data-verdict]").textContent()).toBe(
      `${formatDeltaPct(delta)} · p=${test.pValue.toFixed(3)}`,
    );
    expect(await headCell.locator("[data-ci]").textContent()).toBe(
      `95% CI ${formatDeltaPct(ci.low)} … ${formatDeltaPct(ci.high)}`,
    );
    // The rate did not change beyond noise: the same means, said to be within noise.
    const rpsCell = page.locator('tr[data-metric="rps"] td').nth(1);
    expect(await rpsCell.locator("[data-verdict]").textContent()).toContain("within noise");
    await shot("compare-repetition-groups.png");
  });
});

describe("live view", () => {
  it("says when a run's duration is unknown or has no figures yet, and which repetition a run is", async () => {
    const db = stack.db.db;
    const live = await db.project.create({ data: { orgId, name: "Live states", slug: "live-states" } });
    const heartbeatAt = new Date();
    const groupId = "group-live-states";
    const make = (number: number, progress: object | null, groupIndex: number | null) =>
      db.run.create({
        data: {
          orgId,
          projectId: live.id,
          number,
          status: "running",
          source: number === 1 ? "exec:k6" : "launched",
          scenarioName: "steady",
          startedAt: heartbeatAt,
          heartbeatAt,
          ...(progress ? { progress } : {}),
          ...(groupIndex !== null ? { groupId, groupIndex } : {}),
        },
      });
    // A client-driven run (exec) reports figures but no end.
    const exec = await make(
      1,
      { elapsedMs: 4000, fraction: null, requests: 800, errors: 0, rps: 200, latencyP50Ms: 3, latencyP99Ms: 9 },
      null,
    );
    // The first of five repetitions, launched a moment ago: no figures yet.
    const first = await make(2, null, 0);
    for (let i = 1; i < 5; i++) {
      await db.run.create({
        data: {
          orgId,
          projectId: live.id,
          number: 2 + i,
          status: "queued",
          scenarioName: "steady",
          groupId,
          groupIndex: i,
        },
      });
    }
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/runs/${exec.id}`);
    await page.getByText("duration unknown: the tool reports no end").waitFor();
    const bar = page.getByRole("progressbar", { name: "Progress" });
    expect(await bar.getAttribute("aria-valuenow")).toBeNull();
    // Indeterminate: busy, claiming no amount, and animated rather than a static part-filled bar.
    expect(await bar.getAttribute("aria-busy")).toBe("true");
    expect(await bar.getAttribute("aria-valuetext")).toBe("duration unknown: the tool reports no end");
    const fill = bar.locator("div").first();
    expect(await fill.evaluate((el) => getComputedStyle(el).animationName)).not.toBe("none");
    const barWidth = (await bar.boundingBox())!.width;
    expect((await fill.boundingBox())!.width).toBeCloseTo(barWidth, 0);
    await shot("run-live-unknown-duration.png");

    await page.goto(`${baseUrl}/runs/${first.id}`);
    await page.getByText("repetition 1 of 5").waitFor();
    await page.getByText("waiting for the first figures").waitFor();
    await shot("run-live-first-repetition.png");
    // Leave nothing running for the watchdog.
    await db.run.updateMany({ where: { projectId: live.id }, data: { status: "canceled", endedAt: new Date() } });
  });
});
