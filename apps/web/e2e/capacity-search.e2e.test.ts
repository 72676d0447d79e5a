import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// Capacity search from the browser: the launch form turns an open-model scenario into a search
// (an SLO and a rate range), the worker runs its plateaus against a target whose capacity is
// known — 4 requests at a time, 100 ms each: ~40 req/s — and the run page leads with the
// sustainable rate, why the search stopped and every plateau on one chart and in a table.
let stack: Stack;
let target: http.Server;
let targetUrl: string;

beforeAll(async () => {
  const waiting: http.ServerResponse[] = [];
  let busy = 0;
  const serve = (res: http.ServerResponse) => {
    busy++;
    setTimeout(() => {
      res.end("ok");
      busy--;
      const next = waiting.shift();
      if (next) serve(next);
    }, 100);
  };
  target = http.createServer((req, res) => {
    req.resume();
    if (busy < 4) serve(res);
    else waiting.push(res);
  });
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await startStack();
}, 120_000);

afterAll(async () => {
  await stack?.close();
  target?.closeAllConnections();
  target?.close();
});

describe("capacity search", () => {
  it("is launched from the form and its run page shows the knee, the stop reason and every plateau", async () => {
    const { page, baseUrl, db } = stack;
    const org = await db.db.organization.findUniqueOrThrow({ where: { slug: "local" } });
    const project = await db.db.project.create({ data: { orgId: org.id, name: "Checkout", slug: "checkout" } });
    const owned = { orgId: org.id, projectId: project.id };
    await db.db.target.create({ data: { ...owned, name: "checkout-api", kind: "http", baseUrl: targetUrl } });
    await db.db.scenario.create({
      data: {
        ...owned,
        name: "checkout open model",
        engine: "http-open",
        spec: {
          engine: "http-open",
          rate: 10,
          durationS: 5,
          maxConnections: 200,
          timeoutMs: 5_000,
          request: { path: "/checkout" },
        },
      },
    });

    await page.goto(`${baseUrl}/projects/${project.id}/launch`);
    const form = page.getByRole("form", { name: "Launch a run" });
    await form.getByLabel(/Find the highest rate that meets an SLO/).check();
    // A minimum above the maximum is named at its field before anything is sent.
    await form.getByLabel("SLO: p99 at most (ms)").fill("400");
    await form.getByLabel("From (req/s)").fill("100");
    await form.getByLabel("Up to (req/s)").fill("80");
    await form.getByRole("button", { name: "Launch run" }).click();
    await page.getByText("minRate (100) is above maxRate (80)").waitFor();
    expect(await db.db.run.count()).toBe(0);

    await form.getByLabel("From (req/s)").fill("5");
    await form.getByLabel("Plateau (s)").fill("3");
    await form.getByRole("button", { name: "Launch run" }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
    await page.locator('h1 [data-status="succeeded"]').waitFor({ timeout: 150_000 });

    const panel = page.getByRole("region", { name: "Capacity search" });
    await panel.waitFor();
    const run = await db.db.run.findFirstOrThrow({ where: { projectId: project.id }, include: { result: true } });
    const search = (
      run.result!.extra as {
        capacitySearch: { sustainableRps: number | null; plateaus: unknown[]; stop: { kind: string; message: string } };
      }
    ).capacitySearch;
    expect(search.plateaus.length).toBeGreaterThan(2);
    // The knee is the target's (~40 req/s); on a host too busy for the generator to keep its
    // schedule the search says so instead, and never passes a distorted plateau off as the target's.
    if (search.stop.kind === "generator-limit") {
      expect(search.stop.message).toContain("add shards or agents");
    } else {
      expect(["saturated", "slo-broken"]).toContain(search.stop.kind);
      expect(search.sustainableRps).toBeGreaterThanOrEqual(10);
      expect(search.sustainableRps).toBeLessThanOrEqual(44);
    }
    await panel.getByRole("status").getByText(search.stop.message, { exact: true }).waitFor();
    if (search.sustainableRps !== null) {
      await expect(panel.getByTestId("capacity-rate").textContent()).resolves.toBe(`${search.sustainableRps} req/s`);
    }
    await expect(panel.getByRole("table", { name: "Plateaus" }).locator("tbody tr").count()).resolves.toBe(
      search.plateaus.length,
    );
    // One chart: a point per plateau, the SLO line and the knee.
    const chart = panel.getByRole("figure", { name: "p99 latency against the rate offered, per plateau" });
    await chart.locator(".recharts-scatter-symbol").first().waitFor();
    await expect(chart.locator(".recharts-scatter-symbol").count()).resolves.toBe(search.plateaus.length);
    await chart.getByText("SLO p99 ≤ 400 ms").waitFor();
    if (search.sustainableRps !== null) await chart.getByText(`knee: sustains ${search.sustainableRps}`).waitFor();

    await panel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(screenshotsDir, "capacity-search-run.png"), fullPage: true });
  }, 240_000);
});
