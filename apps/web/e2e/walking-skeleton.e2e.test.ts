import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// Through the browser only: create a project and an HTTP target, define a closed-model scenario,
// launch it, watch the run page go from running to its stored results.
let stack: Stack;
let target: http.Server;
let targetUrl: string;
let served = 0;

beforeAll(async () => {
  target = http.createServer((_req, res) => {
    served++;
    setTimeout(() => res.end("ok"), 3);
  });
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
  target?.close();
});

describe("walking skeleton in the browser", () => {
  it("creates a project, target and scenario, launches a run and shows its results", async () => {
    const { page, baseUrl } = stack;
    await page.goto(baseUrl);
    await page.getByText("No projects yet").waitFor();
    await page.getByLabel("Project name").fill("Example apps");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("link", { name: /Example apps/ }).click();

    // Bad input is refused at the field and nothing is saved.
    await page
      .getByRole("navigation", { name: "Project" })
      .getByRole("link", { name: /^Targets/ })
      .click();
    await page.getByRole("link", { name: "New target" }).first().click();
    await page.getByLabel("Target name").fill("light");
    await page.getByLabel("Base URL").fill("ftp://nope");
    await page.getByRole("button", { name: "Create target" }).click();
    await expect(page.getByText("must be an http:// or https:// URL").textContent()).resolves.toBeTruthy();
    expect(await stack.db.db.target.count()).toBe(0);

    await page.getByLabel("Base URL").fill(targetUrl);
    await page.getByRole("button", { name: "Create target" }).click();
    await page.getByRole("table", { name: "Targets" }).getByText("light").waitFor();

    await page
      .getByRole("navigation", { name: "Project" })
      .getByRole("link", { name: /^Scenarios/ })
      .click();
    await page.getByRole("link", { name: "New scenario" }).first().click();
    await page.getByLabel("Scenario name").fill("closed 8×400");
    await page.getByLabel("Engine").selectOption("http-closed");
    await page.getByLabel("Concurrency").fill("8");
    await page.getByLabel("Requests (iterations)").fill("400");
    await page.getByRole("button", { name: "Create scenario" }).click();
    await page.getByRole("table", { name: "Scenarios" }).getByText("closed 8×400").waitFor();

    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Launch" }).click();
    await page.getByLabel("Tags").fill("e2e, smoke");
    await page.getByRole("button", { name: "Launch run" }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
    await page.locator('[data-status="succeeded"]').waitFor({ timeout: 60_000 });

    const summary = page.getByRole("group", { name: "Requests" });
    await expect(summary.textContent()).resolves.toContain("400");
    await expect(page.getByRole("group", { name: "Success rate" }).textContent()).resolves.toContain("100.00%");
    const p50 = await page
      .getByRole("table", { name: "Latency percentiles" })
      .getByRole("row", { name: /p50/ })
      .textContent();
    expect(p50).toMatch(/\d+(\.\d+)? ms/);
    expect(served).toBe(400);
    await page.screenshot({ path: path.join(screenshotsDir, "run-page.png"), fullPage: true });

    await page.getByRole("link", { name: "Runs" }).first().click();
    await page.getByRole("table", { name: "Runs" }).getByText("#1").waitFor();
  });

  it("lists the worker that ran it on the Workers page, online, with its host and load", async () => {
    const { page, baseUrl, db } = stack;
    const run = await db.db.run.findFirstOrThrow({ select: { workerIds: true } });
    const workerId = run.workerIds[0]!;
    await page.goto(`${baseUrl}/workers`);
    const row = page.getByRole("table", { name: "Workers" }).getByRole("row", { name: new RegExp(workerId) });
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain("online");
    expect(text).toContain(os.hostname());
    expect(text).toMatch(/pid \d+/);
    expect(text).toMatch(/\d+ \/ \d+/);
    await page.screenshot({ path: path.join(screenshotsDir, "workers.png"), fullPage: true });
  });
});
