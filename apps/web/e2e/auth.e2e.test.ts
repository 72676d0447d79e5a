import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// Accounts through the browser and the HTTP boundary: sign-up, sign-in, sign-out, invitations,
// roles, and the refusals an exposed install must make.
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

async function freshPage() {
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 900 } });
  return { context, page: await context.newPage() };
}

describe("accounts", () => {
  it("sends signed-out visitors to sign-in and refuses anonymous API calls", async () => {
    const { context, page } = await freshPage();
    await page.goto(`${stack.baseUrl}/runs`);
    await page.waitForURL(/\/sign-in\?next=%2Fruns/);
    await page.screenshot({ path: path.join(screenshotsDir, "sign-in.png") });
    const res = await fetch(`${stack.baseUrl}/api/trpc/project.list`);
    expect(res.status).toBe(401);
    const body = await res.text();
    expect(body).toContain("sign in to continue");
    await context.close();
  });

  it("rejects a wrong password without saying which part was wrong, then signs in", async () => {
    const { context, page } = await freshPage();
    await page.goto(`${stack.baseUrl}/sign-in`);
    await page.getByLabel("Email").fill(stack.user.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("email or password is incorrect").waitFor();
    await page.getByLabel("Password").fill(stack.user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "bb_session");
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Lax");
    // Only a hash of the token is stored.
    const stored = await stack.db.db.session.findMany({ select: { tokenHash: true } });
    expect(stored.some((s) => s.tokenHash === session?.value)).toBe(false);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/sign-in/);
    const after = await fetch(`${stack.baseUrl}/api/trpc/project.list`, {
      headers: { cookie: `bb_session=${session?.value}` },
    });
    expect(after.status).toBe(401);
    await context.close();
  });

  it("refuses bad sign-up input at the field and stores nothing", async () => {
    const { context, page } = await freshPage();
    const before = await stack.db.db.user.count();
    await page.goto(`${stack.baseUrl}/sign-up`);
    await page.getByLabel("Email").fill("ok@example.com");
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByText("use at least 10 characters").textContent()).resolves.toBeTruthy();
    await page.getByLabel("Email").fill(stack.user.email);
    await page.getByLabel("Password").fill("long enough password");
    await page.getByRole("button", { name: "Create account" }).click();
    // A registered email is answered like a new one: check your inbox, no session. Nothing on the
    // page says the email is taken (only its owner's inbox does).
    const answer = page.getByRole("status", { name: "Check your inbox" });
    await answer.waitFor();
    await expect(page.getByText(/already (exists|has)/).count()).resolves.toBe(0);
    expect((await context.cookies()).find((c) => c.name === "bb_session")).toBeUndefined();
    expect(await stack.db.db.user.count()).toBe(before);
    await context.close();
  });

  it("signs a new account up through the mailed link, answered as a registered email is", async () => {
    const answers: string[] = [];
    for (const email of [stack.user.email, "newcomer@example.com"]) {
      const { context, page } = await freshPage();
      await page.goto(`${stack.baseUrl}/sign-up`);
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill("long enough password");
      await page.getByRole("button", { name: "Create account" }).click();
      const answer = page.getByRole("status", { name: "Check your inbox" });
      await answer.waitFor();
      answers.push(((await answer.textContent()) ?? "").replace(email, "<email>"));
      expect((await context.cookies()).find((c) => c.name === "bb_session")).toBeUndefined();
      await context.close();
    }
    expect(answers[1]).toBe(answers[0]);
    expect(await stack.db.db.user.count({ where: { email: "newcomer@example.com" } })).toBe(0);

    const token = await stack.mailedToken("newcomer@example.com", "/confirm-sign-up/");
    const { context, page } = await freshPage();
    await page.goto(`${stack.baseUrl}/confirm-sign-up/${token}`);
    await page.screenshot({ path: path.join(screenshotsDir, "confirm-sign-up.png") });
    await page.getByRole("button", { name: "Create my account" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    expect(await stack.db.db.user.count({ where: { email: "newcomer@example.com" } })).toBe(1);
    // The link works once.
    await page.goto(`${stack.baseUrl}/confirm-sign-up/${token}`);
    await page.getByRole("button", { name: "Create my account" }).click();
    await page.getByText("this confirmation link was already used; sign in").waitFor();
    await context.close();
  });

  it("sends every page whose session ended to sign-in, coming back to it after", async () => {
    const { createSession, deleteSession, createProject } = await import("@benchboard/db");
    const local = await stack.db.db.organization.findUniqueOrThrow({ where: { slug: "local" } });
    const project = await createProject(stack.db.db, local.id, { name: "Ended session" });
    // Settings by its first section's address: /settings itself only redirects there.
    const pages = ["/", "/runs", `/projects/${project.id}`, "/trends", "/settings/members", "/workers", "/launch"];
    for (const pathname of pages) {
      const { token } = await createSession(stack.db.db, stack.user.id);
      const { context, page } = await freshPage();
      await context.addCookies([
        { name: "bb_session", value: token, url: stack.baseUrl, httpOnly: true, sameSite: "Lax" },
      ]);
      await page.goto(`${stack.baseUrl}${pathname}`);
      await page.getByRole("button", { name: "Sign out" }).waitFor();
      // Signed out elsewhere (or expired): the cookie is still here, the session is not.
      await deleteSession(stack.db.db, token);
      await page.reload();
      const expected = pathname === "/" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(pathname)}`;
      await page.waitForURL((url) => url.pathname + url.search === expected, { timeout: 15_000 });
      await page.getByRole("button", { name: "Sign in" }).waitFor();
      await expect(page.getByText("Something went wrong").count()).resolves.toBe(0);
      if (pathname === "/runs") await page.screenshot({ path: path.join(screenshotsDir, "session-ended.png") });
      // Signing in again comes back to the page.
      if (pathname === "/trends") {
        await page.getByLabel("Email").fill(stack.user.email);
        await page.getByLabel("Password").fill(stack.user.password);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.waitForURL((url) => url.pathname === "/trends");
      }
      await context.close();
    }
  });

  it("invites a viewer who can read but not change anything", async () => {
    const { page } = stack;
    await page.goto(`${stack.baseUrl}/settings/members`);
    await page.getByLabel("Email").fill("vera@example.com");
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Create invitation" }).click();
    const link = (await page.getByLabel("Invitation link").textContent())?.trim() ?? "";
    expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
    // The operator's section: the allow-list for its own organization and, apart, what tenants may target.
    await page.goto(`${stack.baseUrl}/settings/install`);
    await page.getByLabel("Tenants may target").waitFor();
    await page.screenshot({ path: path.join(screenshotsDir, "settings.png"), fullPage: true });

    const { context, page: vera } = await freshPage();
    await vera.goto(link);
    await vera.getByRole("link", { name: "Create account" }).click();
    await vera.getByLabel("Password").fill("vera's long password");
    await vera.getByRole("button", { name: "Create account" }).click();
    // The account made from the link is already in the inviting organization.
    await vera.waitForURL((url) => url.pathname === "/");
    await vera.getByRole("heading", { name: "Projects" }).waitFor();
    const membership = await stack.db.db.membership.findFirst({
      where: { user: { email: "vera@example.com" }, role: "viewer" },
    });
    expect(membership).not.toBeNull();

    // The viewer's own cookie cannot create anything, and nothing is stored.
    const cookie = (await context.cookies()).find((c) => c.name === "bb_session");
    await context.addCookies([{ name: "bb_org", value: "local", url: stack.baseUrl }]);
    // A viewer is not shown who else is in the organization.
    await vera.goto(`${stack.baseUrl}/settings/members`);
    await vera.getByText("Only owners and members of this organization see its members.").waitFor();
    expect(await vera.getByText(stack.user.email).count()).toBe(0);
    await vera.screenshot({ path: path.join(screenshotsDir, "settings-viewer.png"), fullPage: true });
    const res = await fetch(`${stack.baseUrl}/api/trpc/project.create`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        cookie: `bb_session=${cookie?.value}; bb_org=local`,
        origin: stack.baseUrl,
      },
      body: JSON.stringify({ json: { name: "sneaky" } }),
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("this needs the member role");
    expect(await stack.db.db.project.count({ where: { name: "sneaky" } })).toBe(0);
    // A used invitation cannot be used again.
    const again = await fetch(
      `${stack.baseUrl}/api/trpc/auth.invitation?input=${encodeURIComponent(JSON.stringify({ json: { token: link.split("/").pop() } }))}`,
    );
    expect(again.status).toBe(404);
    await context.close();
  });

  it("refuses cross-site writes carrying the session cookie", async () => {
    const { context, page } = await freshPage();
    await page.goto(`${stack.baseUrl}/sign-in`);
    const session = await stack.db.db.user.findUniqueOrThrow({ where: { email: stack.user.email } });
    const { createSession } = await import("@benchboard/db");
    const { token } = await createSession(stack.db.db, session.id);
    const res = await fetch(`${stack.baseUrl}/api/trpc/project.create`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `bb_session=${token}`, origin: "https://evil.example" },
      body: JSON.stringify({ json: { name: "csrf" } }),
    });
    expect(res.status).toBe(403);
    const same = await fetch(`${stack.baseUrl}/api/trpc/project.create`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `bb_session=${token}`, origin: stack.baseUrl },
      body: JSON.stringify({ json: { name: "legit" } }),
    });
    expect(same.status).toBe(200);
    expect(await stack.db.db.project.count({ where: { name: "csrf" } })).toBe(0);
    expect(await stack.db.db.project.count({ where: { name: "legit" } })).toBe(1);
    await context.close();
  });
});
