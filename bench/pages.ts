// Time to content of every page, as the browser measures it: for each page a marker element
// (the page's main data: a filled table, a loaded form, a chart) is watched from the first byte of
// the document by a MutationObserver, and the time is `performance.now()` — milliseconds since
// the navigation started — at the first animation frame after the marker became visible. Every
// page is loaded once to warm the HTTP cache and the server, then measured BENCH_ROUNDS times;
// the median is printed beside the goal. Sign-in → dashboard is timed from the submit click to
// the dashboard's project list (both instants on the browser's clock).
//
// By default the script starts the built app like the browser tests do (a fresh test database,
// the Next.js server and a worker), seeds the published benchmarks and the reference-target
// projects, and signs in. BENCH_BASE_URL measures a running instance instead; it needs
// BENCH_EMAIL and BENCH_PASSWORD of an account that can read the demo organization (the seed).
import { existsSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { envNumber, loadAverage, median, ROOT } from "./lib";

const ROUNDS = envNumber("BENCH_ROUNDS", 5);
const GOAL_MS = envNumber("BENCH_GOAL_MS", 1_000);
const TIMEOUT_MS = envNumber("BENCH_PAGE_TIMEOUT_MS", 30_000);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;

/** What counts as "content" on a page: the first visible element matching `css` (with `text`). */
interface Marker {
  css: string;
  text?: string;
}

interface PageCase {
  name: string;
  /** Path on the app; null when the case could not be set up on this instance. */
  path: string | null;
  /** Organization the page is read in (the `bb_org` cookie); none for signed-out pages. */
  org?: string;
  signedOut?: boolean;
  marker: Marker;
}

const table = (label: string): Marker => ({ css: `table[aria-label="${label}"] tbody tr` });
const labelled = (label: string): Marker => ({ css: `[aria-label="${label}"]` });

/**
 * Installed in every document before its scripts run: records when the marker shows. A string,
 * not a function, so that the TypeScript loader's helpers never reach the page.
 */
const WATCH_FOR_MARKER = `(() => {
  const raw = sessionStorage.getItem("bench:marker");
  if (!raw) return;
  const marker = JSON.parse(raw);
  const visible = () => {
    for (const el of document.querySelectorAll(marker.css)) {
      const shown = typeof el.checkVisibility === "function" ? el.checkVisibility() : el.getClientRects().length > 0;
      if (shown && (!marker.text || (el.textContent || "").includes(marker.text))) return true;
    }
    return false;
  };
  let seen = false;
  const check = () => {
    if (seen || !visible()) return;
    seen = true;
    observer.disconnect();
    requestAnimationFrame(() => { window.__benchContentAt = performance.now(); });
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  document.addEventListener("DOMContentLoaded", check);
})();`;

async function setOrg(context: BrowserContext, baseUrl: string, org: string | undefined) {
  if (org) await context.addCookies([{ name: "bb_org", value: org, url: baseUrl, sameSite: "Lax" }]);
}

/** Load `url` and return milliseconds from navigation start to the marker on screen. */
async function timeToContent(page: Page, baseUrl: string, url: string, marker: Marker) {
  if (!page.url().startsWith(baseUrl)) await page.goto(`${baseUrl}/api/v1/openapi.json`);
  await page.evaluate((m) => sessionStorage.setItem("bench:marker", JSON.stringify(m)), marker);
  await page.goto(`${baseUrl}${url}`, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    () => (window as unknown as { __benchContentAt?: number }).__benchContentAt,
    null,
    { timeout: TIMEOUT_MS, polling: 50 },
  );
  const contentAt = (await handle.jsonValue()) as number;
  const nav = await page.evaluate(() => {
    const entry = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
    return entry ? { ttfb: entry.responseStart, dcl: entry.domContentLoadedEventEnd } : null;
  });
  return { contentAt, ttfb: nav?.ttfb ?? Number.NaN, dcl: nav?.dcl ?? Number.NaN };
}

/** Submit the sign-in form and time the click → the dashboard's project list on screen. */
async function timeSignIn(browser: Browser, baseUrl: string, email: string, password: string) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  await context.addInitScript(WATCH_FOR_MARKER);
  try {
    const page = await context.newPage();
    // The marker is set before the sign-in page loads: the app may move on without a new document,
    // so the sign-in page's own watcher is the one that sees the dashboard.
    await page.goto(`${baseUrl}/api/v1/openapi.json`);
    await page.evaluate((m) => sessionStorage.setItem("bench:marker", JSON.stringify(m)), labelled("Projects"));
    await page.goto(`${baseUrl}/sign-in`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    const clickedAt = await page.evaluate(() => {
      const at = performance.timeOrigin + performance.now();
      document.querySelector<HTMLButtonElement>('form[aria-label="Sign in"] button[type="submit"]')?.click();
      return at;
    });
    await page.waitForURL((u) => u.pathname === "/", { timeout: TIMEOUT_MS });
    const handle = await page.waitForFunction(
      () => {
        const at = (window as unknown as { __benchContentAt?: number }).__benchContentAt;
        return at === undefined ? undefined : performance.timeOrigin + at;
      },
      null,
      { timeout: TIMEOUT_MS, polling: 50 },
    );
    return ((await handle.jsonValue()) as number) - clickedAt;
  } finally {
    await context.close();
  }
}

interface Setup {
  baseUrl: string;
  browser: Browser;
  /** Signed in as an owner of the local organization and a viewer of the demo organization. */
  context: BrowserContext;
  email: string;
  password: string;
  cases: PageCase[];
  close(): Promise<void>;
}

async function startOwn(): Promise<Setup> {
  const webDir = path.join(ROOT, "apps/web");
  const distDir = process.env.BENCHBOARD_NEXT_DIST_DIR || ".next";
  if (!existsSync(path.join(webDir, distDir, "BUILD_ID")) || process.env.BENCH_BUILD === "1") {
    console.log("building the web app…");
    const { execFileSync } = await import("node:child_process");
    execFileSync("pnpm", ["build"], {
      cwd: webDir,
      stdio: "inherit",
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
  }
  const { startStack } = await import("../apps/web/e2e/harness");
  const { seedPublishedDemo } = await import("../packages/db/src/seed/index");
  const { seedReferenceTargets } = await import("../packages/db/src/seed/reference-targets");
  const { createShareLink } = await import("../packages/db/src/queries/share");
  const stack = await startStack();
  const db = stack.db.db;
  const demo = await seedPublishedDemo(db);
  const local = await db.organization.findUniqueOrThrow({ where: { slug: "local" } });
  await seedReferenceTargets(db, local.id);

  const project = await db.project.findFirstOrThrow({ where: { orgId: local.id }, orderBy: { name: "asc" } });
  const target = await db.target.findFirstOrThrow({ where: { projectId: project.id } });
  const config = await db.instanceConfig.findFirstOrThrow({ where: { projectId: project.id } });
  const scenario = await db.scenario.findFirstOrThrow({ where: { projectId: project.id } });
  const run = await db.run.findFirstOrThrow({
    where: { orgId: demo.orgId, project: { slug: "llm-gateway" }, number: 2 },
  });
  const comparison = (title: string) =>
    db.comparison.findFirstOrThrow({ where: { orgId: demo.orgId, title } }).then((c) => c.id);
  const sweep = (name: string) => db.sweep.findFirstOrThrow({ where: { orgId: demo.orgId, name } }).then((s) => s.id);
  const share = await createShareLink(db, demo.orgId, { runId: run.id });
  const p = `/projects/${project.id}`;
  const cases: PageCase[] = [
    { name: "sign-in", path: "/sign-in", signedOut: true, marker: labelled("Sign in") },
    { name: "sign-up", path: "/sign-up", signedOut: true, marker: labelled("Create account") },
    { name: "home (projects)", path: "/", org: "local", marker: labelled("Projects") },
    { name: "project overview", path: p, org: "local", marker: { css: "main h1", text: project.name } },
    { name: "targets", path: `${p}/targets`, org: "local", marker: table("Targets") },
    { name: "target edit", path: `${p}/targets/${target.id}`, org: "local", marker: labelled("Edit target") },
    { name: "instance configs", path: `${p}/configs`, org: "local", marker: table("Instance configs") },
    { name: "config edit", path: `${p}/configs/${config.id}`, org: "local", marker: labelled("Edit instance config") },
    { name: "scenarios", path: `${p}/scenarios`, org: "local", marker: table("Scenarios") },
    { name: "scenario edit", path: `${p}/scenarios/${scenario.id}`, org: "local", marker: labelled("Edit scenario") },
    { name: "launch form", path: `${p}/launch`, org: "local", marker: labelled("Launch a run") },
    { name: "launch (project picker)", path: "/launch", org: "local", marker: labelled("Projects to launch in") },
    { name: "upload", path: "/runs/upload", org: "local", marker: labelled("Upload results") },
    { name: "workers", path: "/workers", org: "local", marker: labelled("Workers") },
    { name: "settings", path: "/settings", org: "local", marker: table("Members") },
    { name: "published: runs", path: "/runs", org: "demo", marker: table("Runs") },
    { name: "published: run (imported)", path: `/runs/${run.id}`, org: "demo", marker: table("Stage breakdown") },
    { name: "published: comparisons", path: "/compare", org: "demo", marker: table("Saved comparisons") },
    {
      name: "published: compare (2 runs)",
      path: `/compare/${await comparison("t3.xlarge against t3.medium (t3.xlarge page)")}`,
      org: "demo",
      marker: table("Comparison"),
    },
    {
      name: "published: compare (6 runs)",
      path: `/compare/${await comparison("Final summary — 2-server scaling (all runs)")}`,
      org: "demo",
      marker: table("Comparison"),
    },
    { name: "published: sweeps", path: "/sweeps", org: "demo", marker: table("Sweeps") },
    {
      name: "published: worker sweep",
      path: `/sweeps/${await sweep("Worker sweep (Runs 8–11)")}`,
      org: "demo",
      marker: table("Sweep summary"),
    },
    {
      name: "published: pool sweep",
      path: `/sweeps/${await sweep("Pool sweep (Runs 12–17)")}`,
      org: "demo",
      marker: table("Sweep summary"),
    },
    { name: "published: trends", path: "/trends", org: "demo", marker: labelled("Trend filters") },
    { name: "share link (run)", path: `/share/${share.token}`, signedOut: true, marker: labelled("Summary") },
  ];
  return {
    baseUrl: stack.baseUrl,
    browser: stack.browser,
    context: stack.page.context(),
    email: stack.user.email,
    password: stack.user.password,
    cases,
    close: () => stack.close(),
  };
}

async function attachRunning(baseUrl: string): Promise<Setup> {
  const { chromium } = await import("playwright-core");
  const email = process.env.BENCH_EMAIL;
  const password = process.env.BENCH_PASSWORD;
  if (!email || !password) throw new Error("BENCH_BASE_URL needs BENCH_EMAIL and BENCH_PASSWORD");
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => u.pathname === "/");
  await page.close();
  // Without database access the ids are unknown: measure the pages reached by fixed paths.
  const cases: PageCase[] = [
    { name: "sign-in", path: "/sign-in", signedOut: true, marker: labelled("Sign in") },
    { name: "home (projects)", path: "/", marker: labelled("Projects") },
    { name: "launch (project picker)", path: "/launch", marker: labelled("Projects to launch in") },
    { name: "upload", path: "/runs/upload", marker: labelled("Upload results") },
    { name: "workers", path: "/workers", marker: labelled("Workers") },
    { name: "settings", path: "/settings", marker: table("Members") },
    { name: "published: runs", path: "/runs", org: "demo", marker: table("Runs") },
    { name: "published: comparisons", path: "/compare", org: "demo", marker: table("Saved comparisons") },
    { name: "published: sweeps", path: "/sweeps", org: "demo", marker: table("Sweeps") },
    { name: "published: trends", path: "/trends", org: "demo", marker: labelled("Trend filters") },
  ];
  return { baseUrl, browser, context, email, password, cases, close: () => browser.close() };
}

const setup = process.env.BENCH_BASE_URL ? await attachRunning(process.env.BENCH_BASE_URL) : await startOwn();
console.log(`load average before: ${loadAverage()}`);
try {
  const { baseUrl, browser, context } = setup;
  await context.addInitScript(WATCH_FOR_MARKER);
  const signedIn = await context.newPage();
  const anonymousContext = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  await anonymousContext.addInitScript(WATCH_FOR_MARKER);
  const anonymous = await anonymousContext.newPage();

  const rows: { name: string; median: number; min: number; max: number; ttfb: number; dcl: number }[] = [];
  for (const c of setup.cases) {
    if (!c.path || (ONLY && !ONLY.test(c.name))) continue;
    const page = c.signedOut ? anonymous : signedIn;
    await setOrg(c.signedOut ? anonymousContext : context, baseUrl, c.org);
    const samples: { contentAt: number; ttfb: number; dcl: number }[] = [];
    for (let i = 0; i <= ROUNDS; i++) {
      const sample = await timeToContent(page, baseUrl, c.path, c.marker);
      if (i > 0) samples.push(sample); // the first load only warms the cache
    }
    const content = samples.map((s) => s.contentAt);
    rows.push({
      name: c.name,
      median: median(content),
      min: Math.min(...content),
      max: Math.max(...content),
      ttfb: median(samples.map((s) => s.ttfb)),
      dcl: median(samples.map((s) => s.dcl)),
    });
  }
  if (!ONLY || ONLY.test("sign-in → dashboard")) {
    await timeSignIn(browser, baseUrl, setup.email, setup.password); // warm-up
    const flow: number[] = [];
    for (let i = 0; i < ROUNDS; i++) flow.push(await timeSignIn(browser, baseUrl, setup.email, setup.password));
    rows.push({
      name: "sign-in → dashboard",
      median: median(flow),
      min: Math.min(...flow),
      max: Math.max(...flow),
      ttfb: Number.NaN,
      dcl: Number.NaN,
    });
  }

  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(0).padStart(6) : "     –");
  const width = Math.max(...rows.map((r) => r.name.length));
  console.log(`\ntime to content, warm cache, median of ${ROUNDS} (ms); goal < ${GOAL_MS} ms\n`);
  console.log(`${"page".padEnd(width)}  median     min     max    ttfb     dcl`);
  for (const r of rows) {
    const flag = r.median < GOAL_MS ? "" : "  over goal";
    console.log(
      `${r.name.padEnd(width)}  ${ms(r.median)}  ${ms(r.min)}  ${ms(r.max)}  ${ms(r.ttfb)}  ${ms(r.dcl)}${flag}`,
    );
  }
  const over = rows.filter((r) => r.median >= GOAL_MS).length;
  console.log(`\n${rows.length - over} of ${rows.length} pages under ${GOAL_MS} ms`);
} finally {
  console.log(`load average after: ${loadAverage()}`);
  await setup.close();
}
