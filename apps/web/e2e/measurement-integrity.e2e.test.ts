import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// A run's reading is visible wherever it appears: a rate sweep whose top value the target cannot
// carry (4 connections to a 40 ms service hold ~100 req/s) leads with the rate it sustains and
// where it saturates, rings the saturated value (a valid measurement) and never picks it; the
// runs list and project overview badge it; an LLM run's page shows the generator's own figures
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
  it("leads a rate sweep with its capacity, reads the top value saturated (valid), and badges runs apart", async () => {
    const { page, baseUrl, db } = stack;
    const { owned, project: p, target: t } = await project("Rate sweep", "rate-sweep");
    // A p99 bound the 40 ms service meets whenever it keeps up.
    await db.db.project.update({
      where: { id: p.id },
      data: { thresholds: [{ metric: "latency_p99", op: "<=", value: 250 }] },
    });
    const scenario = await db.db.scenario.create({
      data: {
        ...owned,
        name: "open 4 connections",
        engine: "http-open",
        // Long enough a timeout that the queue for the 4 connections drains without failures.
        spec: { engine: "http-open", rate: 20, durationS: 3, warmupS: 0, maxConnections: 4, timeoutMs: 20_000 },
      },
    });
    await page.goto(`${baseUrl}/sweeps`);
    const form = page.getByRole("form", { name: "New sweep" });
    await form.getByLabel("Project").selectOption({ label: p.name });
    await form.getByLabel("Sweep name").fill("rate 20–200");
    await form.getByLabel("Parameter").fill("scenario.rate");
    await form.getByLabel("Values").fill("20, 40, 200");
    await form.getByRole("button", { name: "Launch sweep" }).click();
    await page.waitForURL(/\/sweeps\/[a-z0-9]+$/);
    await page.locator('h1 [data-status="succeeded"]').waitFor({ timeout: 120_000 });

    const sweepId = page.url().split("/").pop()!;
    const runs = await db.db.run.findMany({
      where: { sweepId },
      orderBy: { groupIndex: "asc" },
      select: {
        id: true,
        status: true,
        result: { select: { valid: true, invalidReasons: true, saturationReasons: true, metrics: true } },
      },
    });
    // 200 req/s over 4 connections to a 40 ms service (~100 req/s): the target held the
    // connections. That is a measurement of the target at its limit, not an invalid run.
    expect(runs[2]!.status).toBe("succeeded");
    const top = runs[2]!.result!;
    expect(top.valid, top.invalidReasons.join("; ")).toBe(true);
    expect(top.saturationReasons[0]).toMatch(/^the target (is the limit|did not keep up)/);
    const topRps = (top.metrics as Record<string, number>).rps!;
    expect(topRps).toBeLessThan(200);

    // The page leads with its answer: the rate sustained and where the target saturates.
    const answer = page.getByRole("region", { name: "Capacity" });
    const statement = await answer.locator("p").first().textContent();
    expect(statement).toMatch(
      /^(Sustains (20|40) req\/s with Latency p99 ≤ 250 ms \(highest rate meeting the thresholds and achieved within 2 %; measured [\d.,]+ ms\)|No rate tried is sustained .*); saturates at ~[\d,]+ req\/s\.$/,
    );
    expect(statement).toContain(`saturates at ~${Math.round(topRps).toLocaleString("en-US")} req/s`);
    // On a busy machine the generator may be late at 40 req/s (invalid), or the 40 ms service
    // itself slow enough to saturate its 4 connections: then 20 is the answer; otherwise 40.
    const plain = (i: number) => runs[i]!.result!.valid && runs[i]!.result!.saturationReasons.length === 0;
    if (plain(1)) expect(statement).toMatch(/^Sustains 40 req\/s/);
    else if (plain(0)) expect(statement).toMatch(/^Sustains 20 req\/s/);

    const table = page.getByRole("table", { name: "Sweep summary" });
    const rows = table.locator("tbody tr");
    await expect(rows.count()).resolves.toBe(3);
    const last = rows.nth(2);
    await expect(last.locator("[data-saturated]").textContent()).resolves.toBe("saturated");
    await expect(last.locator("[data-invalid]").count()).resolves.toBe(0);
    await expect(last.textContent()).resolves.not.toContain("★ best");
    // The chart rings saturated points, apart from invalid (hollow) ones. (On a machine busy
    // enough, a lower rate may also have been saturated or the generator late: marked the same.)
    const invalidRuns = runs.filter((r) => !r.result!.valid).length;
    const saturatedRuns = runs.filter((r) => r.result!.valid && r.result!.saturationReasons.length > 0).length;
    await expect(page.locator("figure [data-saturated]").count()).resolves.toBe(saturatedRuns);
    await expect(page.locator("figure circle[data-invalid]").count()).resolves.toBe(invalidRuns);
    await page.getByText(new RegExp(`Ringed points saturated the target \\(${saturatedRuns} runs?\\)`)).waitFor();

    // The chart's metric and the capacity question live in the URL: a link shows the same page.
    await page.getByLabel("Chart metric").selectOption("latency_p99");
    await page.waitForURL(/[?&]metric=latency_p99/);
    const question = page.getByRole("form", { name: "Capacity question" });
    await question.locator("input").fill("1000");
    await question.getByRole("button", { name: "Ask" }).click();
    await page.waitForURL(/[?&]capacity=latency_p99&below=1000/);
    await answer.getByText(/Answering the question asked/).waitFor();
    await page.goto(page.url());
    await answer.getByText(/Answering the question asked/).waitFor();
    await expect(page.getByLabel("Chart metric").inputValue()).resolves.toBe("latency_p99");
    await question.getByRole("button", { name: "Back to the sweep's own answer" }).click();
    await page.waitForURL((url) => !url.searchParams.has("capacity"));
    await answer.getByText(/with Latency p99 ≤ 250 ms|No rate tried is sustained/).waitFor();
    await shot("sweep-capacity");

    // The runs list and the project overview show the three readings apart.
    await page.goto(`${baseUrl}/runs`);
    const badge = page.locator("table tbody tr [data-saturated]");
    await badge.first().waitFor();
    await expect(badge.count()).resolves.toBe(saturatedRuns);
    await expect(badge.first().getAttribute("title")).resolves.toMatch(
      /^saturated at ~[\d,.]+ req\/s achieved of 200 offered/,
    );
    await expect(page.locator("table tbody tr [data-invalid]").count()).resolves.toBe(invalidRuns);
    await shot("runs-list-saturated");
    await page.goto(`${baseUrl}/projects/${p.id}`);
    await page.getByRole("table", { name: "Recent runs" }).locator("[data-saturated]").first().waitFor();

    // The run's page says where the target topped out, as a measurement, not as a fault.
    await page.goto(`${baseUrl}/runs/${runs[2]!.id}`);
    const banner = page.getByRole("region", { name: "The target at its limit" });
    await expect(banner.textContent()).resolves.toMatch(
      /^Saturated at ~[\d,.]+ req\/s achieved of 200 offered: the target .*The figures are valid/,
    );
    await expect(page.getByText("Not a valid measurement").count()).resolves.toBe(0);
    await shot("run-saturated");

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
