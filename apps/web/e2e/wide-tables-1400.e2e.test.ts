import path from "node:path";
import { ZScenarioSpec } from "@benchboard/core";
import { createProject, createScenario, createTarget } from "@benchboard/db";
import { seedPublishedDemo } from "@benchboard/db/seed";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// A laptop-sized window (1400 px): every column of the sweep summary and the stage tables can be
// reached, no row balloons because one column was squeezed, and a threshold reads whole with its
// value and unit.
let stack: Stack;
let page: Page;

beforeAll(async () => {
  stack = await startStack();
  await seedPublishedDemo(stack.db.db);
  // A latency threshold next to the seeded ones, so that the sweep shows a failed threshold in ms/s.
  const project = await stack.db.db.project.findFirstOrThrow({ where: { slug: "chat-service" } });
  const current = (project.thresholds ?? []) as { metric: string; op: string; value: number }[];
  await stack.db.db.project.update({
    where: { id: project.id },
    data: { thresholds: [...current, { metric: "latency_p99", op: "<", value: 134_000 }] },
  });
  const context = await stack.browser.newContext({ viewport: { width: 1400, height: 900 } });
  const cookies = await stack.page.context().cookies();
  await context.addCookies([...cookies, { name: "bb_org", value: "demo", url: stack.baseUrl, sameSite: "Lax" }]);
  page = await context.newPage();
});

afterAll(async () => {
  await stack?.close();
});

async function shot(name: string) {
  await page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage: true });
}

interface Reach {
  pageOverflow: number;
  boxRight: number;
  viewport: number;
  /** Header cells whose right edge stays outside the scroll box even when it is scrolled to the end. */
  unreachable: string[];
  /** Header cells whose own text is cut off. */
  clipped: string[];
  tallestRow: number;
}

/** Scroll the table's box to its end and measure whether every header cell lies within it. */
async function reach(table: Locator): Promise<Reach> {
  return table.evaluate((el) => {
    const box = el.closest("[data-wide-table]") as HTMLElement | null;
    if (!box) throw new Error("the table has no scroll box");
    box.scrollLeft = box.scrollWidth;
    const b = box.getBoundingClientRect();
    const heads = [...el.querySelectorAll("thead th")] as HTMLElement[];
    const rows = [...el.querySelectorAll("tbody tr")] as HTMLElement[];
    const result = {
      pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
      boxRight: b.right,
      viewport: window.innerWidth,
      unreachable: heads
        .filter((th) => {
          const r = th.getBoundingClientRect();
          return r.right > b.right + 1 || r.left < b.left - 1 - (box.scrollWidth - box.clientWidth);
        })
        .map((th) => th.textContent ?? ""),
      clipped: heads.filter((th) => th.scrollWidth > th.clientWidth + 1).map((th) => th.textContent ?? ""),
      tallestRow: Math.max(...rows.map((r) => r.getBoundingClientRect().height)),
    };
    box.scrollLeft = 0;
    return result;
  });
}

describe("tables at 1400 px", () => {
  it("the sweep summary reaches its last column, rows stay compact, thresholds keep their unit", async () => {
    await page.goto(`${stack.baseUrl}/sweeps`);
    await page.getByRole("link", { name: "Worker sweep (Runs 8–11)" }).click();
    const summary = page.getByRole("table", { name: "Sweep summary" });
    await summary.locator("tbody tr").first().waitFor();
    const r = await reach(summary);
    expect(r.pageOverflow).toBeLessThanOrEqual(0);
    expect(r.boxRight).toBeLessThanOrEqual(r.viewport);
    expect(r.unreachable).toEqual([]);
    expect(r.clipped).toEqual([]);
    await expect(summary.locator("thead th").last().textContent()).resolves.toBe("Best, or why not");
    // Four lines of text at most: the "why not" column is wide enough to read.
    expect(r.tallestRow).toBeLessThan(100);

    // Runs #11 (134.5 s) and #10 (134.7 s) miss p99 < 134 s: the cell names value and unit.
    const failed = summary.locator("tbody tr", { hasText: "#11" }).locator("[data-threshold-cell]");
    await expect(failed.textContent()).resolves.toMatch(/^✗ Latency p99 < 134 s$/);
    const why = summary.locator("tbody tr", { hasText: "#10" }).locator("[data-passed-over]");
    await expect(why.textContent()).resolves.toMatch(/misses .*Latency p99 < 134 s/);
    // The value and unit of a threshold sit on one line.
    const lines = await failed.evaluate((td) => {
      const nowrap = td.querySelector(".whitespace-nowrap") as HTMLElement;
      return new Set([...nowrap.getClientRects()].map((r) => Math.round(r.top))).size;
    });
    expect(lines).toBe(1);
    await shot("sweep-1400");
  });

  it("the run page's stage table shows its In overhead column", async () => {
    const run = await stack.db.db.run.findFirstOrThrow({ where: { project: { slug: "llm-gateway" }, number: 2 } });
    await page.goto(`${stack.baseUrl}/runs/${run.id}`);
    const stages = page.getByRole("table", { name: "Stage breakdown" });
    await stages.locator("tbody tr").first().waitFor();
    const r = await reach(stages);
    expect(r.pageOverflow).toBeLessThanOrEqual(0);
    expect(r.unreachable).toEqual([]);
    expect(r.clipped).toEqual([]);
    await expect(stages.locator("thead th").last().textContent()).resolves.toBe("In overhead");
    await stages.getByRole("checkbox", { name: "Count Queue wait in the gateway overhead" }).waitFor();
    await stages.scrollIntoViewIfNeeded();
    await shot("run-stages-1400");
  });

  it("the comparison's stage table reaches every column", async () => {
    await page.goto(`${stack.baseUrl}/compare`);
    await page.getByRole("link", { name: "t3.xlarge against t3.medium (t3.xlarge page)" }).click();
    const stages = page.getByRole("table", { name: "Stage breakdown" });
    await stages.locator("tbody tr").first().waitFor();
    const r = await reach(stages);
    expect(r.pageOverflow).toBeLessThanOrEqual(0);
    expect(r.unreachable).toEqual([]);
    expect(r.clipped).toEqual([]);
    expect(r.tallestRow).toBeLessThan(100);
    await stages.scrollIntoViewIfNeeded();
    await shot("compare-stages-1400");
  });
});

