import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// The web app restarts while a page follows a live run, behind a reverse proxy that answers 502
// while the app is down (as nginx does): the page says it is reconnecting, then follows the run
// again without a reload. The worker is untouched, so the run itself goes on throughout.
let stack: Stack;
let target: http.Server;
let targetUrl: string;

beforeAll(async () => {
  target = http.createServer((_req, res) => setTimeout(() => res.end("ok"), 20));
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await startStack({ proxy: true });
});

afterAll(async () => {
  await stack?.close();
  target?.close();
});

describe("live run page across a web app restart", () => {
  it("shows reconnecting while the app is down, then resumes following the run", async () => {
    const { page, baseUrl } = stack;
    const db = stack.db.db;
    const org = await db.organization.findUniqueOrThrow({ where: { slug: "local" } });
    const project = await db.project.create({ data: { orgId: org.id, name: "Restart", slug: "restart" } });
    const t = await db.target.create({
      data: { orgId: org.id, projectId: project.id, name: "svc", kind: "http", baseUrl: targetUrl },
    });
    const scenario = await db.scenario.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        name: "closed 40 s",
        engine: "http-closed",
        spec: {
          engine: "http-closed",
          concurrency: 4,
          durationS: 40,
          rampUpS: 0,
          timeoutMs: 5000,
          request: { method: "GET", path: "/", headers: {} },
        },
      },
    });
    await page.goto(`${baseUrl}/projects/${project.id}/launch?targetId=${t.id}&scenarioId=${scenario.id}`);
    await page.getByRole("button", { name: /^Launch/ }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
    const runId = page.url().split("/").pop() ?? "";
    const requestsCell = page.locator("dl[aria-label='Live figures'] div", { hasText: "Requests" }).locator("dd");
    const requests = async () => Number((await requestsCell.textContent())?.replace(/,/g, ""));
    await page.getByText("● live").waitFor({ timeout: 20_000 });
    await requestsCell.waitFor();
    const before = await requests();

    // The web app dies mid-run and comes back 5 s later; the proxy answers 502 meanwhile.
    const restarting = stack.restartWeb({ downMs: 5_000 });
    await page.getByText("○ reconnecting…").waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(screenshotsDir, "run-live-reconnecting.png"), fullPage: true });
    await restarting;

    // The same page, never reloaded, follows the run again: live, with figures moving on.
    // "● live" shows once the stream is open again; the figures move with its first event after.
    await page.getByText("● live").waitFor({ timeout: 30_000 });
    await expect.poll(requests, { timeout: 10_000 }).toBeGreaterThan(before);
    const resumedAt = await requests();
    await page.waitForTimeout(2_500);
    expect(await requests()).toBeGreaterThan(resumedAt);
    await page.locator('[data-status="succeeded"]').waitFor({ timeout: 60_000 });
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe("succeeded");
  });
});
