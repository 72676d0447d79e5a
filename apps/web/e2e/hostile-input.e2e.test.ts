import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createApiToken, createProject, ensureLocalOrganization } from "@benchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "./harness";

// The built app (`next build && next start`) under hostile input: uploads are read on the parse
// pool's threads as bundled by Next.js, so one huge upload never holds up other requests.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const FIXTURES = path.join(repoRoot, "packages/core/src/importers/fixtures");

let stack: Stack;
let token = "";
let projectSlug = "";

beforeAll(async () => {
  stack = await startStack();
  const db = stack.db.db;
  const orgId = (await ensureLocalOrganization(db)).id;
  projectSlug = (await createProject(db, orgId, { name: "Hostile" })).slug;
  token = (
    await createApiToken(db, orgId, { name: "ci", scopes: ["runs:read", "runs:write"], createdById: stack.user.id })
  ).token;
});
afterAll(async () => {
  await stack?.close();
});

function upload(body: string, query = "") {
  return fetch(`${stack.baseUrl}/api/v1/runs?project=${projectSlug}${query}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "text/plain" },
    body,
  });
}

/** The signed-in session's `auth.me`, as every page asks it; its time in ms. */
async function timedMe(): Promise<number> {
  const cookies = await stack.page.context().cookies();
  const cookie = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
  const t0 = performance.now();
  const res = await fetch(`${stack.baseUrl}/api/trpc/auth.me`, { headers: { cookie } });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return performance.now() - t0;
}

describe("uploads in the built app", () => {
  it("reads a tool's output on a pool thread of the server build", async () => {
    const res = await upload(readFileSync(path.join(FIXTURES, "wrk2/latency.txt"), "utf8"));
    expect(res.status).toBe(201);
    const body = (await res.json()) as { run: { source: string; result: { metrics: Record<string, number> } } };
    expect(body.run.source).toBe("import:wrk");
    expect(body.run.result.metrics.requests).toBeGreaterThan(0);
  });

  it("answers other requests while a 10 MB hostile upload is read", async () => {
    const usual: number[] = [];
    for (let i = 0; i < 10; i++) usual.push(await timedMe());
    const hostile = `${" ".repeat(8_000)}x\n`.repeat(1_240);
    let uploadDone = 0;
    const started = performance.now();
    const uploading = upload(hostile, "&format=wrk").then(async (res) => {
      uploadDone = performance.now();
      return { status: res.status, body: (await res.json()) as { error: { message: string; line?: number } } };
    });
    // Ask as a page would, back to back, for as long as the upload is being sent and read.
    const during: number[] = [];
    while (uploadDone === 0) {
      const ms = await timedMe();
      if (uploadDone === 0) during.push(ms);
    }
    const result = await uploading;
    expect(result.status).toBe(400);
    expect(result.body.error.message).toMatch(/^wrk output, line 1: this is not wrk output/);
    expect(during.length).toBeGreaterThan(0);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    console.log(
      `auth.me median ${median(usual).toFixed(1)} ms alone, ${median(during).toFixed(1)} ms (max ${Math.max(...during).toFixed(1)} ms, n=${during.length}) during a 10 MB upload answered in ${(uploadDone - started).toFixed(0)} ms`,
    );
  });
});

describe("hardening of the built app", () => {
  it("serves pages with a nonce CSP, no framing, nosniff and a same-origin referrer policy", async () => {
    const res = await fetch(`${stack.baseUrl}/sign-in`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
    expect(res.headers.get("strict-transport-security")).toBeNull();
    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    // A second request gets a fresh nonce.
    const again = (await fetch(`${stack.baseUrl}/sign-in`)).headers.get("content-security-policy");
    expect(again).not.toBe(csp);
  });

  it("runs the pages' scripts under that policy: the signed-in browser sees its projects", async () => {
    const violations: string[] = [];
    stack.page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await stack.page.goto(`${stack.baseUrl}/`);
    await stack.page.getByText("Hostile", { exact: true }).first().waitFor({ timeout: 30_000 });
    expect(violations).toEqual([]);
  });

  it("shows a branded 404 and serves a favicon", async () => {
    const res = await fetch(`${stack.baseUrl}/share/${"x".repeat(43)}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("This page does not exist");
    const icon = await fetch(`${stack.baseUrl}/icon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toMatch(/svg/);
  });

  it("refuses a cross-site write that forges X-Forwarded-Host", async () => {
    const res = await fetch(`${stack.baseUrl}/api/trpc/auth.signOut`, {
      method: "POST",
      headers: {
        origin: "http://evil.example",
        "x-forwarded-host": "evil.example",
        "content-type": "application/json",
      },
      body: "{}",
    });
    expect(res.status).toBe(403);
  });

  it("counts sign-in attempts under the socket address, whatever X-Forwarded-For says", async () => {
    const attempt = (i: number) =>
      fetch(`${stack.baseUrl}/api/trpc/auth.signIn`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: stack.baseUrl,
          "x-forwarded-for": `203.0.113.${i}`,
        },
        body: JSON.stringify({ json: { email: "owner@example.com", password: `wrong guess ${i}` } }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await attempt(i)).status);
    // Five wrong tries, then the address must wait: a new X-Forwarded-For each time changes nothing.
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });
});
