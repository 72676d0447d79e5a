import path from "node:path";
import { seedPublishedDemo } from "@benchboard/db/seed";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";
import { seedRunWithSeries } from "./seed-series-run";

// The API reference renders the served OpenAPI document; a share link is copied with one click;
// "/" searches runs from anywhere; the run page warns while a run is turning invalid; compare and
// sweep pages export what they show.
let stack: Stack;
let orgId: string;
let projectId: string;
let finishedRun: string;

beforeAll(async () => {
  stack = await startStack();
  const db = stack.db.db;
  await seedPublishedDemo(db);
  const org = await db.organization.findUniqueOrThrow({ where: { slug: "local" } });
  orgId = org.id;
  projectId = (await db.project.create({ data: { orgId, name: "Gateway", slug: "gateway" } })).id;
  finishedRun = await seedRunWithSeries(db, orgId, projectId);
});

afterAll(async () => {
  await stack?.close();
});

async function inTheme(theme: "light" | "dark", url: string, shoot: (page: Page) => Promise<void>) {
  const context = await stack.browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.addCookies([
    ...(await stack.page.context().cookies()),
    { name: "bb_theme", value: theme, url: stack.baseUrl, sameSite: "Lax" },
  ]);
  const page = await context.newPage();
  try {
    await page.goto(`${stack.baseUrl}${url}`);
    await shoot(page);
  } finally {
    await context.close();
  }
}

describe("API reference", () => {
  it("lists every operation of the served OpenAPI document with its parameters, body and answers", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/`);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API reference" }).click();
    await page.waitForURL(`${baseUrl}/api-reference`);

    const doc = (await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    const operations = Object.entries(doc.paths).flatMap(([p, item]) =>
      ["get", "post", "put", "patch", "delete"].filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${p}`),
    );
    const shown = await page
      .locator(
        "section[aria-label^='GET /'], section[aria-label^='POST /'], section[aria-label^='PUT /'], section[aria-label^='PATCH /'], section[aria-label^='DELETE /']",
      )
      .evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));
    expect(shown.sort()).toEqual(operations.sort());

    // The upload: its idempotency header, its JSON body's schema and its error answers.
    const upload = page.getByRole("region", { name: "POST /runs", exact: true });
    await expect
      .poll(() => upload.getByRole("table", { name: "Parameters" }).textContent())
      .toContain("Idempotency-Key");
    expect(await upload.textContent()).toContain("application/json");
    expect(await upload.getByRole("table", { name: "Responses" }).textContent()).toMatch(
      /400Bad input[\s\S]*names the field/,
    );

    // Every schema is on the page, and a type links to it.
    const schemaNames = Object.keys(doc.components.schemas);
    expect(await page.locator("section[aria-label^='Schema ']").count()).toBe(schemaNames.length);
    const launch = page.getByRole("region", { name: "POST /runs/launch", exact: true });
    await launch.getByRole("link", { name: "LaunchInput" }).first().click();
    await page.waitForURL(/#schema-LaunchInput$/);
    const schema = page.getByRole("region", { name: "Schema LaunchInput" });
    expect(await schema.getByRole("table", { name: "Fields" }).textContent()).toMatch(/scenario\*[\s\S]*target\*/);
  });

  it("reads in both themes", async () => {
    for (const theme of ["light", "dark"] as const) {
      await inTheme(theme, "/api-reference", async (page) => {
        await page.getByRole("region", { name: "POST /runs", exact: true }).waitFor();
        await page.screenshot({ path: path.join(screenshotsDir, `api-reference-${theme}.png`) });
      });
    }
  });
});

