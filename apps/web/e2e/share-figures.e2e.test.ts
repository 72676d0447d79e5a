import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { uploadGatewayRun } from "@benchboard/api/testing/gateway-run";
import { createComparison, createShareLink, ensureLocalOrganization } from "@benchboard/db";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// A comparison opened signed in and through its share link (signed out) shows the same figures in
// every table; a sweep value's run is titled with the load it ran. Screenshots of both.
let stack: Stack;
let orgId: string;
let projectId: string;

function uploadRun(stagesMs: { db: number; queue: number; render: number }, bufferSize: number) {
  return uploadGatewayRun(stack.db.db, orgId, projectId, {
    stagesMs,
    bufferSize,
    knobs: { upstream: `redis-${bufferSize}.corp.internal` },
  });
}

/** Every table's text on the page, by its accessible name, row by row. */
async function tables(page: Page): Promise<Record<string, string[][]>> {
  return page.evaluate(() => {
    const out: Record<string, string[][]> = {};
    for (const table of document.querySelectorAll("table[aria-label]")) {
      out[table.getAttribute("aria-label")!] = [...table.querySelectorAll("tr")].map((tr) =>
        [...tr.querySelectorAll("th,td")].map((c) => (c as HTMLElement).innerText.trim()),
      );
    }
    return out;
  });
}

beforeAll(async () => {
  stack = await startStack({ workers: [] });
  orgId = (await ensureLocalOrganization(stack.db.db)).id;
  projectId = (await stack.db.db.project.create({ data: { orgId, name: "Gateway", slug: "gateway" } })).id;
});

afterAll(async () => {
  await stack?.close();
});

