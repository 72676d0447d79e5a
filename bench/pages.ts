// Time to rendered content of every page, as a user waits for it in Chromium (1400×900): from
// the start of the navigation to the first animation frame at which the document has fired
// `load`, no element is busy (`aria-busy="true"`) or a loading skeleton, and the page's marker —
// its main data: a filled table, a loaded form, a chart — is visible. A watcher installed before
// the page's scripts (a MutationObserver plus the `load` event) records `performance.now()` then.
//
// Each page is measured cold — a new browser context, so an empty HTTP cache — and warm: the
// second and later visits in that context. BENCH_COLD_ROUNDS contexts per page, each visited
// 1 + BENCH_WARM_VISITS times; medians are printed against the goals (warm < 500 ms, cold < 1 s)
// with the JavaScript a cold visit transfers (bytes on the wire and files) and the requests it
// makes, and each figure is compared with the previous run's, kept in BENCH_PAGES_FILE
// (.data/bench-pages.json). Sign-in → dashboard is timed from the submit click to the dashboard's
// project list (both instants on the browser's clock).
//
// By default the script starts the built app like the browser tests do (a fresh test database,
// the Next.js server and a worker), seeds the published benchmarks, the reference-target projects
// and one finished 30-minute run with per-second series, and signs in. BENCH_BASE_URL measures a
// running instance instead; it needs BENCH_EMAIL and BENCH_PASSWORD of an account that can read
// the demo organization (the seed).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Cookie, Page } from "playwright-core";
import { envNumber, loadAverage, median, ROOT } from "./lib";

const COLD_ROUNDS = envNumber("BENCH_COLD_ROUNDS", 3);
const WARM_VISITS = envNumber("BENCH_WARM_VISITS", 2);
const WARM_GOAL_MS = envNumber("BENCH_WARM_GOAL_MS", 500);
const COLD_GOAL_MS = envNumber("BENCH_COLD_GOAL_MS", 1_000);
const TIMEOUT_MS = envNumber("BENCH_PAGE_TIMEOUT_MS", 30_000);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const RESULTS_FILE = process.env.BENCH_PAGES_FILE || path.join(ROOT, ".data/bench-pages.json");
const VIEWPORT = { width: 1400, height: 900 };
/** BENCH_PROFILE=1: one more warm visit per page under Chromium's sampling profiler. */
const PROFILE = process.env.BENCH_PROFILE === "1";

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
/** A run page is ready when its last timeline chart has drawn its line. */
const timelineCharts: Marker = { css: 'figure[aria-label="Target CPU (cores)"] .bb-chart-line' };

/**
 * Installed in every document before its scripts run: records when the page is ready (loaded,
 * nothing busy, the marker shown). A string, not a function, so that the TypeScript loader's
 * helpers never reach the page; the marker comes from `window.__benchMarker`, set by the script
 * installed before this one.
 */
const WATCH_FOR_READY = `(() => {
  const marker = window.__benchMarker;
  if (!marker) return;
  const BUSY = '[aria-busy="true"], [role="status"].animate-pulse';
  const shown = (el) => typeof el.checkVisibility === "function" ? el.checkVisibility() : el.getClientRects().length > 0;
  const ready = () => {
    if (document.readyState !== "complete") return false;
    for (const el of document.querySelectorAll(BUSY)) if (shown(el)) return false;
    for (const el of document.querySelectorAll(marker.css)) {
      if (shown(el) && (!marker.text || (el.textContent || "").includes(marker.text))) return true;
    }
    return false;
  };
  let done = false;
  let pending = false;
  const check = () => {
    if (done || pending || !ready()) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (done || !ready()) return;
      done = true;
      observer.disconnect();
      window.__benchReadyAt = performance.now();
    });
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
  window.addEventListener("load", () => setTimeout(check, 0));
})();`;

/** A browser context at the measured size, watching for `marker` in every document it loads. */
async function watchingContext(browser: Browser, marker: Marker, cookies: Cookie[] = []) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  if (cookies.length) await context.addCookies(cookies);
  await context.addInitScript(`window.__benchMarker = ${JSON.stringify(marker)};`);
  await context.addInitScript(WATCH_FOR_READY);
  return context;
}

interface Sample {
  readyAt: number;
  /** JavaScript fetched over the network up to ready: bytes on the wire, and files. */
  jsBytes: number;
  jsFiles: number;
  /** Every request of the document up to ready (scripts, styles, API calls). */
  requests: number;
  /** tRPC and REST calls among them. */
  apiCalls: number;
}

