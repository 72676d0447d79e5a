import path from "node:path";
import { createHistogram, encodeHistogram, recordMicros } from "@benchboard/core";
import { seedPublishedDemo } from "@benchboard/db/seed";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// Dark mode follows the system until the reader picks a theme, and the pick survives a reload with
// the first paint already in it; at a phone's width (390 px) no page is wider than the screen and
// the navigation folds behind a menu button.
let stack: Stack;
let runPath: string;
let comparePath: string;

beforeAll(async () => {
  stack = await startStack();
  await seedPublishedDemo(stack.db.db);
  const runs = await stack.db.db.run.findMany({
    where: { project: { slug: "llm-gateway" } },
    orderBy: { number: "asc" },
    take: 2,
  });
  // The published runs carry figures but no per-second series: give both a minute of them, as a
  // recorded run has, so the run and compare pages draw their charts.
  const start = runs[0]!.startedAt ?? new Date("2026-01-01T00:00:00Z");
  const wave = (base: number, amp: number) => Array.from({ length: 60 }, (_, i) => base + amp * Math.sin(i / 6));
  for (const run of runs) {
    await stack.db.db.series.createMany({
      data: [
        { runId: run.id, metric: "rps", start, values: wave(480, 20) },
        { runId: run.id, metric: "latency_p50", start, values: wave(12, 2) },
        { runId: run.id, metric: "latency_p99", start, values: wave(40, 8) },
      ],
    });
  }
  // And the first a latency histogram, as a launched run has, so the run page draws it too.
  const histogram = createHistogram();
  for (let i = 0; i < 5_000; i++) recordMicros(histogram, 8_000 + ((i * 7919) % 9_000) + (i % 89 === 0 ? 30_000 : 0));
  await stack.db.db.runResult.update({
    where: { runId: runs[0]!.id },
    data: { histogram: encodeHistogram(histogram) },
  });
  runPath = `/runs/${runs[0]!.id}`;
  comparePath = `/compare?runs=${runs.map((r) => r.id).join(",")}`;
});

afterAll(async () => {
  await stack?.close();
});

/** A signed-in browser context looking at the seeded demo organization. */
async function newContext(options: { colorScheme?: "light" | "dark"; width?: number; height?: number } = {}) {
  const context = await stack.browser.newContext({
    viewport: { width: options.width ?? 1400, height: options.height ?? 900 },
    colorScheme: options.colorScheme ?? "light",
  });
  const cookies = await stack.page.context().cookies();
  await context.addCookies([...cookies, { name: "bb_org", value: "demo", url: stack.baseUrl, sameSite: "Lax" }]);
  return context;
}

/** Relative luminance (0 black … 1 white) of any CSS colour, read back through a canvas. */
async function luminanceOf(page: Page, selector: string, property: "background-color" | "stroke" | "color") {
  return page
    .locator(selector)
    .first()
    .evaluate((el, prop) => {
      const value = getComputedStyle(el).getPropertyValue(prop);
      const ctx = document.createElement("canvas").getContext("2d")!;
      ctx.fillStyle = value;
      ctx.fillRect(0, 0, 1, 1);
      const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
      const lin = (c: number) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
    }, property);
}

