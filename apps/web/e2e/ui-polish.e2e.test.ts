import path from "node:path";
import { createSession, signUp } from "@benchboard/db";
import { seedPublishedDemo } from "@benchboard/db/seed";
import { seedReferenceTargets } from "@benchboard/db/seed/reference-targets";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// How the product reads to a person: pass/fail goals are called thresholds, a viewer is shown
// no write UI and a refusal is never silent, wide tables scroll inside their card, a scenario
// over the caps is refused at its field, and a new account lands on its getting-started path.
let stack: Stack;
let localOrgId: string;

beforeAll(async () => {
  stack = await startStack();
  await seedPublishedDemo(stack.db.db);
  localOrgId = (await stack.db.db.organization.findUniqueOrThrow({ where: { slug: "local" } })).id;
  await seedReferenceTargets(stack.db.db, localOrgId);
});

afterAll(async () => {
  await stack?.close();
});

async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage: true });
}

async function useOrg(context: BrowserContext, slug: string) {
  await context.addCookies([{ name: "bb_org", value: slug, url: stack.baseUrl, sameSite: "Lax" }]);
}

/** A browser signed in as a new account with `role` in the local organization. */
async function signedInAs(email: string, role: "member" | "viewer", viewport = { width: 1440, height: 1000 }) {
  const db = stack.db.db;
  const user = await signUp(db, { email, password: "correct horse battery", name: email.split("@")[0] });
  await db.membership.create({ data: { orgId: localOrgId, userId: user.id, role } });
  const session = await createSession(db, user.id);
  const context = await stack.browser.newContext({ viewport });
  await context.addCookies([
    { name: "bb_session", value: session.token, url: stack.baseUrl, httpOnly: true, sameSite: "Lax" },
  ]);
  await useOrg(context, "local");
  return { user, context, page: await context.newPage() };
}

describe("thresholds are called thresholds", () => {
  it("on the trends, sweep and run pages, never targets", async () => {
    const { page, baseUrl } = stack;
    await useOrg(page.context(), "demo");
    await page.goto(`${baseUrl}/trends`);
    await page.getByLabel("Project").selectOption({ label: "Chat service (WebSocket + RabbitMQ)" });
    const card = page.getByRole("region", { name: "Thresholds for Chat service (WebSocket + RabbitMQ)" });
    await card.getByRole("list", { name: "Thresholds" }).waitFor();
    await expect(card.textContent()).resolves.toMatch(/Peak queue depth < 1,000/);
    await expect(page.locator("main").textContent()).resolves.not.toMatch(/targets? for|project targets/i);

    await page.goto(`${baseUrl}/sweeps`);
    await page.getByRole("link", { name: "Worker sweep (Runs 8–11)" }).click();
    const summary = page.getByRole("table", { name: "Sweep summary" });
    await summary.getByRole("columnheader", { name: "Meets thresholds" }).waitFor();
    await expect(page.locator("main").textContent()).resolves.not.toMatch(/meets? (the )?targets|miss(es)? a target/i);

    const run = await stack.db.db.run.findFirstOrThrow({ where: { project: { slug: "llm-gateway" }, number: 2 } });
    await page.goto(`${baseUrl}/runs/${run.id}`);
    const thresholds = page.getByRole("region", { name: "Thresholds" });
    await thresholds.waitFor();
    await expect(thresholds.textContent()).resolves.not.toMatch(/target/i);
  });
});

