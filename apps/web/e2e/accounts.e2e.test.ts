import { stat } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createOrgFixture, type OrgFixture } from "@benchboard/api/testing/org-fixture";
import { createSession, createTarget, getSessionUser, signUp } from "@benchboard/db";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// What a team expects of a hosted service: a password reset through a mailed link, and the
// operator's list of organizations with their caps editable.
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(screenshotsDir, name), fullPage: true });

async function signedOutPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 } });
  return { context, page: await context.newPage() };
}

async function pageAs(sessionToken: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await stack.browser.newContext({ viewport: { width: 1440, height: 1000 } });
  await context.addCookies([
    { name: "bb_session", value: sessionToken, url: stack.baseUrl, httpOnly: true, sameSite: "Lax" },
  ]);
  return { context, page: await context.newPage() };
}

describe("password reset", () => {
  it("walks forgot → mailed link → new password → signed in, signing every other session out", async () => {
    const email = "forgetful@example.test";
    const account = await signUp(stack.db.db, { email, password: "the old password" });
    const laptop = await createSession(stack.db.db, account.id);
    const { context, page } = await signedOutPage();

    await page.goto(`${stack.baseUrl}/sign-in`);
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.waitForURL(/\/forgot-password$/);
    await page.getByRole("form", { name: "Ask for a reset link" }).waitFor();
    await shot(page, "password-reset-request.png");

    // An unknown email gets the very same answer.
    await page.getByLabel("Email").fill("nobody-here@example.test");
    await page.getByRole("button", { name: "Send reset link" }).click();
    const unknownAnswer = await page.getByRole("status").textContent();
    expect(unknownAnswer).toContain("If an account exists for this email, a link to reset its password was sent.");
    await page.getByRole("button", { name: "Ask again" }).click();

    const mailFrom = (await stack.readMail()).length;
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    expect(await page.getByRole("status").textContent()).toBe(unknownAnswer);
    await shot(page, "password-reset-sent.png");

    const token = await stack.mailedToken(email, "/reset-password/", mailFrom);
    // Only the account's link was mailed; the unknown address got none. No mail server: the mail
    // is in a file only the server's user reads, never in the web app's log.
    expect(await stack.readMail()).not.toContain("to nobody-here@example.test");
    expect(stack.logs.join("")).not.toContain(token);
    expect((await stat(stack.mailLog)).mode & 0o777).toBe(0o600);
    await page.goto(`${stack.baseUrl}/reset-password/${token}`);
    const form = page.getByRole("form", { name: "Choose a new password" });
    await form.waitFor();
    await page.getByLabel("New password", { exact: true }).fill("short");
    await page.getByLabel("Repeat the new password").fill("short");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.getByText("use at least 10 characters").waitFor();
    await page.getByLabel("New password", { exact: true }).fill("a much better password");
    await page.getByLabel("Repeat the new password").fill("a much better passwort");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.getByText("the two passwords differ").waitFor();
    await shot(page, "password-reset-form.png");
    await page.getByLabel("Repeat the new password").fill("a much better password");
    await page.getByRole("button", { name: "Set new password" }).click();
    // Signed in here, on the app's home page.
    await page.waitForURL(`${stack.baseUrl}/`);
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect(await getSessionUser(stack.db.db, laptop.token)).toBeNull();

    // The link is spent.
    await page.goto(`${stack.baseUrl}/reset-password/${token}`);
    await page.getByText("this reset link was already used; ask for a new one").waitFor();
    await shot(page, "password-reset-used-link.png");

    await context.clearCookies();
    await page.goto(`${stack.baseUrl}/sign-in`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("the old password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("email or password is incorrect").waitFor();
    await page.getByLabel("Password").fill("a much better password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${stack.baseUrl}/`);
    await context.close();
  });
});

describe("the operator's organizations", () => {
  let tenant: OrgFixture;
  beforeAll(async () => {
    tenant = await createOrgFixture(stack.db.db, "acme");
  });

  it("lets the operator lower a tenant's rate cap, after which the tenant's launch is refused past it", async () => {
    const { page } = stack;
    const { context: tenantContext, page: tenantPage } = await pageAs(tenant.users.member.sessionToken);
    const launchUrl = `${stack.baseUrl}/projects/${tenant.project.id}/launch?targetId=${tenant.target.id}&scenarioId=${tenant.scenario.id}`;
    // Before: the scenario (10 req/s) is within the tenant's caps.
    await tenantPage.goto(launchUrl);
    await tenantPage.getByRole("definition").filter({ hasText: "10,000 req/s" }).first().waitFor();
    await tenantPage.getByRole("button", { name: "Launch run" }).waitFor();
    expect(await tenantPage.locator("#launch-scenario-error").count()).toBe(0);

    await page.goto(`${stack.baseUrl}/settings/install`);
    const table = page.getByRole("table", { name: "Organizations" });
    const row = table.getByRole("row", { name: /Org acme/ });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/10,000 req\/s.*2,000.*1,800 s/);
    await page.getByRole("button", { name: "Edit the caps of Org acme" }).click();
    const form = page.getByRole("form", { name: "Caps of Org acme" });
    // Bad input is refused at its field and saves nothing.
    await form.getByLabel("Connections").fill("2.5");
    await form.getByRole("button", { name: "Save caps of Org acme" }).click();
    await form.getByText("must be a whole number").waitFor();
    await shot(page, "operator-organizations-bad-input.png");
    await form.getByLabel("Connections").fill("2000");
    await form.getByLabel("Rate (req/s)").fill("5");
    await form.getByRole("button", { name: "Save caps of Org acme" }).click();
    await page.getByRole("status").filter({ hasText: "Saved the caps of Org acme" }).waitFor();
    await expect.poll(async () => row.textContent()).toMatch(/5 req\/s/);
    await table.scrollIntoViewIfNeeded();
    await shot(page, "operator-organizations.png");
    await page
      .getByRole("region", { name: "Organizations (operator)" })
      .screenshot({ path: path.join(screenshotsDir, "operator-organizations-card.png") });
    const stored = await stack.db.db.organization.findUniqueOrThrow({ where: { id: tenant.org.id } });
    expect(stored.caps).toMatchObject({ maxRate: 5, maxConnections: 2000 });

    // The tenant's next launch is refused past the new cap, and nothing is stored.
    const runsBefore = await stack.db.db.run.count({ where: { orgId: tenant.org.id } });
    await tenantPage.goto(launchUrl);
    await tenantPage.locator("#launch-scenario-error").waitFor();
    expect(await tenantPage.locator("#launch-scenario-error").textContent()).toBe(
      "this scenario asks for 10 req/s; the organization allows at most 5 req/s",
    );
    await tenantPage.getByRole("button", { name: "Launch run" }).click();
    await new Promise((r) => setTimeout(r, 500));
    expect(await stack.db.db.run.count({ where: { orgId: tenant.org.id } })).toBe(runsBefore);
    await shot(tenantPage, "tenant-launch-over-operator-cap.png");
    await tenantContext.close();
  });

  it("is never shown to a tenant's owner, and its procedures refuse them", async () => {
    const { context, page } = await pageAs(tenant.users.owner.sessionToken);
    await page.goto(`${stack.baseUrl}/settings`);
    // Settings opens on its first section, and a tenant's section nav has no Install.
    await page.waitForURL((url) => url.pathname === "/settings/members");
    await page.getByRole("table", { name: "Members" }).waitFor();
    expect(
      await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Install" }).count(),
    ).toBe(0);
    await page.getByRole("heading", { name: "Organization", exact: true }).waitFor();
    expect(await page.getByRole("heading", { name: "Organizations (operator)" }).count()).toBe(0);
    expect(await page.getByRole("table", { name: "Organizations" }).count()).toBe(0);
    await shot(page, "tenant-settings-no-operator-cards.png");
    const answer = await page.evaluate(async () => {
      const res = await fetch("/api/trpc/install.organizations");
      return { status: res.status, body: await res.text() };
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toContain("install settings belong to the operator");
    expect(answer.body).not.toContain("Org acme");
    await context.close();
  });

  it("asks before revoking an agent token or removing a member, and offers to copy a new token", async () => {
    const { context, page } = await pageAs(tenant.users.owner.sessionToken);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.baseUrl });
    await page.goto(`${stack.baseUrl}/settings/agents`);
    const db = stack.db.db;

    // Revoking an agent token asks first; "Cancel" keeps it.
    const agentTokens = page.getByRole("table", { name: "Agent tokens" });
    await agentTokens.waitFor();
    await page.getByRole("button", { name: "Revoke agent token lab agents" }).click();
    const revokeDialog = page.getByRole("alertdialog", { name: 'Revoke the agent token "lab agents"?' });
    await revokeDialog.waitFor();
    await shot(page, "agent-token-revoke-confirm.png");
    await revokeDialog.getByRole("button", { name: "Cancel" }).click();
    expect(await revokeDialog.count()).toBe(0);
    expect((await db.apiToken.findUniqueOrThrow({ where: { id: tenant.agentToken.id } })).revokedAt).toBeNull();
    await page.getByRole("button", { name: "Revoke agent token lab agents" }).click();
    await revokeDialog.getByRole("button", { name: "Revoke agent token" }).click();
    await agentTokens
      .getByRole("row", { name: /lab agents/ })
      .getByText("revoked")
      .waitFor();
    expect((await db.apiToken.findUniqueOrThrow({ where: { id: tenant.agentToken.id } })).revokedAt).not.toBeNull();

    // Removing a member asks first, naming them.
    const viewer = tenant.users.viewer;
    await page.goto(`${stack.baseUrl}/settings/members`);
    await page.getByRole("button", { name: `Remove ${viewer.email}` }).click();
    const removeDialog = page.getByRole("alertdialog", { name: `Remove ${viewer.email} from this organization?` });
    await removeDialog.waitFor();
    await removeDialog.getByRole("button", { name: "Cancel" }).click();
    expect(await db.membership.count({ where: { id: viewer.membershipId } })).toBe(1);
    await page.getByRole("button", { name: `Remove ${viewer.email}` }).click();
    await removeDialog.getByRole("button", { name: "Remove member" }).click();
    await removeDialog.waitFor({ state: "detached" });
    // The list refreshes after the dialog closes: wait for the row to go rather than reading once.
    await page
      .getByRole("table", { name: "Members" })
      .getByRole("row", { name: new RegExp(viewer.email.replace(/[.]/g, "\\.")) })
      .waitFor({ state: "detached" });
    expect(await db.membership.count({ where: { id: viewer.membershipId } })).toBe(0);
    expect(await page.getByRole("table", { name: "Members" }).textContent()).not.toContain(viewer.email);

    // A new token is shown once, with a button that copies it.
    await page.goto(`${stack.baseUrl}/settings/agents`);
    await page.getByLabel("Agent token name").fill("staging network");
    await page.getByRole("button", { name: "Create agent token" }).click();
    const shown = (await page.getByLabel("New agent token").textContent())!.trim();
    expect(shown).toMatch(/^bba_/);
    await page.getByRole("button", { name: "Copy token" }).click();
    await page.getByText("Copied", { exact: true }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
    await shot(page, "agent-token-created-copy.png");
    await context.close();
  });
});

describe("a stranger's first probe", () => {
  it("sends at most 10 GET requests to an unverified origin from the target's page", async () => {
    const stranger = await createOrgFixture(stack.db.db, "zeta");
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.end("hello");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const target = await createTarget(stack.db.db, stranger.org.id, {
        projectId: stranger.project.id,
        name: "fresh service",
        kind: "http",
        baseUrl: `http://127.0.0.1:${port}`,
      });
      const { context, page } = await pageAs(stranger.users.member.sessionToken);
      await page.goto(`${stack.baseUrl}/projects/${stranger.project.id}/targets/${target.id}`);
      await page.getByText("not verified — only a probe of up to 10 requests may reach it").waitFor();
      await shot(page, "target-probe-button.png");
      await page.getByRole("button", { name: "Send a probe (10 requests)" }).click();
      await page.waitForURL(/\/runs\/[a-z0-9]+$/);
      const runId = page.url().split("/").pop()!;
      await page
        .locator('h1 [data-status="succeeded"], h1 [data-status="failed"]')
        .first()
        .waitFor({ timeout: 60_000 });
      const run = await stack.db.db.run.findUniqueOrThrow({ where: { id: runId }, include: { result: true } });
      expect(run.status, `${run.error}\n${stack.logs.join("").slice(-2_000)}`).toBe("succeeded");
      expect(run.tags).toEqual(["probe"]);
      expect(seen).toEqual(Array(10).fill("GET /"));
      await shot(page, "target-probe-run.png");
      await context.close();
    } finally {
      server.close();
    }
  });
});