describe("run page", () => {
  it("draws a 30-minute run's charts from at most 600 points a line, in both themes", async () => {
    for (const theme of ["light", "dark"] as const) {
      await inTheme(theme, `/runs/${finishedRun}`, async (page) => {
        const cpu = page.locator('figure[aria-label="Target CPU (cores)"] .bb-chart-line');
        await cpu.waitFor();
        // One path point per drawn sample: the 1,800 seconds arrive reduced.
        const points = await page
          .locator('figure[aria-label="Achieved rate (req/s)"] .bb-chart-line')
          .evaluate((el) => (el.getAttribute("d")?.match(/[ML]/g) ?? []).length);
        expect(points).toBeGreaterThan(100);
        expect(points).toBeLessThanOrEqual(600);
        await page.screenshot({ path: path.join(screenshotsDir, `run-page-${theme}.png`), fullPage: true });
      });
    }
  });

  it("reads every timeline chart at the moment hovered, and moves that moment with the arrow keys", async () => {
    for (const theme of ["light", "dark"] as const) {
      await inTheme(theme, `/runs/${finishedRun}`, async (page) => {
        const rate = page.getByRole("slider", { name: "Achieved rate (req/s): time" });
        await rate.waitFor();
        // Drawn by the server: the lines are in the HTML before any script runs.
        const html = await (await page.request.get(page.url())).text();
        expect(html).toContain('class="bb-chart-line"');
        const box = (await rate.boundingBox())!;
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        // One tooltip per chart, all at the same moment (the charts share their cursor).
        const tooltips = page.getByRole("tooltip");
        await expect.poll(() => tooltips.count()).toBeGreaterThanOrEqual(5);
        const moments = new Set((await tooltips.allTextContents()).map((t) => /t = (\d+:\d\d)/.exec(t)?.[1]));
        expect(moments.size).toBe(1);
        const [moment] = [...moments];
        // Half way through a 30-minute run.
        expect(moment).toMatch(/^1[45]:\d\d$/);
        expect(await tooltips.first().textContent()).toMatch(/req\/s: [\d,]+/);
        await page.screenshot({ path: path.join(screenshotsDir, `run-timeline-hover-${theme}.png`) });
        // The keyboard: focus a chart, step right, and every chart's cursor follows.
        await page.mouse.move(0, 0);
        await expect.poll(() => tooltips.count()).toBe(0);
        await rate.focus();
        await page.keyboard.press("ArrowRight");
        await page.keyboard.press("ArrowRight");
        await expect.poll(() => rate.getAttribute("aria-valuenow")).toBe("1");
        expect(await rate.getAttribute("aria-valuetext")).toMatch(/^t = 0:0\d, req\/s [\d,.]+$/);
        await expect.poll(() => tooltips.count()).toBeGreaterThanOrEqual(5);
      });
    }
  });

  it("copies a new share link with one click", async () => {
    const { page, baseUrl } = stack;
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
    await page.goto(`${baseUrl}/runs/${finishedRun}`);
    await page.getByRole("button", { name: "Create share link" }).click();
    const url = await page.getByLabel("Share link URL").inputValue();
    expect(url).toMatch(new RegExp(`^${baseUrl}/share/[A-Za-z0-9_-]{20,}$`));
    await page.getByRole("button", { name: "Copy link" }).click();
    await expect.poll(() => page.getByText("Copied", { exact: true }).isVisible()).toBe(true);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  });

  it("warns while a running run's send lag is past the line that makes it invalid", async () => {
    const { page, baseUrl } = stack;
    const db = stack.db.db;
    const running = async (number: number, sendLagP99Ms: number) => {
      const now = new Date();
      const run = await db.run.create({
        data: {
          orgId,
          projectId,
          number,
          status: "running",
          scenarioName: "open model 5k req/s",
          startedAt: new Date(now.getTime() - 20_000),
          heartbeatAt: now,
          progress: {
            elapsedMs: 20_000,
            fraction: 0.2,
            requests: 100_000,
            errors: 0,
            rps: 5_000,
            latencyP50Ms: 8,
            latencyP99Ms: 40,
            sendLagP99Ms,
            samples: [],
            monitors: {},
          },
        },
      });
      return run.id;
    };
    // The line for a latency p99 of 40 ms is a quarter of it: 10 ms.
    const fine = await running(101, 3);
    const late = await running(102, 25);

    await page.goto(`${baseUrl}/runs/${late}`);
    const warning = page.locator('[data-live-warning="generator-lag"]');
    await warning.waitFor();
    expect(await warning.textContent()).toMatch(
      /Turning invalid[\s\S]*25(\.0)? ms[\s\S]*40(\.0)? ms[\s\S]*10(\.0)? ms/,
    );

    await page.goto(`${baseUrl}/runs/${fine}`);
    await page
      .getByRole("region", { name: "Live figures" })
      .or(page.locator('[aria-label="Live figures"]'))
      .first()
      .waitFor();
    expect(await page.locator('[data-live-warning="generator-lag"]').count()).toBe(0);
  });
});