describe("roles", () => {
  it("shows a viewer no write UI: no New project, no Launch or Upload, read-only editors", async () => {
    const { page, baseUrl } = stack;
    await useOrg(page.context(), "demo");
    await page.goto(`${baseUrl}/`);
    await page.getByRole("list", { name: "Projects" }).waitFor();
    await page.getByRole("region", { name: "Read-only" }).waitFor();
    await expect(page.getByRole("form", { name: "New project" }).count()).resolves.toBe(0);
    await expect(page.getByRole("button", { name: "Create project" }).count()).resolves.toBe(0);
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: "Runs" }).waitFor();
    await expect(nav.getByRole("link", { name: "Launch" }).count()).resolves.toBe(0);
    await expect(nav.getByRole("link", { name: "Upload" }).count()).resolves.toBe(0);
    await expect(page.getByRole("region", { name: "Getting started" }).count()).resolves.toBe(0);
    await shot(page, "viewer-home");

    const project = await stack.db.db.project.findFirstOrThrow({ where: { slug: "llm-gateway" } });
    await page.goto(`${baseUrl}/projects/${project.id}`);
    await page.getByRole("region", { name: "Recent runs" }).waitFor();
    await expect(page.getByRole("link", { name: /Launch a run|Register a target/ }).count()).resolves.toBe(0);
    await page.goto(`${baseUrl}/projects/${project.id}/targets`);
    await page.getByText("No targets yet").waitFor();
    await expect(page.getByRole("link", { name: /New target|Register one/ }).count()).resolves.toBe(0);

    await page.goto(`${baseUrl}/runs/upload`);
    await page.getByRole("note").filter({ hasText: "members and owners upload results" }).waitFor();
    await expect(page.getByRole("form", { name: "Upload results" }).count()).resolves.toBe(0);
  });

  it("opens a viewer's editors read-only", async () => {
    const { context, page } = await signedInAs("vic@example.com", "viewer");
    const target = await stack.db.db.target.findFirstOrThrow({ where: { orgId: localOrgId } });
    await page.goto(`${stack.baseUrl}/projects/${target.projectId}/targets`);
    await page.getByRole("table", { name: "Targets" }).waitFor();
    await expect(page.getByRole("link", { name: "New target" }).count()).resolves.toBe(0);
    await page.getByRole("link", { name: `View ${target.name}` }).click();
    const form = page.getByRole("form", { name: "Edit target" });
    await form.waitFor();
    await expect(form.getByLabel("Target name").isDisabled()).resolves.toBe(true);
    await expect(form.getByRole("button", { name: "Save target" }).count()).resolves.toBe(0);
    await form.getByRole("note").filter({ hasText: "You are a viewer" }).waitFor();
    await shot(page, "viewer-target");
    await context.close();
  });

  it("shows a message when the server refuses an action for the role (403)", async () => {
    const { user, context, page } = await signedInAs("mia@example.com", "member");
    await page.goto(`${stack.baseUrl}/`);
    const form = page.getByRole("form", { name: "New project" });
    await form.getByLabel("Project name").fill("Checkout service");
    // The owner makes her a viewer while her page is open: the next write is refused.
    await stack.db.db.membership.updateMany({
      where: { userId: user.id, orgId: localOrgId },
      data: { role: "viewer" },
    });
    await form.getByRole("button", { name: "Create project" }).click();
    const notice = page.getByRole("alert", { name: "Not allowed" });
    await notice.waitFor();
    await expect(notice.textContent()).resolves.toMatch(/this needs the member role; you are a viewer/);
    await shot(page, "forbidden-notice");
    await expect(stack.db.db.project.count({ where: { name: "Checkout service" } })).resolves.toBe(0);
    await context.close();
  });
});

/** The scroll container of a table, its first column and the page's own horizontal overflow. */
async function layoutOf(table: Locator) {
  return table.evaluate((el) => {
    const box = el.closest("[data-wide-table]") as HTMLElement | null;
    if (!box) {
      const chain: string[] = [];
      for (let p = el.parentElement; p && chain.length < 4; p = p.parentElement) chain.push(p.outerHTML.slice(0, 120));
      throw new Error(`no scroll box around the table: ${chain.join(" | ")}`);
    }
    const first = el.querySelector("tbody tr > :first-child") as HTMLElement;
    const last = el.querySelector("tbody tr > :last-child") as HTMLElement;
    return {
      overflow: box.scrollWidth - box.clientWidth,
      pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
      boxLeft: box.getBoundingClientRect().left,
      firstLeft: first.getBoundingClientRect().left,
      lastLeft: last.getBoundingClientRect().left,
      firstPosition: getComputedStyle(first).position,
    };
  });
}

async function scrollRight(table: Locator) {
  await table.evaluate((el) => {
    const box = el.closest("[data-wide-table]") as HTMLElement;
    box.scrollLeft = box.scrollWidth;
  });
}

