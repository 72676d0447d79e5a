import path from "node:path";
import { createInstanceConfig, createProject } from "@benchboard/db";
import { seedPublishedDemo } from "@benchboard/db/seed";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// The list kit (filters and page in the address, empty states, the runs list's export), the form
// kit (the server's zod messages at the field, a warning before unsaved changes are left) and
// Settings in sections, each at its own address, in both themes.
let stack: Stack;
let projectId: string;
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(screenshotsDir, name), fullPage: true });

beforeAll(async () => {
  stack = await startStack();
  const db = stack.db.db;
  const local = await db.organization.findUniqueOrThrow({ where: { slug: "local" } });
  const project = await createProject(db, local.id, { name: "Kit checks" });
  projectId = project.id;
  // 27 configs: more than one page (25), a few of them "large".
  for (let i = 1; i <= 27; i++) {
    const large = i % 9 === 0;
    await createInstanceConfig(db, local.id, {
      projectId,
      name: `${large ? "large" : "small"} box ${String(i).padStart(2, "0")}`,
      instanceType: large ? "m5.4xlarge" : "t3.small",
      vcpu: large ? 16 : 2,
      memoryMb: large ? 65_536 : 2_048,
      cpuLimit: null,
      replicas: 1,
      knobs: {},
    });
  }
  await seedPublishedDemo(db);
});

afterAll(async () => {
  await stack?.close();
});

