import { createApiToken } from "@benchboard/db";
import { seedPublishedDemo } from "@benchboard/db/seed";
import { seedReferenceTargets } from "@benchboard/db/seed/reference-targets";
import type { Cookie } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "./harness";

// The signed-in pages arrive drawn: their content is in the HTML the server sends (a browser
// without JavaScript shows it, with no loading skeleton), and the browser asks the API for nothing
// more to show it. What a role may not see stays out of the HTML.

/** A loading skeleton, or anything still busy. */
const BUSY = '[aria-busy="true"], [role="status"].animate-pulse';

let stack: Stack;
let session: Cookie[];
const ids = { project: "", target: "", config: "", scenario: "" };
const names = { project: "", target: "", config: "", scenario: "", run: "", sweep: "" };
const TOKEN_NAME = "ci uploads";

beforeAll(async () => {
  stack = await startStack();
  const db = stack.db.db;
  const local = await db.organization.findUniqueOrThrow({ where: { slug: "local" } });
  await seedReferenceTargets(db, local.id);
  const demo = await seedPublishedDemo(db);
  const project = await db.project.findFirstOrThrow({ where: { orgId: local.id }, orderBy: { name: "asc" } });
  const target = await db.target.findFirstOrThrow({ where: { projectId: project.id } });
  const config = await db.instanceConfig.findFirstOrThrow({ where: { projectId: project.id } });
  const scenario = await db.scenario.findFirstOrThrow({ where: { projectId: project.id } });
  const run = await db.run.findFirstOrThrow({ where: { orgId: demo.orgId }, orderBy: { createdAt: "desc" } });
  const sweep = await db.sweep.findFirstOrThrow({ where: { orgId: demo.orgId } });
  Object.assign(ids, { project: project.id, target: target.id, config: config.id, scenario: scenario.id });
  Object.assign(names, {
    project: project.name,
    target: target.name,
    config: config.name,
    scenario: scenario.name,
    run: `#${run.number}`,
    sweep: sweep.name,
  });
  await createApiToken(db, local.id, { name: TOKEN_NAME, scopes: ["runs:write"], createdById: stack.user.id });
  session = await stack.page.context().cookies();
});

afterAll(async () => {
  await stack?.close();
});

/**
 * Open the page with the API out of the browser's reach: what shows came in the HTML. Returns the
 * API requests the page tried while loading and settling (each one refused).
 */
async function openWithoutApi(path: string, org = "local") {
  const { page, baseUrl } = stack;
  await page.context().addCookies([{ name: "bb_org", value: org, url: baseUrl, sameSite: "Lax" }]);
  const calls: string[] = [];
  const isApi = (url: URL) => url.pathname.startsWith("/api/");
  await page.route(isApi, (route) => {
    calls.push(route.request().url());
    return route.abort();
  });
  try {
    await page.goto(`${baseUrl}${path}`, { waitUntil: "networkidle" });
    return { calls, busy: await page.locator(BUSY).count(), text: await page.locator("main").innerText() };
  } finally {
    await page.unroute(isApi);
  }
}

/** The HTML the server sends for `path`, as the signed-in owner reading `org`. */
async function html(path: string, org: string) {
  const cookie = [...session.map((c) => `${c.name}=${c.value}`), `bb_org=${org}`].join("; ");
  const res = await fetch(`${stack.baseUrl}${path}`, { headers: { cookie } });
  expect(res.status, path).toBe(200);
  return res.text();
}

/** Whether the HTML carries the answer of `router.procedure` for the client's cache. */
const carries = (page: string, router: string, procedure: string) =>
  new RegExp(`\\[\\[\\\\*"${router}\\\\*",\\\\*"${procedure}\\\\*"\\]`).test(page);

describe("pages arrive drawn", () => {
  const cases: { name: string; path: () => string; org?: string; shows: () => string[] }[] = [
    { name: "home", path: () => "/", shows: () => [names.project] },
    { name: "project overview", path: () => `/projects/${ids.project}`, shows: () => [names.project, "Recent runs"] },
    { name: "targets", path: () => `/projects/${ids.project}/targets`, shows: () => [names.target] },
    {
      name: "target edit",
      path: () => `/projects/${ids.project}/targets/${ids.target}`,
      shows: () => [`Edit target ${names.target}`],
    },
    { name: "instance configs", path: () => `/projects/${ids.project}/configs`, shows: () => [names.config] },
    {
      name: "config edit",
      path: () => `/projects/${ids.project}/configs/${ids.config}`,
      shows: () => [`Edit instance config ${names.config}`],
    },
    { name: "scenarios", path: () => `/projects/${ids.project}/scenarios`, shows: () => [names.scenario] },
    {
      name: "scenario edit",
      path: () => `/projects/${ids.project}/scenarios/${ids.scenario}`,
      shows: () => [`Edit scenario ${names.scenario}`],
    },
    { name: "launch form", path: () => `/projects/${ids.project}/launch`, shows: () => [names.target, names.scenario] },
    { name: "launch: project picker", path: () => "/launch", shows: () => [names.project] },
    { name: "upload", path: () => "/runs/upload", shows: () => [names.project] },
    { name: "workers", path: () => "/workers", shows: () => ["Your agents"] },
    { name: "settings: members", path: () => "/settings/members", shows: () => [stack.user.email, "Organization"] },
    { name: "settings: tokens", path: () => "/settings/tokens", shows: () => [TOKEN_NAME] },
    { name: "settings: agents", path: () => "/settings/agents", shows: () => ["Agents"] },
    { name: "settings: notifications", path: () => "/settings/notifications", shows: () => ["Delivery log"] },
    { name: "settings: install", path: () => "/settings/install", shows: () => ["Organizations (operator)"] },
    { name: "runs (published)", path: () => "/runs", org: "demo", shows: () => [names.run] },
    { name: "sweeps (published)", path: () => "/sweeps", org: "demo", shows: () => [names.sweep] },
  ];

  for (const c of cases) {
    it(`${c.name}: drawn by the server, nothing more asked`, async () => {
      const path = c.path();
      const drawn = await openWithoutApi(path, c.org);
      expect(drawn.calls, path).toEqual([]);
      expect(drawn.busy, `${path}: still loading`).toBe(0);
      for (const text of c.shows()) expect(drawn.text, path).toContain(text);
    });
  }
});

describe("what a role may not see stays out of the HTML", () => {
  it("the owner's pages carry the member list, tokens and install settings; a reader's do not", async () => {
    const checks = [
      ["/settings/members", "member", "list"],
      ["/settings/members", "member", "invitations"],
      ["/settings/tokens", "apiToken", "list"],
      ["/settings/agents", "agent", "tokens"],
      ["/settings/install", "install", "organizations"],
    ] as const;
    for (const [path, router, procedure] of checks) {
      expect(carries(await html(path, "local"), router, procedure), `${path} as owner: ${router}.${procedure}`).toBe(
        true,
      );
      expect(carries(await html(path, "demo"), router, procedure), `${path} as reader: ${router}.${procedure}`).toBe(
        false,
      );
    }
  });

  it("a signed-out visitor is sent to sign in, with no data in the answer", async () => {
    for (const path of ["/", "/runs", "/settings/members", "/workers", "/sweeps"]) {
      const res = await fetch(`${stack.baseUrl}${path}`, { redirect: "manual" });
      expect(res.status, path).toBe(307);
      expect(res.headers.get("location"), path).toMatch(/^\/sign-in/);
      const body = await res.text();
      expect(carries(body, "project", "list"), path).toBe(false);
    }
  });
});
