import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// The runs page sorts by any metric and filters by a metric range (kept in the URL), and the
// operator's Install settings show detail retention with the bytes it would free.
let stack: Stack;

const day = 86_400_000;
/** Run number → [p99 ms, rps, ended days ago]. */
const RUNS: Record<number, [number, number, number]> = {
  1: [12, 4_990, 200],
  2: [48, 2_100, 3],
  3: [31, 3_300, 2],
  4: [7, 1_200, 1],
};

beforeAll(async () => {
  stack = await startStack();
  const db = stack.db.db;
  const org = await db.organization.findUniqueOrThrow({ where: { slug: "local" } });
  const project = await db.project.create({ data: { orgId: org.id, name: "Gateway", slug: "gateway" } });
  for (const [n, [p99, rps, daysAgo]] of Object.entries(RUNS)) {
    const endedAt = new Date(Date.now() - daysAgo * day);
    const run = await db.run.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        number: Number(n),
        status: "succeeded",
        scenarioName: "5k rps",
        createdAt: endedAt,
        startedAt: endedAt,
        endedAt,
      },
    });
    await db.runResult.create({ data: { runId: run.id, metrics: { rps, latency_p99: p99 } } });
    await db.series.create({
      data: {
        runId: run.id,
        metric: "rps",
        start: endedAt,
        intervalMs: 1000,
        values: Array.from({ length: 600 }, (_, i) => rps + (i % 7)),
      },
    });
  }
});

afterAll(async () => {
  await stack?.close();
});

async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage: true });
}

/** Run numbers in the order the table shows them, once the list is no longer loading. */
async function shownRuns(page: Page): Promise<number[]> {
  const table = page.getByRole("table", { name: "Runs" });
  await table.waitFor();
  await page.waitForFunction(() => document.querySelector('[aria-busy="true"]') === null);
  const links = await table.getByRole("link", { name: /^#\d+$/ }).allTextContents();
  return links.map((t) => Number(t.slice(1)));
}

describe("runs sorted and filtered by any metric", () => {
  it("sorts by a chosen metric in either order and narrows to a metric range", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/runs`);
    await page.getByLabel("Sort", { exact: true }).selectOption("metric");
    await page.getByLabel("Sort metric").selectOption("latency_p99");
    // p99 is lower-is-better: lowest first by default.
    await expect.poll(() => shownRuns(page)).toEqual([4, 1, 3, 2]);
    await page.getByLabel("Order").selectOption("desc");
    await expect.poll(() => shownRuns(page)).toEqual([2, 3, 1, 4]);
    await page.getByLabel("Metric range").selectOption("rps");
    await page.getByLabel("At least").fill("2000");
    await page.getByLabel("At most").fill("4000");
    await expect.poll(() => shownRuns(page)).toEqual([2, 3]);
    expect(new URL(page.url()).searchParams.get("mkey")).toBe("rps");
    await shot(page, "runs-sorted-by-metric");
    // The URL alone restores the view.
    await page.reload();
    await expect.poll(() => shownRuns(page)).toEqual([2, 3]);
  });
});

describe("detail retention in Install settings", () => {
  it("shows that retention is off and what 90 days would free", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/settings/install`);
    const section = page.getByRole("region", { name: "Detail retention" });
    await section.waitFor();
    await expect.poll(() => section.textContent()).toMatch(/Off: every run keeps its per-second series/);
    // Only run #1 ended more than 90 days ago.
    await expect(section.textContent()).resolves.toMatch(/would downsample 1 run to 10 s now and free about \d/);
    await section.scrollIntoViewIfNeeded();
    await shot(page, "settings-retention");
  });
});
