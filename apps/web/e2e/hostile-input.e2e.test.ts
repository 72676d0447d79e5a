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