describe("published figures tell one story", () => {
  it("the run headline and a live comparison both show the printed overhead with its ⚠", async () => {
    const runs = await stack.db.db.run.findMany({
      where: { project: { slug: "llm-gateway" }, number: { in: [1, 2] } },
      orderBy: { number: "asc" },
    });
    const [medium, xlarge] = runs;
    await page.goto(`${stack.baseUrl}/runs/${xlarge!.id}`);
    const card = page.getByRole("group", { name: "Gateway overhead" });
    await card.waitFor();
    await expect(card.textContent()).resolves.toMatch(/13\.9 µs.*derived.*⚠ published 11 µs/);
    // Memory is binary and says so.
    const figures = page.getByRole("table", { name: "Published figures" });
    await expect(figures.getByRole("row", { name: /Peak memory/ }).textContent()).resolves.toContain("3.26 GiB");
    await card.scrollIntoViewIfNeeded();
    await shot("run-published-headline");

    await page.goto(`${stack.baseUrl}/compare?runs=${medium!.id},${xlarge!.id}`);
    const stages = page.getByRole("table", { name: "Stage breakdown" });
    await stages.locator("tbody tr").first().waitFor();
    const overhead = stages.locator('tr[data-stage="gateway_overhead"]');
    await expect(overhead.textContent()).resolves.toMatch(/13\.9 µs.*⚠ published 11 µs/);
    const mark = overhead.locator('[data-published-status="mismatch"]').first();
    await expect(mark.isVisible()).resolves.toBe(true);
    await stages.scrollIntoViewIfNeeded();
    await shot("compare-live-published");
  });
});

describe("a stranger's target", () => {
  it("offers neither a local process monitor nor DNS for an IP origin, and speaks without field names", async () => {
    const db = stack.db.db;
    const org = await db.organization.create({ data: { name: "Stranger team", slug: "stranger" } });
    await db.membership.create({ data: { orgId: org.id, userId: stack.user.id, role: "owner" } });
    const project = await createProject(db, org.id, { name: "Shop" });
    const target = await createTarget(db, org.id, {
      projectId: project.id,
      name: "shop by address",
      kind: "http",
      baseUrl: "http://127.0.0.1:9",
    });
    const context = await stack.browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.addCookies([
      ...(await stack.page.context().cookies()).filter((c) => c.name !== "bb_org"),
      { name: "bb_org", value: "stranger", url: stack.baseUrl, sameSite: "Lax" },
    ]);
    const p = await context.newPage();
    await p.goto(`${stack.baseUrl}/projects/${project.id}/targets/${target.id}`);
    const verification = p.getByRole("region", { name: "Origin verification" });
    await verification.getByRole("button", { name: "Check HTTP file" }).waitFor();
    await expect(verification.getByRole("button", { name: "Check DNS record" }).count()).resolves.toBe(0);
    await verification.locator("[data-no-dns]").waitFor();
    await verification.getByRole("button", { name: "Check HTTP file" }).click();
    const alert = verification.getByRole("alert");
    await alert.waitFor();
    const said = (await alert.textContent()) ?? "";
    expect(said).toMatch(/^not verified: /);
    expect(said).not.toMatch(/^method: /);
    const kinds = await p.getByLabel("Monitor kind to add").locator("option").allTextContents();
    expect(kinds).toContain("Prometheus metrics");
    expect(kinds).not.toContain("Local process");
    await p.screenshot({ path: path.join(screenshotsDir, "target-stranger-ip.png"), fullPage: true });

    // The list says where each target stands before anyone launches against it.
    await p.goto(`${stack.baseUrl}/projects/${project.id}/targets`);
    const row = p.getByRole("table", { name: "Targets" }).getByRole("row", { name: /shop by address/ });
    await expect(row.locator("[data-verification]").textContent()).resolves.toMatch(/^probe only/);
    await p.screenshot({ path: path.join(screenshotsDir, "targets-verification.png"), fullPage: true });

    // And so does the launch form, beside the target it will load.
    await createScenario(db, org.id, {
      projectId: project.id,
      name: "smoke",
      spec: ZScenarioSpec.parse({ engine: "http-closed", concurrency: 2, durationS: 3 }),
    });
    await p.goto(`${stack.baseUrl}/projects/${project.id}/launch`);
    const state = p.locator("[data-target-verification]");
    await expect(state.textContent()).resolves.toMatch(/^probe only/);
    await p.screenshot({ path: path.join(screenshotsDir, "launch-verification.png"), fullPage: true });
    await context.close();
  });
});
