import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { seedPublishedDemo } from "@benchboard/db/seed";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// The result views in the browser: the published benchmarks seeded as the demo organization,
// a sweep launched against a live HTTP target that takes its knobs over PUT /admin/config, a
// comparison built from the run list, and a share link created, opened signed out and revoked.
let stack: Stack;
let target: http.Server;
let targetUrl: string;
/** Every config the target was sent, in order. */
const applied: Record<string, unknown>[] = [];
let poolSize: unknown = null;
const servedAt = new Map<unknown, number>();

beforeAll(async () => {
  target = http.createServer((req, res) => {
    if (req.method === "PUT" && req.url === "/admin/config") {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        const knobs = JSON.parse(body) as Record<string, unknown>;
        applied.push(knobs);
        poolSize = knobs.pool_size;
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ applied: knobs }));
      });
      return;
    }
    // The hook reports the config in effect, which each run records.
    if (req.method === "GET" && req.url === "/admin/config") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(applied.at(-1) ?? {}));
      return;
    }
    // Requests are counted per applied pool size, so each run's load is tied to its value.
    servedAt.set(poolSize, (servedAt.get(poolSize) ?? 0) + 1);
    // Slow enough that each run spans a few seconds of per-second series.
    setTimeout(() => res.end("ok"), 40);
  });
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await startStack();
  await seedPublishedDemo(stack.db.db);
});

afterAll(async () => {
  await stack?.close();
  target?.close();
});

async function useOrg(slug: string) {
  await stack.page.context().addCookies([{ name: "bb_org", value: slug, url: stack.baseUrl, sameSite: "Lax" }]);
}

async function shot(name: string) {
  await stack.page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage: true });
}

describe("published benchmarks (demo organization)", () => {
  it("opens a seed comparison and reads its deltas, with the disagreements flagged", async () => {
    const { page, baseUrl } = stack;
    await useOrg("demo");
    await page.goto(`${baseUrl}/compare`);
    await page.getByRole("link", { name: "t3.xlarge against t3.medium (t3.xlarge page)" }).click();
    await page.waitForURL(/\/compare\/[a-z0-9]+$/);
    const table = page.getByRole("table", { name: "Comparison" });
    const latency = table.locator('tr[data-metric="latency_mean"]');
    await latency.waitFor();
    // (1.61 s − 2.12 s) / 2.12 s, better because latency is lower-is-better.
    await expect(latency.locator('[data-verdict="better"]').textContent()).resolves.toBe("−24.1%");
    await expect(latency.locator('[data-published-status="match"]').last().textContent()).resolves.toContain(
      "published -24%",
    );
    const overhead = table.locator('tr[data-metric="gateway_overhead"]');
    await expect(overhead.textContent()).resolves.toContain("13.9 µs");
    await expect(overhead.locator('[data-published-status="mismatch"]').first().textContent()).resolves.toContain(
      "published 11 µs",
    );
    const published = page.getByRole("table", { name: "Published figures" });
    const peakMemory = published.locator('tr[data-status="mismatch"]', { hasText: "Peak Memory Usage" });
    await expect(peakMemory.textContent()).resolves.toMatch(/\+155%.*\+154\.5%/);
    await shot("compare-published");

    await page.goto(`${baseUrl}/compare`);
    await page.getByRole("link", { name: "t3.medium against t3.xlarge (t3.medium page)" }).click();
    const queue = page.getByRole("table", { name: "Stage breakdown" }).locator('tr[data-stage="stage.queue_wait"]');
    await expect(queue.locator('[data-verdict="worse"]').textContent()).resolves.toBe("Δ +2722.2%");
    await expect(queue.locator('[data-published-status="mismatch"]').textContent()).resolves.toContain("+96% slower");
  });

  it("reproduces the chat log's worker sweep and keeps Run 18 out of the pool sweep", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/sweeps`);
    await page.getByRole("link", { name: "Worker sweep (Runs 8–11)" }).click();
    const summary = page.getByRole("table", { name: "Sweep summary" });
    await summary.waitFor();
    const rows = summary.locator("tbody tr");
    await expect(rows.count()).resolves.toBe(4);
    await expect(rows.nth(1).textContent()).resolves.toMatch(/20.*#8.*2,091\.67 msg\/s.*✓ yes.*★ best/);
    await expect(rows.nth(3).textContent()).resolves.toMatch(/80.*#10.*✗ Peak queue depth < 1,000/);
    await shot("sweep-published");

    await page.goto(`${baseUrl}/sweeps`);
    await page.getByRole("link", { name: "Pool sweep (Runs 12–17)" }).click();
    const excluded = page.locator('tr[data-excluded="true"]');
    await expect(excluded.textContent()).resolves.toMatch(/1,024.*#18.*excluded: Anomalous/);
    await expect(
      page.getByRole("table", { name: "Sweep summary" }).locator("tbody tr", { hasText: "★ best" }).textContent(),
    ).resolves.toMatch(/^16/);
  });

  it("trends the chat service's throughput without the runs its sweeps varied", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/trends`);
    await page.getByLabel("Project").selectOption({ label: "Chat service (WebSocket + RabbitMQ)" });
    await page.getByLabel("Metric").selectOption("throughput");
    await page.getByRole("figure", { name: "Trend" }).locator(".recharts-line").first().waitFor();
    // Runs 8–18 and 23–25 belong to sweeps (workers, pool size, servers): the trend keeps the other 11.
    await page.getByText(/^11 runs over time, oldest first; sweep runs are left out/).waitFor();
    await expect(page.getByText("None of these runs is excluded.").isVisible()).resolves.toBe(true);
    await shot("trends");
  });

  it("shows an imported run with its published figures checked", async () => {
    const { page, baseUrl } = stack;
    const run = await stack.db.db.run.findFirstOrThrow({ where: { project: { slug: "llm-gateway" }, number: 2 } });
    await page.goto(`${baseUrl}/runs/${run.id}`);
    const figures = page.getByRole("table", { name: "Published figures" });
    await expect(figures.locator('tr[data-status="mismatch"]').first().textContent()).resolves.toMatch(
      /11 µs.*13\.9 µs/,
    );
    await expect(page.getByRole("table", { name: "Stage breakdown" }).textContent()).resolves.toContain("Queue wait");
    await expect(page.getByTestId("overhead-sum").textContent()).resolves.toBe("13.9 µs");
    await shot("run-imported");
  });
});