/** Load `url` and measure it: milliseconds from navigation start to ready, and what was fetched. */
async function timeToReady(page: Page, url: string): Promise<Sample> {
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    () => (window as unknown as { __benchReadyAt?: number }).__benchReadyAt,
    null,
    { timeout: TIMEOUT_MS, polling: 50 },
  );
  const readyAt = (await handle.jsonValue()) as number;
  const fetched = await page.evaluate((until) => {
    const entries = (performance.getEntriesByType("resource") as PerformanceResourceTiming[]).filter(
      (e) => e.startTime <= until,
    );
    const js = entries.filter((e) => e.initiatorType === "script" || /\.js(\?|$)/.test(new URL(e.name).pathname));
    return {
      jsBytes: js.reduce((sum, e) => sum + e.transferSize, 0),
      jsFiles: js.filter((e) => e.transferSize > 0).length,
      requests: entries.length + 1,
      apiCalls: entries.filter((e) => /\/api\//.test(new URL(e.name).pathname)).length,
    };
  }, readyAt);
  return { readyAt, ...fetched };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/**
 * A warm visit under the sampling profiler (100 µs): prints where the main thread's time went up to
 * the page being ready — self time by function and by script — and saves the profile, which
 * Chromium's DevTools open, to `.data/profiles/<page>.cpuprofile`.
 */
async function profileVisit(context: BrowserContext, page: Page, name: string, url: string) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
  await cdp.send("Profiler.start");
  const { readyAt } = await timeToReady(page, url);
  const { profile } = (await cdp.send("Profiler.stop")) as unknown as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };
  };
  await cdp.detach();
  const file = path.join(ROOT, ".data/profiles", `${name.replace(/[^a-z0-9]+/gi, "-")}.cpuprofile`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfByFunction = new Map<string, number>();
  const selfByScript = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0;
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    total += us;
    const script = frame.url ? (frame.url.split("/").pop() ?? frame.url) : "(native)";
    const fn = `${frame.functionName || "(anonymous)"} ${script}${frame.url ? `:${frame.lineNumber + 1}` : ""}`;
    selfByFunction.set(fn, (selfByFunction.get(fn) ?? 0) + us);
    selfByScript.set(script, (selfByScript.get(script) ?? 0) + us);
  });
  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `  ${(us / 1000).toFixed(1).padStart(7)} ms  ${k}`)
      .join("\n");
  console.log(
    `\nprofile of ${name} (ready at ${readyAt.toFixed(0)} ms; ${(total / 1000).toFixed(0)} ms sampled, to ${path.relative(ROOT, file)})`,
  );
  console.log(`by script:\n${top(selfByScript, 8)}\nby function:\n${top(selfByFunction, 15)}`);
}

/** Submit the sign-in form and time the click → the dashboard's project list on screen. */
async function timeSignIn(browser: Browser, baseUrl: string, email: string, password: string) {
  // The sign-in page's own watcher sees the dashboard when the app moves on without a new document.
  const context = await watchingContext(browser, labelled("Projects"));
  try {
    const page = await context.newPage();
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
        const at = (window as unknown as { __benchReadyAt?: number }).__benchReadyAt;
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
  /** Cookies of a session that owns the local organization and can read the demo organization. */
  session: Cookie[];
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
  const { seedRunWithSeries } = await import("../apps/web/e2e/seed-series-run");
  const seriesRun = await seedRunWithSeries(db, local.id, project.id);
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
    { name: "run (30 min, series)", path: `/runs/${seriesRun}`, org: "local", marker: timelineCharts },
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
    session: await stack.page.context().cookies(),
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
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => u.pathname === "/");
  const session = await context.cookies();
  await context.close();
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
  return { baseUrl, browser, session, email, password, cases, close: () => browser.close() };
}

interface Row {
  name: string;
  cold: number;
  warm: number;
  warmMax: number;
  jsKb: number;
  jsFiles: number;
  requests: number;
  apiCalls: number;
}

/** Measure one page: cold in new contexts, warm on the later visits in each. */
async function measure(s: Setup, c: PageCase & { path: string }): Promise<Row> {
  const cookies = c.signedOut
    ? []
    : [...s.session, ...(c.org ? [{ name: "bb_org", value: c.org, url: s.baseUrl, sameSite: "Lax" as const }] : [])];
  const cold: Sample[] = [];
  const warm: Sample[] = [];
  for (let round = 0; round < COLD_ROUNDS; round++) {
    const context = await watchingContext(s.browser, c.marker);
    try {
      if (cookies.length) await context.addCookies(cookies as Parameters<BrowserContext["addCookies"]>[0]);
      const page = await context.newPage();
      cold.push(await timeToReady(page, `${s.baseUrl}${c.path}`));
      for (let visit = 0; visit < WARM_VISITS; visit++) warm.push(await timeToReady(page, `${s.baseUrl}${c.path}`));
      if (PROFILE && round === COLD_ROUNDS - 1) await profileVisit(context, page, c.name, `${s.baseUrl}${c.path}`);
    } finally {
      await context.close();
    }
  }
  return {
    name: c.name,
    cold: median(cold.map((x) => x.readyAt)),
    warm: median(warm.map((x) => x.readyAt)),
    warmMax: Math.max(...warm.map((x) => x.readyAt)),
    jsKb: median(cold.map((x) => x.jsBytes)) / 1024,
    jsFiles: median(cold.map((x) => x.jsFiles)),
    requests: median(cold.map((x) => x.requests)),
    apiCalls: median(warm.map((x) => x.apiCalls)),
  };
}