describe("a shared comparison", () => {
  it("shows every figure of the signed-in page, stages by name and unit, config fields by name", async () => {
    const runIds = [
      await uploadRun({ db: 10.33, queue: 0.0233, render: 0.0218 }, 10_000),
      await uploadRun({ db: 12.1, queue: 0.0301, render: 0.0275 }, 20_000),
    ];
    const saved = await createComparison(stack.db.db, orgId, {
      title: "buffer sizes",
      runIds,
      baselineRunId: runIds[0]!,
    });
    const { token } = await createShareLink(stack.db.db, orgId, { comparisonId: saved.id });

    const { page, baseUrl } = stack;
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(`${baseUrl}/compare/${saved.id}`);
    await page.getByRole("table", { name: "Stage breakdown" }).waitFor();
    const signedIn = await tables(page);
    const signedInShot = await page.screenshot({ fullPage: true });

    const visitor = await stack.browser.newContext({ viewport: { width: 1100, height: 900 } });
    const shared = await visitor.newPage();
    await shared.goto(`${baseUrl}/share/${token}`);
    await shared.getByRole("table", { name: "Stage breakdown" }).waitFor();
    const sharedTables = await tables(shared);
    const sharedShot = await shared.screenshot({ fullPage: true });

    // The stage table: three stages by name, each figure with its unit, as signed in.
    const stages = sharedTables["Stage breakdown"]!;
    // Named as the run page names them (one source: `stageName`), acronyms in capitals.
    expect(stages.slice(1).map((row) => row[0])).toEqual(["DB", "Queue", "Render"]);
    expect(stages[1]![1]).toBe("10.33 ms");
    expect(stages[2]![1]).toBe("23.3 µs");
    expect(stages[3]![1]).toBe("21.8 µs");
    // Every table, cell for cell, but the config field whose text could name a host.
    for (const name of ["Comparison", "Stage breakdown"]) expect(sharedTables[name]).toEqual(signedIn[name]);
    const diff = sharedTables["Configuration differences"]!;
    expect(diff.map((row) => row[0])).toEqual(signedIn["Configuration differences"]!.map((row) => row[0]));
    expect(diff.find((row) => row[0] === "config.knobs.buffer_size")?.slice(1)).toEqual(["10000", "20000"]);
    expect(diff.find((row) => row[0] === "config.knobs.upstream")?.slice(1)).toEqual(["[hidden]", "[hidden]"]);
    expect(JSON.stringify(sharedTables)).not.toMatch(/corp\.internal|8080/);

    // Both pages side by side in one picture.
    const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString("base64")}`;
    const sheet = await stack.browser.newPage({ viewport: { width: 2240, height: 900 } });
    await sheet.setContent(
      `<body style="margin:0;display:flex;gap:40px;background:#e2e8f0;font:14px sans-serif">
        <figure style="margin:0;width:1100px"><figcaption style="padding:8px">Signed in</figcaption><img style="width:1100px" src="${dataUrl(signedInShot)}"></figure>
        <figure style="margin:0;width:1100px"><figcaption style="padding:8px">Share link, signed out</figcaption><img style="width:1100px" src="${dataUrl(sharedShot)}"></figure>
      </body>`,
    );
    await sheet.screenshot({ path: path.join(screenshotsDir, "share-beside-signed-in.png"), fullPage: true });
    await sheet.close();
    await visitor.close();
    expect((await readFile(path.join(screenshotsDir, "share-beside-signed-in.png"))).length).toBeGreaterThan(10_000);
  });
});

describe("a sweep value's run", () => {
  it("is titled with the load it ran, its value's place and its repetition", async () => {
    const db = stack.db.db;
    const rates = [100, 200, 400, 800];
    const sweep = await db.sweep.create({
      data: { orgId, projectId, name: "rate sweep", parameter: "scenario.rate", values: rates, repetitions: 1 },
    });
    const groupId = `group-${randomBytes(4).toString("hex")}`;
    const ids: string[] = [];
    for (const [i, rate] of rates.entries()) {
      const run = await db.run.create({
        data: {
          orgId,
          projectId,
          number: 20 + i + 1,
          status: "succeeded",
          source: "launched",
          scenarioName: "checkout 200 rps, 20 s",
          sweepId: sweep.id,
          sweepValue: rate,
          groupId,
          groupIndex: i,
          scenarioSnapshot: {
            name: "checkout 200 rps, 20 s",
            engine: "http-open",
            spec: { engine: "http-open", rate, durationS: 20 },
          },
          configSnapshot: { name: "gateway", instanceType: "t3.xlarge", vcpu: 4 },
          startedAt: new Date(Date.UTC(2026, 10, 1, 0, i)),
          endedAt: new Date(Date.UTC(2026, 10, 1, 0, i, 20)),
        },
      });
      await db.runResult.create({ data: { runId: run.id, metrics: { requests: rate * 20, rps: rate * 0.99 } } });
      ids.push(run.id);
    }
    const { page, baseUrl } = stack;
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.goto(`${baseUrl}/runs/${ids[2]}`);
    const title = page.getByRole("heading", { level: 1 });
    await title.getByText("Run #23 · 400 req/s · 20 s · t3.xlarge · rate = 400 (value 3 of 4)").waitFor();
    expect(await title.innerText()).not.toContain("200");
    await page.getByText("scenario “checkout 200 rps, 20 s”").waitFor();
    await page.getByText("Instance config snapshot").waitFor();
    await page.screenshot({ path: path.join(screenshotsDir, "run-title-sweep-value.png") });

    // The same title in the project's recent runs and in the compare picker.
    const third = "Run #23 · 400 req/s · 20 s · t3.xlarge · rate = 400 (value 3 of 4)";
    await page.goto(`${baseUrl}/projects/${projectId}`);
    await page.getByRole("table", { name: "Recent runs" }).getByRole("link", { name: third }).waitFor();
    await page.goto(`${baseUrl}/compare`);
    await page.getByLabel("Add runs").fill("checkout 200");
    await page.getByRole("table", { name: "Runs to add" }).getByText(third).waitFor();
    await page.screenshot({ path: path.join(screenshotsDir, "compare-picker-titles.png") });
  });
});
