import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// Through the browser only: a project with a target (secret header, monitor tested live), an
// instance config from a preset and a cloned variant, scenarios (form and drill import), a launch
// with repetitions, the filtered run list, and bad input refused at the field with nothing saved.
const SECRET = `Bearer sk-e2e-${randomBytes(8).toString("hex")}`;
let stack: Stack;
let target: http.Server;
let targetUrl: string;
let withSecret = 0;
let withoutSecret = 0;
let projectUrl = "";

beforeAll(async () => {
  // Web app and worker read the key from the environment they inherit.
  process.env.BENCHBOARD_SECRET_KEY ??= randomBytes(32).toString("base64");
  target = http.createServer((req, res) => {
    if (req.url === "/metrics") {
      res.setHeader("content-type", "text/plain; version=0.0.4");
      res.end(
        "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes 123456789\n" +
          "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n",
      );
      return;
    }
    if (req.headers.authorization === SECRET) withSecret++;
    else withoutSecret++;
    setTimeout(() => res.end("ok"), 2);
  });
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
  target?.close();
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(screenshotsDir, name), fullPage: true });

async function textOf(locator: Locator) {
  await locator.waitFor();
  return (await locator.textContent()) ?? "";
}

async function openTab(page: Page, name: string) {
  await page
    .getByRole("navigation", { name: "Project" })
    .getByRole("link", { name: new RegExp(`^${name}`) })
    .click();
}

