import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// An invalid measurement is visible wherever its run appears: a rate sweep whose top value the
// target cannot carry (4 connections to a 40 ms service hold ~100 req/s) is drawn hollow, badged
// and never picked; the runs list badges it; an LLM run's page shows the generator's own figures
// beside the target's and per-second TTFT and inter-token timelines.
let stack: Stack;
let target: http.Server;
let targetUrl: string;

beforeAll(async () => {
  target = http.createServer((req, res) => {
    if (req.url === "/v1/chat/completions") {
      req.resume();
      // A streaming model: first event after 40 ms, then four more 25 ms apart, two tokens each,
      // and the usage chunk it was asked for.
      res.setHeader("content-type", "text/event-stream");
      let sent = 0;
      const event = () => {
        res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: `tok${sent} tok ` } }] })}\n\n`);
        if (++sent < 5) setTimeout(event, 25);
        else {
          res.write(`data: ${JSON.stringify({ choices: [], usage: { completion_tokens: 10 } })}\n\n`);
          res.end("data: [DONE]\n\n");
        }
      };
      setTimeout(event, 40);
      return;
    }
    setTimeout(() => res.end("ok"), 40);
  });
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
  target?.close();
});

async function project(name: string, slug: string) {
  const db = stack.db.db;
  const org = await db.organization.findUniqueOrThrow({ where: { slug: "local" } });
  const created = await db.project.create({ data: { orgId: org.id, name, slug } });
  const owned = { orgId: org.id, projectId: created.id };
  const t = await db.target.create({ data: { ...owned, name: "svc", kind: "http", baseUrl: targetUrl } });
  return { owned, project: created, target: t };
}

async function shot(name: string) {
  await stack.page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage: true });
}

describe("invalid measurements", () => {
  it("marks a sweep's invalid value, never picks it, and badges it in the runs list", async () => {
    const { page, baseUrl, db } = stack;
    const { owned, project: p, target: t } = await project("Rate sweep", "rate-sweep");
    const scenario = await db.db.scenario.create({
      data: {
        ...owned,
        name: "open 4 connections",
        engine: "http-open",
        spec: { engine: "http-open", rate: 20, durationS: 3, warmupS: 0, maxConnections: 4, timeoutMs: 5_000 },
      },
    });
    await page.goto(`${baseUrl}/sweeps`);
    const form = page.getByRole("form", { name: "New sweep" });
    await form.getByLabel("Project").selectOption({ label: p.name });
    await form.getByLabel("Sweep name").fill("rate 20–400");
    await form.getByLabel("Parameter").fill("scenario.rate");
    await form.getByLabel("Values").fill("20, 40, 400");
    await form.getByRole("button", { name: "Launch sweep" }).click();
    await page.waitForURL(/\/sweeps\/[a-z0-9]+$/);
    await page.locator('h1 [data-status="succeeded"]').waitFor({ timeout: 120_000 });

    const sweepId = page.url().split("/").pop()!;
    const runs = await db.db.run.findMany({
      where: { sweepId },
      orderBy: { groupIndex: "asc" },
      select: { result: { select: { valid: true, invalidReasons: true, metrics: true } } },
    });
    // 400 req/s over 4 connections to a 40 ms service: the target held the connections.
    const top = runs[2]!.result!;
    expect(top.valid).toBe(false);
    expect(top.invalidReasons[0]).toMatch(/^the target (is the limit|did not keep up)/);
    // It achieved the highest rate of the three, and still is not the best value.
    const rates = runs.map((r) => (r.result!.metrics as Record<string, number>).rps!);
    expect(rates[2]).toBeGreaterThan(rates[1]!);

    const table = page.getByRole("table", { name: "Sweep summary" });
    const rows = table.locator("tbody tr");
    await expect(rows.count()).resolves.toBe(3);
    const last = rows.nth(2);
    await last.locator("[data-invalid]").waitFor();
    await expect(last.locator("[data-invalid]").textContent()).resolves.toBe("invalid");
    await expect(last.textContent()).resolves.toMatch(/not a valid measurement: the target/);
    await expect(last.textContent()).resolves.not.toContain("★ best");
    // The chart draws it hollow and says why. (On a machine busy enough, the generator may also
    // have been late at the lower rates: those runs then say so and are marked the same way.)
    const invalidRuns = runs.filter((r) => !r.result!.valid).length;
    await expect(page.locator("figure circle[data-invalid]").count()).resolves.toBe(invalidRuns);
    await page.getByText(/Hollow amber points are not valid measurements \(\d runs?\)/).waitFor();
    await expect(table.locator("tr", { hasText: "★ best" }).locator("[data-invalid]").count()).resolves.toBe(0);
    await shot("sweep-invalid-point");

    await page.goto(`${baseUrl}/runs`);
    const badge = page.locator("table tbody tr [data-invalid]");
    await badge.first().waitFor();
    await expect(badge.count()).resolves.toBe(invalidRuns);
    await shot("runs-list-invalid");

    // Before the next launch, the form says what one worker sends on time with this engine.
    await page.goto(`${baseUrl}/projects/${p.id}/launch?targetId=${t.id}&scenarioId=${scenario.id}`);
    await page.getByText(/One worker sends about [\d,]+ req\/s on time with this engine/).waitFor();
  });

  it("shows the generator's own figures and per-second TTFT and inter-token timelines on an LLM run", async () => {
    const { page, baseUrl, db } = stack;
    const { owned, project: p, target: t } = await project("LLM", "llm");
    const scenario = await db.db.scenario.create({
      data: {
        ...owned,
        name: "chat stream",
        engine: "llm",
        spec: { engine: "llm", rate: 20, durationS: 4, stream: true, warmupS: 1 },
      },
    });
    await page.goto(`${baseUrl}/projects/${p.id}/launch?targetId=${t.id}&scenarioId=${scenario.id}`);
    await page.getByRole("button", { name: /^Launch/ }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
    const runId = page.url().split("/").pop()!;
    await page.getByRole("table", { name: "Load generator figures" }).waitFor({ timeout: 60_000 });
    const run = await db.db.run.findUniqueOrThrow({ where: { id: runId }, select: { result: true } });
    const metrics = run.result!.metrics as Record<string, number>;
    expect(metrics.send_lag_p50).toBeGreaterThanOrEqual(0);
    expect(metrics.generator_cpu).toBeGreaterThan(0);
    // Provider usage: 10 tokens per reply, not the 5 stream events.
    expect(metrics.output_tokens! / metrics.requests!).toBe(10);
    const generator = page.getByRole("table", { name: "Load generator figures" });
    await expect(generator.textContent()).resolves.toMatch(
      /Send lag p50.*Send lag p99.*Latency from the send p50.*Latency from the send p99.*Event-loop delay p99/s,
    );
    // Timed from the send, an answer can only be quicker than timed from its due time.
    expect(metrics.latency_from_send_p99).toBeGreaterThan(0);
    expect(metrics.latency_from_send_p99).toBeLessThanOrEqual(metrics.latency_p99!);
    await page.getByText(/Output tokens are the provider's reported usage/).waitFor();
    await page.getByRole("figure", { name: "Time to first token (per second)" }).waitFor();
    await page.getByRole("figure", { name: "Inter-token latency (per second)" }).waitFor();
    await page.getByRole("figure", { name: "Latency percentiles (per second)" }).waitFor();
    await shot("run-generator-and-llm-timelines");
  });
});