describe("the / key", () => {
  it("opens the runs search from any page, and stays a character inside a field", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/api-reference`);
    await page.getByRole("heading", { name: "API reference" }).waitFor();
    await page.keyboard.press("/");
    await page.waitForURL(`${baseUrl}/runs`);
    const search = page.locator("#filter-search");
    await expect.poll(() => search.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type("a/b");
    expect(await search.inputValue()).toBe("a/b");
    expect(new URL(page.url()).pathname).toBe("/runs");
  });
});

describe("sweep and comparison pages", () => {
  async function demoPage() {
    const context = await stack.browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    await context.addCookies([
      ...(await stack.page.context().cookies()),
      { name: "bb_org", value: "demo", url: stack.baseUrl, sameSite: "Lax" },
    ]);
    return { context, page: await context.newPage() };
  }

  it("fit a sweep's summary table in a 1400 px window, every column in view without scrolling", async () => {
    const db = stack.db.db;
    const { context, page } = await demoPage();
    try {
      for (const name of ["Worker sweep (Runs 8–11)", "Pool sweep (Runs 12–17)"]) {
        const sweep = await db.sweep.findFirstOrThrow({ where: { name } });
        await page.goto(`${stack.baseUrl}/sweeps/${sweep.id}`);
        const table = page.getByRole("table", { name: "Sweep summary" });
        await table.waitFor();
        const fit = await table.evaluate((el) => {
          const box = el.closest("[data-wide-table]") as HTMLElement;
          return { scroll: box.scrollWidth, visible: box.clientWidth, page: document.documentElement.scrollWidth };
        });
        expect(fit.scroll, name).toBeLessThanOrEqual(fit.visible);
        expect(fit.page, name).toBeLessThanOrEqual(1400);
      }
    } finally {
      await context.close();
    }
  });

  it("export a sweep and a comparison as CSV and JSON", async () => {
    const db = stack.db.db;
    const { context, page } = await demoPage();
    try {
      const sweep = await db.sweep.findFirstOrThrow({ where: { name: "Pool sweep (Runs 12–17)" } });
      await page.goto(`${stack.baseUrl}/sweeps/${sweep.id}`);
      const summary = page.getByRole("table", { name: "Sweep summary" });
      await summary.locator("tbody tr").first().waitFor();
      const rows = await summary.locator("tbody tr").count();
      const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "CSV" }).click()]);
      const text = await readDownload(csv);
      const lines = text.trimEnd().split("\r\n");
      expect(lines[0]).toMatch(/^[^,]+,run_id,run,status,reading,excluded,meets_thresholds,best,/);
      expect(lines).toHaveLength(rows + 1);
      const [json] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "JSON" }).click(),
      ]);
      expect((JSON.parse(await readDownload(json)) as { rows: unknown[] }).rows).toHaveLength(rows);

      const saved = await db.comparison.findFirstOrThrow({
        where: { title: "t3.xlarge against t3.medium (t3.xlarge page)" },
      });
      await page.goto(`${stack.baseUrl}/compare/${saved.id}`);
      await page.getByRole("table", { name: "Comparison" }).waitFor();
      const [compareCsv] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "CSV" }).click(),
      ]);
      const compareLines = (await readDownload(compareCsv)).trimEnd().split("\r\n");
      expect(compareLines[0]).toBe("metric,label,unit,run_id,run,baseline,value,delta_vs_baseline,verdict");
      expect(compareLines.length).toBeGreaterThan(2);
    } finally {
      await context.close();
    }
  });
});

async function readDownload(download: import("playwright-core").Download): Promise<string> {
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
