import path from "node:path";
import { ZRunResultData } from "@benchboard/core";
import { createUploadedRun } from "@benchboard/db";
import { seedPublishedDemo } from "@benchboard/db/seed";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// Verdicts in the browser: three-state thresholds and delivery-aware chat verdicts on the
// published runs, the sweep's best value with the reasons others were passed over, the Bifrost
// stage table, an LLM run's latency percentiles, and a trend with its change point marked.
let stack: Stack;
let localOrgId: string;

beforeAll(async () => {
  stack = await startStack();
  await seedPublishedDemo(stack.db.db);
  localOrgId = (await stack.db.db.organization.findUniqueOrThrow({ where: { slug: "local" } })).id;
});

afterAll(async () => {
  await stack?.close();
});

async function useOrg(slug: string) {
  await stack.page.context().addCookies([{ name: "bb_org", value: slug, url: stack.baseUrl, sameSite: "Lax" }]);
}

async function shot(name: string) {
  await stack.page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage: true });
}

async function chatRun(n: number) {
  return stack.db.db.run.findFirstOrThrow({ where: { project: { slug: "chat-service" }, number: n } });
}

describe("verdicts on the published runs", () => {
  it("reads chat run 6's unrecorded queue depth as not measured", async () => {
    const { page, baseUrl } = stack;
    await useOrg("demo");
    await page.goto(`${baseUrl}/runs/${(await chatRun(6)).id}`);
    const verdicts = page.getByRole("list", { name: "Threshold verdicts" });
    const queue = verdicts.locator("li", { hasText: "Peak queue depth" });
    await queue.waitFor();
    await expect(queue.getAttribute("data-status")).resolves.toBe("not_measured");
    await expect(queue.textContent()).resolves.toMatch(/^not measuredPeak queue depth < 1,000.*not measured$/);
  });

  it("fails 'no message loss' on runs 1 and 3 and flags their contradictory figures", async () => {
    const { page, baseUrl } = stack;
    for (const [n, lost] of [
      [1, "26,134"],
      [3, "38,573"],
    ] as const) {
      await page.goto(`${baseUrl}/runs/${(await chatRun(n)).id}`);
      const loss = page.getByRole("list", { name: "Threshold verdicts" }).locator("li", { hasText: "Message loss" });
      await loss.waitFor();
      await expect(loss.getAttribute("data-status")).resolves.toBe("fail");
      await expect(loss.textContent()).resolves.toContain(lost);
      await expect(page.getByRole("alert").filter({ hasText: "contradict" }).textContent()).resolves.toContain(
        `Failed messages is 0, yet ${lost} of 502,000 expected deliveries never arrived`,
      );
    }
    await shot("run-chat-message-loss");
  });

  it("does not star 0.5 vCPU in the light-app sweep, and says why", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/sweeps`);
    await page.getByRole("link", { name: "Light app across vCPU limits" }).click();
    const rows = page.getByRole("table", { name: "Sweep summary" }).locator("tbody tr");
    await rows.first().waitFor();
    await expect(rows.filter({ hasText: "★ best" }).textContent()).resolves.toMatch(/^0\.1/);
    await expect(rows.filter({ hasText: /^0\.5/ }).locator("[data-passed-over]").textContent()).resolves.toBe(
      "success rate 92.64% is below 99% (11,028 failed)",
    );
    await shot("sweep-best-value");
  });

  it("shows the Bifrost stage table with the overhead sum and the published values", async () => {
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/compare`);
    await page.getByRole("link", { name: "t3.xlarge against t3.medium (t3.xlarge page)" }).click();
    const stages = page.getByRole("table", { name: "Stage breakdown" });
    await stages.waitFor();
    const names = await stages.locator("tbody tr th").allTextContents();
    // In the order of a request's path, not alphabetical.
    expect(names[0]).toMatch(/^Queue wait/);
    expect(names.at(-1)).toMatch(/^Overhead: sum of 7 stages/);
    const queue = stages.locator('tr[data-stage="stage.queue_wait"]');
    await expect(queue.locator("[data-verdict]").textContent()).resolves.toBe("Δ −96.5%");
    await expect(queue.textContent()).resolves.toContain("as published: 47.13 µs");
    const overhead = stages.locator('tr[data-stage="gateway_overhead"]');
    await expect(overhead.textContent()).resolves.toMatch(/59\.2 µs.*published 59 µs.*13\.9 µs/);
    await stages.scrollIntoViewIfNeeded();
    await shot("compare-stage-table");
  });
});