describe("configure and launch in the browser", () => {
  it("creates a project and a target with a secret header, tests its monitor, refuses bad input", async () => {
    const { page, baseUrl, db } = stack;
    await page.goto(baseUrl);
    // Client-rendered: the form is hydrated once it shows.
    await page.getByText("No projects yet").waitFor();
    await page.getByLabel("Project name").fill("LLM gateway");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("link", { name: /LLM gateway/ }).click();
    // The home page has its own getting-started card: wait for the project's page itself.
    await page.waitForURL(/\/projects\/[a-z0-9]+$/);
    await page.getByRole("heading", { name: "Getting started" }).waitFor();
    projectUrl = page.url();

    await openTab(page, "Targets");
    await page.getByText("No targets yet").waitFor();
    await page.getByRole("link", { name: "New target" }).first().click();

    // Bad values: refused at the fields, nothing stored.
    await page.getByLabel("Base URL").fill("ftp://nope");
    await page.getByRole("button", { name: "Create target" }).click();
    expect(await textOf(page.locator("#target-url-error"))).toBe("must be an http:// or https:// URL");
    expect(await textOf(page.locator("#target-name-error"))).toBe("name is required");
    expect(await db.db.target.count()).toBe(0);

    await page.getByLabel("Target name").fill("gateway");
    await page.getByLabel("Base URL").fill(targetUrl);
    await page.getByLabel("Overhead stages (optional)").fill("queue_wait, Key Selection");
    await page.getByRole("button", { name: "Create target" }).click();
    expect(await textOf(page.locator("#target-overhead-stages-error"))).toMatch(
      /^"Key Selection": each overhead stage is 1–64 characters/,
    );
    expect(await db.db.target.count()).toBe(0);
    await page.getByLabel("Overhead stages (optional)").fill("queue_wait, key_selection");
    await page.getByRole("button", { name: "Add header" }).click();
    await page.getByLabel("Header 1 name").fill("Authorization");
    await page.getByLabel("Header 1 value").fill(SECRET);
    await page.getByLabel("Secret (header 1)").check();
    await page.getByRole("button", { name: "Add header" }).click();
    await page.getByLabel("Header 2 name").fill("X-Team");
    await page.getByLabel("Header 2 value").fill("perf");
    await page.getByLabel("Monitor kind to add").selectOption("prometheus");
    await page.getByLabel("Metrics URL").fill(`${targetUrl}/metrics`);
    await page.getByRole("button", { name: "Test connection" }).click();
    const reading = await textOf(page.getByRole("status", { name: "Monitor 1 reading" }));
    expect(reading).toContain("Connected");
    expect(reading).toContain("117.74 MiB");
    await page.getByRole("button", { name: "Create target" }).click();

    const row = page.getByRole("table", { name: "Targets" }).getByRole("row", { name: /gateway/ });
    expect(await textOf(row)).toContain("2 (1 secret)");
    await shot(page, "targets.png");
    const stored = await db.db.target.findFirstOrThrow({ where: { name: "gateway" } });
    expect(JSON.stringify(stored.headers)).not.toContain("sk-e2e");
    expect(stored.secrets).toMatch(/^v1\./);
    expect(stored.secrets).not.toContain("sk-e2e");
    expect(stored.overheadStages).toEqual(["queue_wait", "key_selection"]);

    // The edit form shows the secret as set, never its value.
    await page.getByRole("link", { name: "Edit gateway" }).click();
    await page.getByText("•••• (set)").waitFor();
    expect(await page.getByLabel("Overhead stages (optional)").inputValue()).toBe("queue_wait, key_selection");
    expect(await page.content()).not.toContain(SECRET.slice(7));
    await page.getByRole("button", { name: "Test connection" }).click();
    await page.getByRole("status", { name: "Monitor 1 reading" }).getByText("Connected").waitFor();
    await shot(page, "target-edit.png");
    await page.getByLabel("Header 2 value").fill("perf-team");
    await page.getByRole("button", { name: "Save target" }).click();
    await page.getByRole("table", { name: "Targets" }).waitFor();
    const edited = await db.db.target.findFirstOrThrow({ where: { name: "gateway" } });
    expect(edited.headers).toEqual([
      { name: "Authorization", secret: true },
      { name: "X-Team", value: "perf-team" },
    ]);
    expect(edited.secrets).not.toBe(stored.secrets);
  });

  it("creates an instance config from a preset with typed knobs and clones a variant", async () => {
    const { page, db } = stack;
    await openTab(page, "Instance configs");
    await page.getByRole("link", { name: "New config" }).first().click();
    await page.getByLabel("Preset").selectOption("t3.medium");
    expect(await page.getByLabel("vCPU").inputValue()).toBe("2");
    expect(await page.getByLabel("Memory (GiB)").inputValue()).toBe("4");
    expect(await page.getByLabel("Config name").inputValue()).toBe("t3.medium");
    await page.getByRole("button", { name: "Add knob" }).click();
    await page.getByLabel("Knob 1 name").fill("buffer_size");
    await page.getByLabel("Knob 1 value").fill("lots");
    await page.getByRole("button", { name: "Create config" }).click();
    await page.getByText("must be a number").waitFor();
    await page.getByLabel("Knob 1 value").fill("15000");
    await page.getByLabel("Replicas").fill("0");
    await page.getByRole("button", { name: "Create config" }).click();
    expect(await textOf(page.locator("#config-replicas-error"))).toBe("at least 1");
    expect(await db.db.instanceConfig.count()).toBe(0);

    await page.getByLabel("Replicas").fill("2");
    await page.getByRole("button", { name: "Add knob" }).click();
    await page.getByLabel("Knob 2 name").fill("drop_excess_requests");
    expect(await page.getByLabel("Knob 2 type").inputValue()).toBe("boolean");
    await page.getByLabel("Knob 2 value").selectOption("true");
    await page.getByRole("button", { name: "Create config" }).click();
    await page.getByRole("table", { name: "Instance configs" }).getByText("buffer_size = 15000").waitFor();

    await page.getByRole("button", { name: "Clone t3.medium" }).click();
    await page.getByLabel("Variant name").fill("t3.medium pool 10k");
    await page.getByRole("button", { name: "Clone config" }).click();
    await page.getByRole("form", { name: "Edit instance config" }).waitFor();
    await page.getByRole("button", { name: "Add knob" }).click();
    await page.getByLabel("Knob 3 name").fill("initial_pool_size");
    await page.getByLabel("Knob 3 value").fill("10000");
    await shot(page, "config-edit.png");
    await page.getByRole("button", { name: "Save config" }).click();
    await page.getByRole("table", { name: "Instance configs" }).getByText("variant of t3.medium").waitFor();
    await shot(page, "configs.png");
    const variant = await db.db.instanceConfig.findFirstOrThrow({ where: { name: "t3.medium pool 10k" } });
    expect(variant).toMatchObject({
      vcpu: 2,
      memoryMb: 4096,
      replicas: 2,
      knobs: { buffer_size: 15_000, drop_excess_requests: true, initial_pool_size: 10_000 },
    });
  });

  it("creates scenarios from the form and from a drill plan, refusing bad values", async () => {
    const { page, db } = stack;
    await openTab(page, "Scenarios");
    await page.getByRole("link", { name: "New scenario" }).first().click();
    await page.getByLabel("Scenario name").fill("closed 4x200");
    await page.getByLabel("Engine").selectOption("http-closed");
    await page.getByLabel("Concurrency").fill("0");
    await page.getByLabel("Requests (iterations)").fill("200");
    await page.getByRole("button", { name: "Create scenario" }).click();
    expect(await textOf(page.locator("#scenario-concurrency-error"))).toBe("must be more than 0");
    expect(await db.db.scenario.count()).toBe(0);

    await page.getByLabel("Concurrency").fill("4");
    await page.getByRole("button", { name: "Add threshold" }).click();
    await page.getByLabel("Threshold 1 metric").selectOption("success_rate");
    await page.getByLabel("Threshold 1 comparison").selectOption(">=");
    await page.getByLabel("Threshold 1 value").fill("99");
    expect(await textOf(page.getByRole("definition").first())).toBe("200");
    await page.getByRole("button", { name: "Create scenario" }).click();
    await page.getByRole("table", { name: "Scenarios" }).getByText("Success rate >= 99").waitFor();

    // An open-model scenario over the organization's default rate cap (10,000 req/s) could never
    // launch: refused at its field. Within the cap it is stored.
    await page.getByRole("link", { name: "New scenario" }).first().click();
    await page.getByLabel("Scenario name").fill("open 5k");
    await page.getByLabel("Rate (requests/s)", { exact: true }).fill("50000");
    await page.getByLabel("Duration (s)", { exact: true }).fill("10");
    await page.getByRole("button", { name: "Create scenario" }).click();
    expect(await textOf(page.locator("#scenario-rate-error"))).toBe(
      "this scenario asks for 50,000 req/s; the organization allows at most 10,000 req/s",
    );
    expect(await db.db.scenario.count({ where: { name: "open 5k" } })).toBe(0);
    await page.getByLabel("Rate (requests/s)", { exact: true }).fill("5000");
    await page.getByRole("button", { name: "Create scenario" }).click();
    await page.getByRole("table", { name: "Scenarios" }).getByText("open 5k").waitFor();

    // A drill plan: a bad one is refused at the YAML field, a good one fills the form.
    await page.getByRole("link", { name: "New scenario" }).first().click();
    await page.getByText("Import a drill plan…").click();
    await page.getByLabel("Drill benchmark YAML").fill("plan:\n  - name: x\n    exec:\n      command: ls");
    await page.getByRole("button", { name: "Import plan" }).click();
    expect(await textOf(page.locator("#drill-yaml-error"))).toMatch(/exec/);
    await page
      .getByLabel("Drill benchmark YAML")
      .fill(
        [
          "base: 'http://localhost:8000'",
          "iterations: 50",
          "concurrency: 2",
          "plan:",
          "  - name: list",
          "    request:",
          "      url: /api/customers",
          "  - name: one",
          "    request:",
          "      url: /api/customers/1",
        ].join("\n"),
      );
    await page.getByRole("button", { name: "Import plan" }).click();
    await page.getByText("Imported 2 plan steps").waitFor();
    expect(await page.getByLabel("Engine").inputValue()).toBe("http-closed");
    expect(await page.getByLabel("Step 2 path").inputValue()).toBe("/api/customers/1");
    await page.getByLabel("Scenario name").fill("drill customers");
    await shot(page, "scenario-edit.png");
    await page.getByRole("button", { name: "Create scenario" }).click();
    await page.getByRole("table", { name: "Scenarios" }).getByText("drill customers").waitFor();
    await shot(page, "scenarios.png");
    const drill = await db.db.scenario.findFirstOrThrow({ where: { name: "drill customers" } });
    expect(drill.spec).toMatchObject({ engine: "http-closed", concurrency: 2, requests: 50 });
  });

  it("refuses a launch over the caps, launches repetitions and finds them in the filtered list", async () => {
    const { page, db, baseUrl } = stack;
    // The operator lowers the cap after the scenario was stored: the launch checks it again.
    const org = await db.db.organization.findUniqueOrThrow({ where: { slug: "local" } });
    await db.db.organization.update({ where: { id: org.id }, data: { caps: { maxRate: 1_000 } } });
    await page.goto(`${projectUrl}/launch`);
    const caps = await textOf(page.getByRole("definition").filter({ hasText: "req/s" }).last());
    expect(caps).toContain("1,000 req/s");

    await page.getByLabel("Target").selectOption({ label: `gateway — ${targetUrl}` });
    await page.getByLabel("Scenario", { exact: true }).selectOption({ label: "open 5k" });
    expect(await textOf(page.locator("#launch-scenario-error"))).toBe(
      "this scenario asks for 5,000 req/s; the organization allows at most 1,000 req/s",
    );
    await page.getByRole("button", { name: "Launch run" }).click();
    await page.getByLabel("Scenario", { exact: true }).selectOption({ label: "closed 4x200" });
    await page.getByLabel("Repetitions").fill("0");
    await page.getByRole("button", { name: "Launch run" }).click();
    expect(await textOf(page.locator("#launch-repetitions-error"))).toBe("at least 1");
    expect(await db.db.run.count()).toBe(0);

    await page.getByLabel("Instance config").selectOption({ label: "t3.medium pool 10k" });
    await page.getByLabel("Repetitions").fill("2");
    await page.getByLabel("Tags").fill("e2e, pool-10k");
    const estimate = await textOf(page.getByRole("definition").first());
    expect(estimate).toContain("400");
    expect(estimate).toContain("200 × 2");
    await shot(page, "launch.png");
    await page.getByRole("button", { name: "Launch 2 runs" }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);

    const until = Date.now() + 60_000;
    while ((await db.db.run.count({ where: { status: "succeeded" } })) < 2 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
    }
    const runs = await db.db.run.findMany({ orderBy: { number: "asc" } });
    expect(runs.map((r) => [r.status, r.groupIndex, r.tags])).toEqual([
      ["succeeded", 0, ["e2e", "pool-10k"]],
      ["succeeded", 1, ["e2e", "pool-10k"]],
    ]);
    expect(runs[1]!.startedAt!.getTime()).toBeGreaterThanOrEqual(runs[0]!.endedAt!.getTime());
    expect((runs[0]?.configSnapshot as { knobs: object }).knobs).toMatchObject({ initial_pool_size: 10_000 });
    // Every request of both runs carried the decrypted secret header.
    expect(withSecret).toBe(400);
    expect(withoutSecret).toBe(0);

    // A run of another scenario, so the filters have something to leave out.
    await page.goto(`${projectUrl}/launch`);
    await page.getByLabel("Scenario", { exact: true }).selectOption({ label: "drill customers" });
    await page.getByLabel("Tags").fill("drill");
    await page.getByRole("button", { name: "Launch run" }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);

    await page.goto(`${baseUrl}/runs`);
    const table = page.getByRole("table", { name: "Runs" });
    await table.getByRole("link", { name: "#3" }).waitFor();
    await page.getByLabel("Tag", { exact: true }).fill("pool-10k");
    await page.waitForURL(/tag=pool-10k/);
    await table.getByRole("link", { name: "#3" }).waitFor({ state: "detached" });
    await table.getByRole("link", { name: "#1" }).waitFor();
    expect(await table.getByRole("row").count()).toBe(3);
    await page.getByLabel("Status").selectOption("succeeded");
    await page.waitForURL(/status=succeeded/);
    await page.getByLabel("Select run #1 of LLM gateway").check();
    await page.getByLabel("Select run #2 of LLM gateway").check();
    const compare = page.getByRole("link", { name: "Compare 2 runs" });
    expect(await compare.getAttribute("href")).toBe(`/compare?runs=${runs[0]!.id},${runs[1]!.id}`);
    await shot(page, "runs.png");

    // The filters are in the URL: a reload (or a shared link) shows the same list.
    await page.reload();
    await table.getByRole("link", { name: "#1" }).waitFor();
    expect(await page.getByLabel("Tag", { exact: true }).inputValue()).toBe("pool-10k");
    expect(await table.getByRole("row").count()).toBe(3);
    await page.getByLabel("Search").fill("customers");
    await page.waitForURL(/q=customers/);
    await page.getByText("No runs match these filters").waitFor();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await table.getByRole("link", { name: "#3" }).waitFor();

    await page.goto(projectUrl);
    await page.getByRole("table", { name: "Recent runs" }).getByRole("link", { name: "#3" }).waitFor();
    await shot(page, "project-overview.png");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Launch" }).click();
    await page.getByRole("list", { name: "Projects to launch in" }).getByText("LLM gateway").waitFor();
    await shot(page, "launch-picker.png");
  });

  it("asks before deleting, and deletes only when confirmed", async () => {
    const { page, db } = stack;
    await page.goto(`${projectUrl}/scenarios`);
    await page.getByRole("button", { name: "Delete open 5k" }).click();
    const dialog = page.getByRole("alertdialog", { name: 'Delete scenario "open 5k"?' });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await db.db.scenario.count({ where: { name: "open 5k" } })).toBe(1);
    await page.getByRole("button", { name: "Delete open 5k" }).click();
    await dialog.getByRole("button", { name: "Delete scenario" }).click();
    await page.getByRole("table", { name: "Scenarios" }).getByText("open 5k").waitFor({ state: "detached" });
    expect(await db.db.scenario.count({ where: { name: "open 5k" } })).toBe(0);
    // Runs of a deleted scenario keep their snapshot.
    expect(await db.db.run.count()).toBe(3);
  });
});
