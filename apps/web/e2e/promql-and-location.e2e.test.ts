import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createAgentToken } from "@benchboard/db";
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// Through the browser: a target's PromQL monitor configured, tested against a Prometheus-compatible
// query API on 127.0.0.1 (a refused expression shown as a readable error), saved and reopened; and a
// sweep launched from the form onto the organization's agents by the Location choice.
const QUERY = 'sum(container_memory_working_set_bytes{pod=~"gateway-.*"})';
let stack: Stack;
let prometheus: http.Server;
let prometheusUrl: string;
const queries: string[] = [];

beforeAll(async () => {
  prometheus = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const query = url.searchParams.get("query") ?? "";
    queries.push(query);
    res.setHeader("content-type", "application/json");
    if (url.pathname !== "/api/v1/query_range" || query !== QUERY) {
      res.statusCode = 400;
      res.end(
        JSON.stringify({
          status: "error",
          errorType: "bad_data",
          error: "1:5: parse error: unclosed left parenthesis",
        }),
      );
      return;
    }
    const start = Number(url.searchParams.get("start"));
    const end = Number(url.searchParams.get("end"));
    const step = Number(url.searchParams.get("step"));
    const values: [number, string][] = [];
    for (let t = start; t <= end; t += step) values.push([t, String(256 * 1024 * 1024)]);
    res.end(JSON.stringify({ status: "success", data: { resultType: "matrix", result: [{ metric: {}, values }] } }));
  });
  await new Promise<void>((r) => prometheus.listen(0, "127.0.0.1", r));
  prometheusUrl = `http://127.0.0.1:${(prometheus.address() as AddressInfo).port}`;
  stack = await startStack({ workers: [] });
});

afterAll(async () => {
  await stack?.close();
  prometheus?.close();
});

const shot = (name: string) => stack.page.screenshot({ path: path.join(screenshotsDir, name), fullPage: true });

async function textOf(locator: Locator) {
  await locator.waitFor();
  return (await locator.textContent()) ?? "";
}

describe("PromQL monitor and sweep location in the browser", () => {
  it("configures a PromQL monitor, shows a refused expression readably, saves and reopens it", async () => {
    const { page, baseUrl, db } = stack;
    const org = await db.db.organization.findUniqueOrThrow({ where: { slug: "local" } });
    const project = await db.db.project.create({ data: { orgId: org.id, name: "Gateway", slug: "gateway" } });
    await page.goto(`${baseUrl}/projects/${project.id}/targets/new`);
    await page.getByLabel("Target name").fill("gateway");
    await page.getByLabel("Base URL").fill("http://127.0.0.1:9");
    await page.getByLabel("Monitor kind to add").selectOption("promql");
    await page.getByLabel("Prometheus URL").fill(prometheusUrl);
    await page.getByLabel("PromQL expression").fill("sum(container_memory_working_set_bytes");
    await page.getByRole("button", { name: "Test connection" }).click();
    const refused = await textOf(page.getByRole("status", { name: "Monitor 1 reading" }));
    expect(refused).toContain(
      "query: Prometheus refused the expression (bad_data): 1:5: parse error: unclosed left parenthesis",
    );
    await shot("target-promql-refused.png");

    await page.getByLabel("PromQL expression").fill(QUERY);
    await page.getByRole("button", { name: "Test connection" }).click();
    const reading = page.getByRole("status", { name: "Monitor 1 reading" });
    await reading.getByText("Connected").waitFor();
    expect(await textOf(reading)).toContain("mem_bytes: 256.00 MiB");

    // A custom series needs its name: refused at the field, nothing stored.
    await page.getByLabel("Stored as").selectOption("custom");
    await page.getByRole("button", { name: "Create target" }).click();
    const nameField = page.getByLabel("Series name");
    await expect.poll(() => nameField.getAttribute("aria-invalid")).toBe("true");
    expect(await db.db.target.count()).toBe(0);
    await nameField.fill("gateway_mem");
    await page.getByLabel("Unit").fill("bytes");
    await page.getByLabel("Step (seconds, optional)").fill("5");
    await shot("target-promql-monitor.png");
    await page.getByRole("button", { name: "Create target" }).click();
    await page.getByRole("table", { name: "Targets" }).waitFor();
    const stored = await db.db.target.findFirstOrThrow({ where: { name: "gateway" } });
    expect(stored.monitors).toEqual([
      expect.objectContaining({
        kind: "promql",
        url: prometheusUrl,
        query: QUERY,
        metric: "custom",
        name: "gateway_mem",
        unit: "bytes",
        stepSeconds: 5,
      }),
    ]);

    await page.getByRole("link", { name: "Edit gateway" }).click();
    expect(await page.getByLabel("PromQL expression").inputValue()).toBe(QUERY);
    expect(await page.getByLabel("Series name").inputValue()).toBe("gateway_mem");
    expect(await page.getByLabel("Stored as").inputValue()).toBe("custom");
  });

  it("launches a sweep onto the organization's agents labelled lab from the Location choice", async () => {
    const { page, baseUrl, db } = stack;
    const org = await db.db.organization.findUniqueOrThrow({ where: { slug: "local" } });
    const project = await db.db.project.findFirstOrThrow({ where: { orgId: org.id, slug: "gateway" } });
    await db.db.scenario.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        name: "open 10/s",
        engine: "http-open",
        spec: { engine: "http-open", rate: 10, durationS: 2 },
      },
    });
    const { record } = await createAgentToken(db.db, org.id, { name: "lab agents", createdById: null });
    await db.db.agent.create({ data: { orgId: org.id, tokenId: record.id, name: "lab-1", labels: ["lab"] } });

    await page.goto(`${baseUrl}/sweeps`);
    const form = page.getByRole("form", { name: "New sweep" });
    await form.getByLabel("Project").selectOption({ label: "Gateway" });
    await form.getByLabel("Sweep name").fill("rate on lab agents");
    await form.getByLabel("Parameter").fill("scenario.rate");
    await form.getByLabel("Values").fill("10, 20");
    const location = form.getByLabel("Location");
    await location.locator("option", { hasText: "Agents labelled lab (1 online)" }).waitFor({ state: "attached" });
    await location.selectOption({ label: "Agents labelled lab (1 online)" });
    expect(await textOf(form.getByText("Your agents with this label run it"))).toContain("inside your network");
    await shot("sweep-location.png");
    await form.getByRole("button", { name: "Launch sweep" }).click();
    await page.waitForURL(/\/sweeps\/[a-z0-9]+$/);
    const sweep = await db.db.sweep.findFirstOrThrow({ where: { name: "rate on lab agents" } });
    const runs = await db.db.run.findMany({ where: { sweepId: sweep.id } });
    expect(runs.length).toBe(2);
    expect(runs.every((r) => r.agentLabel === "lab" && r.workerLabel === null)).toBe(true);
  });
});