describe("LLM latency and change points in the local organization", () => {
  let projectId = "";

  beforeAll(async () => {
    const project = await stack.db.db.project.create({
      data: { orgId: localOrgId, name: "LLM gateway", slug: "llm-gateway-local" },
    });
    projectId = project.id;
  });

  it("shows an LLM run's TTFT, inter-token and end-to-end percentiles and both token rates", async () => {
    const { page, baseUrl } = stack;
    await useOrg("local");
    const metrics = {
      requests: 6000,
      success: 6000,
      failed: 0,
      success_rate: 100,
      rps: 100,
      completed_rps: 98.4,
      target_rps: 100,
      runtime_ms: 61_000,
      latency_p50: 812,
      latency_p90: 1_140,
      latency_p99: 1_720,
      ttft_p50: 142,
      ttft_p90: 230,
      ttft_p99: 410,
      itl_p50: 21.5,
      itl_p90: 33.1,
      itl_p99: 58.7,
      tokens_per_s: 46.2,
      output_tokens: 720_000,
    };
    const { run } = await createUploadedRun(stack.db.db, localOrgId, {
      projectId,
      source: "upload",
      scenarioName: "chat completions, streaming, 100 req/s",
      scenario: { engine: "llm", spec: { engine: "llm", rate: 100, durationS: 60, stream: true } },
      result: ZRunResultData.parse({ metrics }),
      branch: "main",
    });
    await page.goto(`${baseUrl}/runs/${run.id}`);
    const table = page.getByRole("table", { name: "LLM latency" });
    await table.waitFor();
    await expect(table.locator('tr[data-llm-row="ttft"]').textContent()).resolves.toMatch(/142 ms.*230 ms.*410 ms/);
    await expect(table.locator('tr[data-llm-row="itl"]').textContent()).resolves.toMatch(
      /21\.5 ms.*33\.1 ms.*58\.7 ms/,
    );
    await expect(table.locator('tr[data-llm-row="latency"]').textContent()).resolves.toMatch(
      /812 ms.*1\.14 s.*1\.72 s/,
    );
    // 720,000 tokens over 61 s, beside the per-request rate.
    await expect(
      page.getByText("Output tokens/s in total", { exact: true }).locator("..").textContent(),
    ).resolves.toContain("11,803.28 tokens/s");
    await expect(
      page.getByText(/^Output tokens\/s per request \(streaming runs only\): tokens after the first/).isVisible(),
    ).resolves.toBe(true);
    await shot("run-llm");
  });

  it("marks the change point of a +15 % step on the trend, on a time axis", async () => {
    const { page, baseUrl } = stack;
    let seed = 20261124;
    const noise = () => {
      seed = (seed * 16807) % 2147483647;
      return (seed / 2147483647) * 0.06 - 0.03;
    };
    const start = Date.UTC(2026, 9, 1, 9, 0, 0);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const p99 = (i < 19 ? 100 : 115) * (1 + noise());
      const startedAt = new Date(start + i * 86_400_000);
      const { run } = await createUploadedRun(stack.db.db, localOrgId, {
        projectId,
        source: "upload",
        scenarioName: "nightly 300 req/s",
        result: ZRunResultData.parse({ metrics: { rps: 300, latency_p99: p99 } }),
        startedAt,
        endedAt: new Date(startedAt.getTime() + 60_000),
        branch: "main",
      });
      ids.push(run.id);
    }
    await stack.db.db.project.update({
      where: { id: projectId },
      data: { thresholds: [{ metric: "latency_p99", op: "<", value: 125 }] },
    });
    await page.goto(
      `${baseUrl}/trends?projectId=${projectId}&scenario=${encodeURIComponent("nightly 300 req/s")}&metric=latency_p99`,
    );
    const changes = page.getByRole("list", { name: "Change points" });
    await changes.waitFor();
    const number = (await stack.db.db.run.findUniqueOrThrow({ where: { id: ids[19]! } })).number;
    await expect(changes.locator("li").allTextContents()).resolves.toEqual([
      expect.stringMatching(new RegExp(`^Change point at run #${number}: \\+1[3-7]\\.\\d%`)),
    ]);
    await page.getByRole("figure", { name: "Trend" }).locator(".recharts-line").first().waitFor();
    await shot("trend-change-point");
  });
});