describe("wide tables", () => {
  it("scroll inside their card with the first column in view, published marks behind one toggle", async () => {
    const { context, page } = await signedInAs("wes@example.com", "viewer", { width: 1000, height: 900 });
    await useOrg(context, "demo");
    await page.goto(`${stack.baseUrl}/compare`);
    await page.getByRole("link", { name: "Final summary — 2-server scaling (all runs)" }).click();
    const table = page.getByRole("table", { name: "Comparison", exact: true });
    await table.locator("tbody tr").first().waitFor();
    const before = await layoutOf(table);
    expect(before.overflow).toBeGreaterThan(50);
    expect(before.pageOverflow).toBeLessThanOrEqual(0);
    expect(before.firstPosition).toBe("sticky");
    await scrollRight(table);
    const after = await layoutOf(table);
    expect(Math.abs(after.firstLeft - after.boxLeft)).toBeLessThan(2);
    expect(after.lastLeft).toBeLessThan(before.lastLeft - 50);

    const marks = table.locator("[data-published-status]");
    expect(await marks.count()).toBeGreaterThan(0);
    await expect(marks.first().isVisible()).resolves.toBe(false);
    await page.getByLabel("Checked against the source").check();
    await expect(marks.first().isVisible()).resolves.toBe(true);
    await shot(page, "compare-wide");

    await page.goto(`${stack.baseUrl}/sweeps`);
    await page.getByRole("link", { name: "Pool sweep (Runs 12–17)" }).click();
    const sweep = page.getByRole("table", { name: "Sweep summary" });
    await sweep.locator("tbody tr").first().waitFor();
    const wide = await layoutOf(sweep);
    expect(wide.overflow).toBeGreaterThan(0);
    expect(wide.pageOverflow).toBeLessThanOrEqual(0);
    await scrollRight(sweep);
    const scrolled = await layoutOf(sweep);
    expect(Math.abs(scrolled.firstLeft - scrolled.boxLeft)).toBeLessThan(2);
    await expect(sweep.locator("[data-published-status]").first().isVisible()).resolves.toBe(false);
    await shot(page, "sweep-wide");
    await context.close();
  });
});

describe("scenario form", () => {
  it("refuses a duration over the organization's cap at the field, saving nothing", async () => {
    const { page, baseUrl } = stack;
    await useOrg(page.context(), "local");
    const scenario = await stack.db.db.scenario.findFirstOrThrow({
      where: { orgId: localOrgId, engine: "llm" },
    });
    await page.goto(`${baseUrl}/projects/${scenario.projectId}/scenarios/${scenario.id}`);
    const form = page.getByRole("form", { name: "Edit scenario" });
    await form.getByLabel("Duration (s)").fill("3600");
    await form.getByRole("button", { name: "Save scenario" }).click();
    const field = form.locator("div", { has: page.getByLabel("Duration (s)") }).last();
    await field.getByText(/the organization allows at most 1,800 s/).waitFor();
    await expect(form.getByLabel("Duration (s)").getAttribute("aria-invalid")).resolves.toBe("true");
    await shot(page, "scenario-cap");
    const stored = await stack.db.db.scenario.findUniqueOrThrow({ where: { id: scenario.id } });
    expect((stored.spec as { durationS: number }).durationS).toBe((scenario.spec as { durationS: number }).durationS);
  });
});

describe("first visit", () => {
  it("a new account lands on its projects page with the getting-started path", async () => {
    const context = await stack.browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    await page.goto(`${stack.baseUrl}/sign-in`);
    // An owner exists: the sign-in page no longer promises ownership of the install.
    await expect(page.locator("main").textContent()).resolves.not.toContain("the first account owns this install");
    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByLabel("Name").fill("Nora New");
    await page.getByLabel("Email").fill("nora@example.com");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    // The account is made from the mailed link.
    await page.getByRole("status", { name: "Check your inbox" }).waitFor();
    const token = await stack.mailedToken("nora@example.com", "/confirm-sign-up/");
    await page.goto(`${stack.baseUrl}/confirm-sign-up/${token}`);
    await page.getByRole("button", { name: "Create my account" }).click();
    const steps = page.getByRole("list", { name: "Getting started" });
    await steps.waitFor();
    await expect(steps.getByRole("link").first().textContent()).resolves.toBe(
      "Create a project (the product under test)",
    );
    await page.getByRole("form", { name: "New project" }).waitFor();
    await shot(page, "first-visit");
    await context.close();
  });
});