describe("list kit", () => {
  it("keeps the filter and the page in the address, through a reload", async () => {
    const { page, baseUrl } = stack;
    const list = `${baseUrl}/projects/${projectId}/configs`;
    await page.goto(list);
    const table = page.getByRole("table", { name: "Instance configs" });
    await table.waitFor();
    // 27 rows at 25 a page: two pages.
    expect(await table.getByRole("row").count()).toBe(26);
    const pages = page.getByRole("navigation", { name: "Pages of instance configs" });
    expect(await pages.textContent()).toContain("Page 1 of 2 · 27 instance configs");
    await pages.getByRole("button", { name: "Next" }).click();
    await page.waitForURL((url) => url.searchParams.get("page") === "2");
    await expect.poll(() => table.getByRole("row").count()).toBe(3);

    await page.getByLabel("Filter instance configs").fill("large");
    await page.waitForURL((url) => url.searchParams.get("q") === "large" && !url.searchParams.has("page"));
    await expect.poll(() => table.getByRole("row").count()).toBe(4);
    await page.reload();
    await table.waitFor();
    expect(await page.getByLabel("Filter instance configs").inputValue()).toBe("large");
    expect(await table.getByRole("row").count()).toBe(4);
    for (const name of ["large box 09", "large box 18", "large box 27"]) {
      await table.getByRole("link", { name, exact: true }).waitFor();
    }
    await shot(page, "list-kit-filter-in-url.png");
  });

  it("says when a filter matches nothing, and when a list is empty", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/projects/${projectId}/configs?q=no-such-box`);
    await page.getByText("No instance configs match “no-such-box”").waitFor();
    expect(await page.getByRole("table", { name: "Instance configs" }).count()).toBe(0);
    await shot(page, "list-kit-filter-no-match.png");

    await page.goto(`${baseUrl}/projects/${projectId}/scenarios`);
    await page.getByText("No scenarios yet").waitFor();
    // No filter box over an empty list.
    expect(await page.getByLabel("Filter scenarios").count()).toBe(0);
    await shot(page, "list-kit-empty.png");
  });

  it("asks before deleting a row, and deletes it only once confirmed", async () => {
    const { page, baseUrl } = stack;
    const db = stack.db.db;
    await page.goto(`${baseUrl}/projects/${projectId}/configs?q=small+box+01`);
    const table = page.getByRole("table", { name: "Instance configs" });
    await table.getByRole("link", { name: "small box 01", exact: true }).waitFor();
    await page.getByRole("button", { name: "Delete small box 01" }).click();
    const dialog = page.getByRole("alertdialog", { name: 'Delete instance config "small box 01"?' });
    await dialog.getByText("Its 0 runs keep the snapshot of the config they ran with.").waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await db.instanceConfig.count({ where: { projectId, name: "small box 01" } })).toBe(1);
    await page.getByRole("button", { name: "Delete small box 01" }).click();
    await dialog.getByRole("button", { name: "Delete config" }).click();
    await dialog.waitFor({ state: "detached" });
    // The filter still holds, and now nothing matches it.
    await page.getByText("No instance configs match “small box 01”").waitFor();
    expect(await db.instanceConfig.count({ where: { projectId, name: "small box 01" } })).toBe(0);
  });

  it("exports what the runs list's filters select, as CSV and JSON", async () => {
    const context = await demoContext("light");
    const page = await context.newPage();
    const db = stack.db.db;
    const gateway = await db.project.findFirstOrThrow({ where: { slug: "llm-gateway", org: { slug: "demo" } } });
    const expected = await db.run.count({ where: { projectId: gateway.id } });
    expect(expected).toBeGreaterThan(1);
    await page.goto(`${stack.baseUrl}/runs?projectId=${gateway.id}`);
    await page.getByRole("table", { name: "Runs" }).waitFor();
    const csvHref = await page.getByRole("link", { name: "CSV" }).getAttribute("href");
    expect(csvHref).toBe(`/runs/export?projectId=${gateway.id}&format=csv`);
    const answers = await page.evaluate(async (href) => {
      const csv = await fetch(href);
      const json = await fetch(href.replace("format=csv", "format=json"));
      return {
        csvType: csv.headers.get("content-type"),
        disposition: csv.headers.get("content-disposition"),
        csv: await csv.text(),
        json: await json.json(),
      };
    }, csvHref!);
    expect(answers.csvType).toContain("text/csv");
    expect(answers.disposition).toMatch(/^attachment; filename="runs-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = answers.csv.trimEnd().split("\r\n");
    expect(lines[0]).toMatch(/^id,number,status,reading,excluded,project,scenario/);
    expect(lines.length - 1).toBe(expected);
    expect(answers.json.count).toBe(expected);
    expect(answers.json.runs.every((r: { project: string }) => r.project === gateway.name)).toBe(true);
    // The reload keeps the filter: the list still shows only that project's runs.
    await page.reload();
    await page.getByRole("table", { name: "Runs" }).waitFor();
    expect(await page.locator("#filter-project").inputValue()).toBe(gateway.id);
    await context.close();
  });
});

describe("form kit", () => {
  it("shows the server schema's message beside the field, before anything is sent", async () => {
    const { page, baseUrl } = stack;
    const before = await stack.db.db.instanceConfig.count({ where: { projectId } });
    await page.goto(`${baseUrl}/projects/${projectId}/configs/new`);
    await page.getByLabel("Config name").fill("   ");
    await page.getByLabel("vCPU").fill("-2");
    await page.getByLabel("CPU limit (cores)").fill("4096");
    await page.getByRole("button", { name: "Create config" }).click();
    await page.locator("#config-name-error").getByText("name is required").waitFor();
    expect(await page.locator("#config-vcpu-error").textContent()).toBe("must be more than 0");
    expect(await page.locator("#config-cpu-limit-error").textContent()).toBe("at most 1024");
    expect(await page.getByLabel("vCPU").getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("vCPU").getAttribute("aria-describedby")).toBe("config-vcpu-error");
    await shot(page, "form-kit-zod-errors.png");
    expect(await stack.db.db.instanceConfig.count({ where: { projectId } })).toBe(before);
  });

  it("asks before leaving unsaved changes, and stays when told to", async () => {
    const { page, baseUrl } = stack;
    const editor = `${baseUrl}/projects/${projectId}/configs/new`;
    await page.goto(editor);
    // Nothing typed yet: Cancel leaves without a question.
    const asked: string[] = [];
    const onDialog = async (d: import("playwright-core").Dialog) => {
      asked.push(d.message());
      await (asked.length === 1 ? d.dismiss() : d.accept());
    };
    page.on("dialog", onDialog);
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.waitForURL((url) => url.pathname === `/projects/${projectId}/configs`);
    expect(asked).toEqual([]);

    await page.goto(editor);
    await page.getByLabel("Config name").fill("half typed");
    await page.getByRole("link", { name: "Cancel" }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toBe("You have unsaved changes. Leave this page without saving them?");
    // Dismissed: still on the editor with what was typed.
    expect(new URL(page.url()).pathname).toBe(`/projects/${projectId}/configs/new`);
    expect(await page.getByLabel("Config name").inputValue()).toBe("half typed");
    // Confirmed: leaves.
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.waitForURL((url) => url.pathname === `/projects/${projectId}/configs`);
    expect(asked.length).toBe(2);
    page.off("dialog", onDialog);
  });
});

async function demoContext(theme: "light" | "dark"): Promise<BrowserContext> {
  const context = await stack.browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: theme });
  const cookies = await stack.page.context().cookies();
  await context.addCookies([...cookies, { name: "bb_org", value: "demo", url: stack.baseUrl, sameSite: "Lax" }]);
  return context;
}

describe("settings in sections", () => {
  const SECTIONS = [
    { slug: "members", shows: (p: Page) => p.getByRole("table", { name: "Members" }) },
    { slug: "tokens", shows: (p: Page) => p.getByRole("form", { name: "Create API token" }) },
    { slug: "agents", shows: (p: Page) => p.getByRole("form", { name: "Create agent token" }) },
    { slug: "notifications", shows: (p: Page) => p.getByRole("region", { name: "Notifications" }) },
    { slug: "install", shows: (p: Page) => p.getByLabel("Tenants may target") },
  ];

  it("opens on the first section", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/settings`);
    await page.waitForURL((url) => url.pathname === "/settings/members");
    await page.getByRole("table", { name: "Members" }).waitFor();
  });

  for (const theme of ["light", "dark"] as const) {
    it(`renders each section at its own address (${theme})`, async () => {
      const context = await stack.browser.newContext({
        viewport: { width: 1400, height: 900 },
        colorScheme: theme,
      });
      await context.addCookies(await stack.page.context().cookies());
      const page = await context.newPage();
      for (const section of SECTIONS) {
        await page.goto(`${stack.baseUrl}/settings/${section.slug}`);
        await section.shows(page).first().waitFor();
        const nav = page.getByRole("navigation", { name: "Settings sections" });
        // Exactly this section is the current one.
        const current = nav.locator('[aria-current="page"]');
        await expect.poll(() => current.count(), { timeout: 15_000 }).toBe(1);
        expect(await current.getAttribute("href")).toBe(`/settings/${section.slug}`);
        // The operator sees every section, Install too (once their role has loaded).
        await expect.poll(() => nav.getByRole("link").count(), { timeout: 15_000 }).toBe(SECTIONS.length);
        // The page's background follows the theme.
        const dark = await page.evaluate(() => {
          // Read back through a canvas: the computed colour may be in any CSS colour space.
          const ctx = document.createElement("canvas").getContext("2d")!;
          ctx.fillStyle = getComputedStyle(document.body).backgroundColor;
          ctx.fillRect(0, 0, 1, 1);
          const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
          return r! + g! + b! < 3 * 128;
        });
        expect(dark).toBe(theme === "dark");
        await shot(page, `settings-${section.slug}-${theme}.png`);
      }
      await context.close();
    });
  }
});