function readPrevious(): Map<string, Row> {
  try {
    const saved = JSON.parse(readFileSync(RESULTS_FILE, "utf8")) as { rows: Row[] };
    return new Map(saved.rows.map((r) => [r.name, r]));
  } catch {
    return new Map();
  }
}

function report(rows: Row[], previous: Map<string, Row>) {
  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(0) : "–");
  const delta = (now: number, before: number | undefined) => {
    if (before === undefined || !Number.isFinite(now) || !Number.isFinite(before)) return "";
    const d = now - before;
    return `${d >= 0 ? "+" : ""}${d.toFixed(0)}`;
  };
  const columns = [
    "page",
    "warm",
    "Δ",
    "warm max",
    "cold",
    "Δ",
    "JS kB",
    "Δ",
    "JS files",
    "requests",
    "API calls (warm)",
    "",
  ];
  const lines = rows.map((r) => {
    const before = previous.get(r.name);
    const over = [r.warm >= WARM_GOAL_MS ? "warm" : null, r.cold >= COLD_GOAL_MS ? "cold" : null].filter(Boolean);
    return [
      r.name,
      ms(r.warm),
      delta(r.warm, before?.warm),
      ms(r.warmMax),
      ms(r.cold),
      delta(r.cold, before?.cold),
      ms(r.jsKb),
      delta(r.jsKb, before?.jsKb),
      ms(r.jsFiles),
      ms(r.requests),
      ms(r.apiCalls),
      over.length ? `over goal (${over.join(", ")})` : "",
    ];
  });
  const widths = columns.map((c, i) => Math.max(c.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 || i === cells.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join("  ");
  console.log(
    `\ntime to rendered content (load, nothing busy, content shown), ms; medians of ${COLD_ROUNDS} cold and ` +
      `${COLD_ROUNDS * WARM_VISITS} warm visits; goals: warm < ${WARM_GOAL_MS}, cold < ${COLD_GOAL_MS}` +
      `${previous.size ? "; Δ against the previous run" : ""}\n`,
  );
  console.log(format(columns).trimEnd());
  for (const l of lines) console.log(format(l).trimEnd());
  const pages = rows.filter((r) => Number.isFinite(r.cold));
  // The sign-in flow is timed once per round: it has a cold figure only.
  const warmPages = pages.filter((r) => Number.isFinite(r.warm));
  const warmOk = warmPages.filter((r) => r.warm < WARM_GOAL_MS).length;
  const coldOk = pages.filter((r) => r.cold < COLD_GOAL_MS).length;
  console.log(
    `\n${warmOk} of ${warmPages.length} pages under ${WARM_GOAL_MS} ms warm; ${coldOk} of ${pages.length} under ${COLD_GOAL_MS} ms cold`,
  );
}

const setup = process.env.BENCH_BASE_URL ? await attachRunning(process.env.BENCH_BASE_URL) : await startOwn();
console.log(`load average before: ${loadAverage()}`);
try {
  const previous = readPrevious();
  const rows: Row[] = [];
  for (const c of setup.cases) {
    if (!c.path || (ONLY && !ONLY.test(c.name))) continue;
    rows.push(await measure(setup, { ...c, path: c.path }));
  }
  if (!ONLY || ONLY.test("sign-in → dashboard")) {
    const { browser, baseUrl, email, password } = setup;
    await timeSignIn(browser, baseUrl, email, password); // warm-up
    const flow: number[] = [];
    for (let i = 0; i < COLD_ROUNDS; i++) flow.push(await timeSignIn(browser, baseUrl, email, password));
    rows.push({
      name: "sign-in → dashboard",
      cold: median(flow),
      warm: Number.NaN,
      warmMax: Number.NaN,
      jsKb: Number.NaN,
      jsFiles: Number.NaN,
      requests: Number.NaN,
      apiCalls: Number.NaN,
    });
  }
  report(rows, previous);
  // Pages measured this time replace their previous figures; the others are kept for next time.
  const merged = new Map(previous);
  for (const r of rows) merged.set(r.name, r);
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    `${JSON.stringify({ at: new Date().toISOString(), load: loadAverage(), rows: [...merged.values()] }, null, 2)}\n`,
  );
  console.log(`figures saved to ${path.relative(ROOT, RESULTS_FILE)}`);
} finally {
  console.log(`load average after: ${loadAverage()}`);
  await setup.close();
}