/** The outermost elements reaching past the viewport's right edge, to name what widens a page. */
function widest(page: Page) {
  return page.evaluate(() => {
    const clipped = (el: Element) => {
      for (let a = el.parentElement; a && a.tagName !== "MAIN"; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== "visible") return true;
      }
      return false;
    };
    const out = [...document.querySelectorAll("main *")].filter(
      (el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !clipped(el),
    );
    return out
      .filter((el) => !out.includes(el.parentElement as Element))
      .slice(0, 5)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} ${Math.round(el.getBoundingClientRect().right)}`,
      );
  });
}

/** The charts' axis labels: HTML beside each chart's SVG, coloured by the theme's chart variables. */
const AXIS_TICK = ".bb-chart-tick";
const HISTOGRAM = "figure[aria-label='Latency histogram']";

async function openRunPage(page: Page) {
  await page.goto(`${stack.baseUrl}${runPath}`);
  await page.locator(`${HISTOGRAM} ${AXIS_TICK}`).first().waitFor();
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage: true });
}

describe("dark mode", () => {
  it("follows the system preference: dark page, dark cards, light chart axes", async () => {
    const light = await newContext({ colorScheme: "light" });
    const dark = await newContext({ colorScheme: "dark" });
    try {
      const lightPage = await light.newPage();
      const darkPage = await dark.newPage();
      await openRunPage(lightPage);
      await openRunPage(darkPage);

      expect(await luminanceOf(lightPage, "body", "background-color")).toBeGreaterThan(0.9);
      expect(await luminanceOf(darkPage, "body", "background-color")).toBeLessThan(0.05);
      expect(await luminanceOf(darkPage, "nav[aria-label='Main']", "background-color")).toBeLessThan(0.05);
      expect(await luminanceOf(darkPage, "main", "color")).toBeGreaterThan(0.6);
      // Axis labels, the histogram's and the timeline's: grey on white in light, a light grey that
      // reads on the dark card in dark.
      for (const chart of [HISTOGRAM, "figure[aria-label='Achieved rate (req/s)']"]) {
        expect(await luminanceOf(lightPage, `${chart} ${AXIS_TICK}`, "color")).toBeLessThan(0.25);
        expect(await luminanceOf(darkPage, `${chart} ${AXIS_TICK}`, "color")).toBeGreaterThan(0.35);
      }
      // Grid lines take the theme too: pale on white, faint on the dark card.
      expect(await luminanceOf(lightPage, `${HISTOGRAM} .bb-chart-grid line`, "stroke")).toBeGreaterThan(0.6);
      expect(await luminanceOf(darkPage, `${HISTOGRAM} .bb-chart-grid line`, "stroke")).toBeLessThan(0.1);
      await expect(darkPage.locator("html").getAttribute("class")).resolves.toBeNull();
      // The tooltip box is a dark card with light text, not a white box; it names the bucket and its count.
      await darkPage.getByRole("slider", { name: "Latency histogram: bucket" }).hover();
      const tooltip = darkPage.locator(`${HISTOGRAM} [role='tooltip']`);
      await tooltip.waitFor();
      expect(await tooltip.textContent()).toMatch(/^[\d.]+ ms – [\d.]+ ms[\d,]+ requests?$/);
      expect(await luminanceOf(darkPage, `${HISTOGRAM} [role='tooltip']`, "background-color")).toBeLessThan(0.05);
      expect(await luminanceOf(darkPage, `${HISTOGRAM} [role='tooltip']`, "color")).toBeGreaterThan(0.6);

      await shot(lightPage, "theme-run-light-1400");
      await shot(darkPage, "theme-run-dark-1400");
      await darkPage.goto(`${stack.baseUrl}${comparePath}`);
      await darkPage.locator(AXIS_TICK).first().waitFor();
      await shot(darkPage, "theme-compare-dark-1400");
      await darkPage.goto(`${stack.baseUrl}/`);
      await darkPage.getByRole("list", { name: "Projects" }).waitFor();
      await shot(darkPage, "theme-dashboard-dark-1400");
      await lightPage.goto(`${stack.baseUrl}/`);
      await lightPage.getByRole("list", { name: "Projects" }).waitFor();
      await shot(lightPage, "theme-dashboard-light-1400");
    } finally {
      await light.close();
      await dark.close();
    }
  });

  it("keeps the reader's choice across reloads, rendered by the server before any script runs", async () => {
    const context = await newContext({ colorScheme: "light" });
    try {
      const page = await context.newPage();
      await openRunPage(page);
      expect(await luminanceOf(page, "body", "background-color")).toBeGreaterThan(0.9);

      await page.getByRole("group", { name: "Theme" }).getByText("Dark", { exact: true }).click();
      expect(await luminanceOf(page, "body", "background-color")).toBeLessThan(0.05);

      await page.reload();
      await page.locator(AXIS_TICK).first().waitFor();
      expect(await page.getByRole("radio", { name: "Dark" }).isChecked()).toBe(true);
      expect(await luminanceOf(page, "body", "background-color")).toBeLessThan(0.05);
      expect(await luminanceOf(page, AXIS_TICK, "color")).toBeGreaterThan(0.35);

      // The HTML itself carries the theme: no flash of light before hydration, no inline script.
      const html = await (await page.request.get(`${stack.baseUrl}${runPath}`)).text();
      expect(html).toMatch(/<html[^>]*class="dark"/);

      // Light wins over a dark system preference once chosen.
      const darkSystem = await newContext({ colorScheme: "dark" });
      try {
        const other = await darkSystem.newPage();
        await other.goto(`${stack.baseUrl}/`);
        await other.getByRole("group", { name: "Theme" }).getByText("Light", { exact: true }).click();
        await other.reload();
        await other.getByRole("list", { name: "Projects" }).waitFor();
        expect(await luminanceOf(other, "body", "background-color")).toBeGreaterThan(0.9);
        await other.getByRole("group", { name: "Theme" }).getByText("System", { exact: true }).click();
        expect(await luminanceOf(other, "body", "background-color")).toBeLessThan(0.05);
      } finally {
        await darkSystem.close();
      }
    } finally {
      await context.close();
    }
  });
});

describe("at 390 px", () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await newContext({ width: 390, height: 844 });
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
  });

  it("no page is wider than the screen", async () => {
    const pages = ["/", "/runs", runPath, comparePath, "/settings"];
    const widths: Record<string, number> = {};
    const offenders: Record<string, string[]> = {};
    for (const p of pages) {
      await page.goto(`${stack.baseUrl}${p}`);
      await page.waitForLoadState("networkidle");
      await page.locator("main").waitFor();
      widths[p] = await page.evaluate(() => document.documentElement.scrollWidth);
      if (widths[p]! > 390) offenders[p] = await widest(page);
    }
    expect({ widths, offenders }).toEqual({ widths: Object.fromEntries(pages.map((p) => [p, 390])), offenders: {} });
  });

  it("folds the navigation behind a menu button that opens and closes", async () => {
    await page.goto(`${stack.baseUrl}/`);
    const menu = page.getByRole("button", { name: "Menu" });
    await expect(menu.getAttribute("aria-expanded")).resolves.toBe("false");
    const runsLink = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runs", exact: true });
    expect(await runsLink.isVisible()).toBe(false);

    await menu.click();
    await expect(menu.getAttribute("aria-expanded")).resolves.toBe("true");
    expect(await runsLink.isVisible()).toBe(true);
    await shot(page, "mobile-menu-open-390");

    await runsLink.click();
    await page.waitForURL(`${stack.baseUrl}/runs`);
    await expect.poll(() => menu.getAttribute("aria-expanded")).toBe("false");
    expect(await runsLink.isVisible()).toBe(false);
  });

  it("screenshots in both themes", async () => {
    for (const scheme of ["light", "dark"] as const) {
      const phone = await newContext({ width: 390, height: 844, colorScheme: scheme });
      try {
        const p = await phone.newPage();
        await p.goto(`${stack.baseUrl}/`);
        await p.getByRole("list", { name: "Projects" }).waitFor();
        await shot(p, `theme-dashboard-${scheme}-390`);
        await openRunPage(p);
        await shot(p, `theme-run-${scheme}-390`);
        expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      } finally {
        await phone.close();
      }
    }
  });
});