describe("sweeps, comparisons and sharing in the local organization", () => {
  let projectName: string;

  /**
   * A project with the test's knob target (taking configs over PUT /admin/config), one closed
   * scenario and an instance config, then a sweep of knobs.pool_size launched from the form.
   */
  async function launchSweep(o: {
    project: { name: string; slug: string };
    targetName: string;
    scenarioName: string;
    spec: Record<string, string | number>;
    knobs: Record<string, string | number>;
    sweepName: string;
    values: string;
  }) {
    const { page, baseUrl, db } = stack;
    await useOrg("local");
    const org = await db.db.organization.findUniqueOrThrow({ where: { slug: "local" } });
    const project = await db.db.project.create({ data: { orgId: org.id, ...o.project } });
    const owned = { orgId: org.id, projectId: project.id };
    await db.db.target.create({
      data: {
        ...owned,
        name: o.targetName,
        kind: "http",
        baseUrl: targetUrl,
        configApplyUrl: `${targetUrl}/admin/config`,
      },
    });
    await db.db.scenario.create({ data: { ...owned, name: o.scenarioName, engine: "http-closed", spec: o.spec } });
    await db.db.instanceConfig.create({ data: { ...owned, name: "local", vcpu: 2, knobs: o.knobs } });

    await page.goto(`${baseUrl}/sweeps`);
    const form = page.getByRole("form", { name: "New sweep" });
    await form.getByLabel("Project").selectOption({ label: o.project.name });
    await form.getByLabel("Target", { exact: true }).selectOption({ label: o.targetName });
    await form.getByLabel("Instance config (optional)").selectOption({ label: "local" });
    await form.getByLabel("Sweep name").fill(o.sweepName);
    await form.getByLabel("Parameter").fill("knobs.pool_size");
    await form.getByLabel("Values").fill(o.values);
    await form.getByRole("button", { name: "Launch sweep" }).click();
    await page.waitForURL(/\/sweeps\/[a-z0-9]+$/);
  }

  it("launches a sweep of a knob over three values against a live target", async () => {
    const { page, db } = stack;
    projectName = "Sweep demo";
    await launchSweep({
      project: { name: projectName, slug: "sweep-demo" },
      targetName: "knob server",
      scenarioName: "closed 4×300",
      spec: { engine: "http-closed", concurrency: 4, requests: 300 },
      knobs: { pool_size: 4, mode: "fast" },
      sweepName: "pool size 8–32",
      values: "8, 16, 32",
    });
    await page.locator('h1 [data-status="succeeded"]').waitFor({ timeout: 90_000 });

    const sweepId = page.url().split("/").pop()!;
    const runs = await db.db.run.findMany({
      where: { sweepId },
      orderBy: { groupIndex: "asc" },
      select: {
        status: true,
        configSnapshot: true,
        serverConfig: true,
        sweepValue: true,
        startedAt: true,
        endedAt: true,
      },
    });
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(runs.map((r) => (r.configSnapshot as { knobs: unknown }).knobs)).toEqual([
      { pool_size: 8, mode: "fast" },
      { pool_size: 16, mode: "fast" },
      { pool_size: 32, mode: "fast" },
    ]);
    // The target received each value, in order, and served each run's load under it.
    expect(applied).toEqual([
      { pool_size: 8, mode: "fast" },
      { pool_size: 16, mode: "fast" },
      { pool_size: 32, mode: "fast" },
    ]);
    expect([servedAt.get(8), servedAt.get(16), servedAt.get(32)]).toEqual([300, 300, 300]);
    // Each run recorded the config the target reported in effect.
    expect(runs.map((r) => (r.serverConfig as { pool_size?: unknown } | null)?.pool_size)).toEqual([8, 16, 32]);
    // Back to back: each run started after the previous one ended.
    expect(runs[1]!.startedAt!.getTime()).toBeGreaterThanOrEqual(runs[0]!.endedAt!.getTime());
    expect(runs[2]!.startedAt!.getTime()).toBeGreaterThanOrEqual(runs[1]!.endedAt!.getTime());

    const rows = page.getByRole("table", { name: "Sweep summary" }).locator("tbody tr");
    await expect(rows.count()).resolves.toBe(3);
    await expect(rows.locator("td:first-child").allTextContents()).resolves.toEqual(["8", "16", "32"]);
    await expect(page.getByRole("table", { name: "Sweep summary" }).textContent()).resolves.toContain("★ best");
    await shot("sweep");
  });

  it("builds a comparison from the run list and saves it", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/runs`);
    await page.getByLabel(`Select run #1 of ${projectName}`).check();
    await page.getByLabel(`Select run #3 of ${projectName}`).check();
    await page.getByRole("link", { name: "Compare 2 runs" }).click();
    await page.waitForURL(/\/compare\?runs=[a-z0-9]+,[a-z0-9]+$/);
    const table = page.getByRole("table", { name: "Comparison" });
    await table.locator('tr[data-metric="requests"]').waitFor();
    await expect(table.locator('tr[data-metric="requests"]').textContent()).resolves.toContain("300");

    // The pool size is the only configuration difference.
    const diff = page.getByRole("table", { name: "Configuration differences" });
    await expect(diff.locator("tbody tr").allTextContents()).resolves.toEqual(["config.knobs.pool_size832"]);

    // Make the second run the baseline: the first column then carries the delta.
    // The choice lives in the URL, so the radio only turns on once the page has navigated.
    await page.getByRole("list", { name: "Chosen runs" }).getByRole("radio").nth(1).click();
    await page.waitForURL(/baseline=/);
    await page.getByRole("figure", { name: "Latency p99" }).locator(".bb-chart-line").first().waitFor();
    await page.getByLabel("Save as").fill("pool 8 vs 32");
    await page.getByRole("button", { name: "Save comparison" }).click();
    await page.waitForURL(/\/compare\/[a-z0-9]+$/);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("pool 8 vs 32");
    await expect(page.locator("th", { hasText: "baseline" }).textContent()).resolves.toContain("#3");
    await shot("compare");
  });

  it("shares the comparison by link, readable signed out, and revokes it", async () => {
    const { page, baseUrl } = stack;
    await page.getByRole("button", { name: "Create share link" }).click();
    const urlInput = page.getByLabel("Share link URL");
    await urlInput.waitFor();
    const shareUrl = await urlInput.inputValue();
    expect(shareUrl).toMatch(new RegExp(`^${baseUrl}/share/[A-Za-z0-9_-]{43}$`));

    // A fresh browser context: no session cookie, no organization.
    const visitor = await stack.browser.newContext({ viewport: { width: 1440, height: 1000 } });
    try {
      const anon = await visitor.newPage();
      const res = await anon.goto(shareUrl);
      expect(res?.status()).toBe(200);
      await expect(anon.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("pool 8 vs 32");
      await anon.getByRole("table", { name: "Comparison" }).locator('tr[data-metric="requests"]').waitFor();
      // Nothing on a shared page leads into the app.
      expect(await anon.locator("nav").count()).toBe(0);
      const hrefs = await anon.locator("a[href]").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
      expect(hrefs).toEqual([]);
      await anon.screenshot({ path: path.join(screenshotsDir, "share.png"), fullPage: true });

      await page.getByRole("button", { name: "Revoke" }).click();
      await page
        .getByRole("alertdialog", { name: "Revoke this share link?" })
        .getByRole("button", { name: "Revoke link" })
        .click();
      await page.getByText("No active links.").waitFor();
      const gone = await anon.goto(shareUrl);
      expect(gone?.status()).toBe(404);
      const body = await anon.content();
      for (const leak of ["pool 8 vs 32", projectName, "knob server", "My team", "closed 4×300"]) {
        expect(body).not.toContain(leak);
      }
      const unknown = await fetch(`${baseUrl}/share/${"x".repeat(43)}`);
      expect(unknown.status).toBe(404);
    } finally {
      await visitor.close();
    }
  });

  it("edits a run's notes and excludes it with a reason", async () => {
    const { page, baseUrl, db } = stack;
    const run = await db.db.run.findFirstOrThrow({ where: { project: { slug: "sweep-demo" }, number: 2 } });
    await page.goto(`${baseUrl}/runs/${run.id}`);
    await page.getByRole("figure", { name: "Achieved rate (req/s)" }).locator(".bb-chart-line").first().waitFor();
    await page.getByLabel("Notes", { exact: true }).fill("pool 16: steady");
    await page.getByLabel("Exclude from sweeps and trends").check();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(page.locator("#run-excluded-reason-error").textContent()).resolves.toContain("say why");
    await page.getByLabel("Why is it excluded?").fill("laptop went to sleep");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Excluded from sweeps and trends:").waitFor();
    const stored = await db.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(stored).toMatchObject({ notes: "pool 16: steady", excluded: true, excludedReason: "laptop went to sleep" });

    const exported = await page.request.get(`${baseUrl}/runs/${run.id}/export?format=series-csv`);
    expect(exported.status()).toBe(200);
    expect((await exported.text()).split("\r\n")[0]).toMatch(/^time,elapsed_s,.*rps/);
    await shot("run-detail");
  });
  it("shows a running sweep's progress and cancels it, keeping what the running value measured", async () => {
    const { page, db } = stack;
    await launchSweep({
      project: { name: "Cancel demo", slug: "cancel-demo" },
      targetName: "slow knob server",
      scenarioName: "closed 2 for 30 s",
      spec: { engine: "http-closed", concurrency: 2, durationS: 30 },
      knobs: { pool_size: 1 },
      sweepName: "pool size 101–103",
      values: "101, 102, 103",
    });
    const sweepId = page.url().split("/").pop()!;

    await page.getByRole("progressbar", { name: "0 of 3 runs finished" }).waitFor();
    // The value being measured shows how far its own run has got.
    await page.getByText(/Measuring 101 \(\d+% of this run\)/).waitFor({ timeout: 30_000 });
    await expect.poll(() => servedAt.get(101) ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);
    await shot("sweep-running");
    const appliedBefore = applied.length;
    await page.getByRole("button", { name: "Cancel sweep" }).click();
    // Canceling asks first; keeping it running changes nothing.
    const confirm = page.getByRole("alertdialog", { name: "Cancel this sweep?" });
    await confirm.getByRole("button", { name: "Keep running" }).click();
    await expect(confirm.count()).resolves.toBe(0);
    await page.getByRole("button", { name: "Cancel sweep" }).click();
    await confirm.getByRole("button", { name: "Cancel sweep" }).click();
    await page.locator('h1 [data-status="canceled"]').waitFor({ timeout: 15_000 });
    await expect(page.getByRole("progressbar").count()).resolves.toBe(0);

    const runs = await db.db.run.findMany({
      where: { sweepId },
      orderBy: { groupIndex: "asc" },
      select: { status: true, error: true, startedAt: true, result: { select: { metrics: true } } },
    });
    expect(runs.map((r) => r.status)).toEqual(["canceled", "canceled", "canceled"]);
    // The running value stopped and kept its measurements; the others never started.
    expect((runs[0]!.result?.metrics as { requests?: number } | undefined)?.requests).toBeGreaterThan(0);
    expect(runs.slice(1).map((r) => [r.error, r.startedAt])).toEqual([
      ["canceled with its sweep", null],
      ["canceled with its sweep", null],
    ]);
    // Nothing further was applied to the target or sent under the later values.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(applied.slice(appliedBefore)).toEqual([]);
    expect([servedAt.get(102), servedAt.get(103)]).toEqual([undefined, undefined]);
  });
});
