import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// The run page follows a run live through its event stream (no page reloads), shows the
// target's memory and queue depth beside the load, and cancels from the browser.
let stack: Stack;
let target: http.Server;
let targetUrl: string;
let served = 0;
let memory = 200_000_000;

beforeAll(async () => {
  target = http.createServer((req, res) => {
    if (req.url === "/metrics") {
      memory += 1_000_000;
      res.setHeader("content-type", "text/plain; version=0.0.4");
      res.end(`process_resident_memory_bytes ${memory}\nwork_queue ${served % 50}\n`);
      return;
    }
    if (req.url === "/v1/chat/completions") {
      // A streaming chat model: first token after 40 ms, then four more 25 ms apart.
      req.resume();
      res.setHeader("content-type", "text/event-stream");
      let sent = 0;
      const token = () => {
        res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: `tok${sent} ` } }] })}\n\n`);
        if (++sent < 5) setTimeout(token, 25);
        else res.end("data: [DONE]\n\n");
      };
      setTimeout(token, 40);
      return;
    }
    served++;
    setTimeout(() => res.end("ok"), 20);
  });
  await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
  target?.close();
});

async function setUp(durationS: number) {
  const db = stack.db.db;
  const org = await db.organization.findUniqueOrThrow({ where: { slug: "local" } });
  const project = await db.project.create({
    data: { orgId: org.id, name: `Live ${durationS}`, slug: `live-${durationS}` },
  });
  const t = await db.target.create({
    data: {
      orgId: org.id,
      projectId: project.id,
      name: "svc",
      kind: "http",
      baseUrl: targetUrl,
      monitors: [
        { kind: "prometheus", url: `${targetUrl}/metrics`, gauges: [{ name: "queue_depth", metric: "work_queue" }] },
      ],
    },
  });
  const scenario = await db.scenario.create({
    data: {
      orgId: org.id,
      projectId: project.id,
      name: `closed ${durationS} s`,
      engine: "http-closed",
      spec: {
        engine: "http-closed",
        concurrency: 4,
        durationS,
        rampUpS: 0,
        timeoutMs: 5000,
        request: { method: "GET", path: "/", headers: {} },
      },
    },
  });
  return { project, target: t, scenario };
}

describe("live run page", () => {
  it("streams progress, rate, latency, memory and queue depth each second, then shows the results", async () => {
    const { page, baseUrl } = stack;
    const { project, target: t, scenario } = await setUp(8);
    await page.goto(`${baseUrl}/projects/${project.id}/launch?targetId=${t.id}&scenarioId=${scenario.id}`);
    await page.getByRole("button", { name: /^Launch/ }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
    const runId = page.url().split("/").pop() ?? "";

    await page.getByText("● live").waitFor({ timeout: 20_000 });
    const figures = page
      .getByRole("definition")
      .filter({ hasText: /^\d[\d,]*$/ })
      .first();
    await figures.waitFor();
    const requestsCell = page.locator("dl[aria-label='Live figures'] div", { hasText: "Requests" }).locator("dd");
    const first = Number((await requestsCell.textContent())?.replace(/,/g, ""));
    await page.waitForTimeout(2_500);
    const later = Number((await requestsCell.textContent())?.replace(/,/g, ""));
    expect(later).toBeGreaterThan(first);
    await page.getByRole("figure", { name: "Target memory" }).waitFor({ timeout: 10_000 });
    await page.getByRole("figure", { name: "Queue depth" }).waitFor();
    await expect(page.locator("dl[aria-label='Live figures']").textContent()).resolves.toMatch(
      /Target memory\d+(\.\d+)? MiB/,
    );
    await page.screenshot({ path: path.join(screenshotsDir, "run-live.png"), fullPage: true });

    // The stream is a real server-sent event stream, scoped to the signed-in organization.
    const cookie = (await page.context().cookies()).find((c) => c.name === "bb_session");
    const res = await fetch(`${baseUrl}/api/runs/${runId}/events`, {
      headers: { cookie: `bb_session=${cookie?.value}` },
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    const opened = await readUntil(reader, (text) => text.includes("\n\nid: ") && text.endsWith("\n\n"));
    expect(opened.ended).toBe(false);
    const chunk = opened.text;
    // The reconnect delay, then each state with an id a reconnecting browser sends back.
    expect(chunk).toMatch(
      /^retry: 1000\n\nid: [\w-]{16}\nevent: run\ndata: \{"id":"[a-z0-9]+","status":"(running|succeeded)"/,
    );
    const eventId = /id: ([\w-]{16})/.exec(chunk)?.[1];
    await reader.cancel();
    // Resuming with the id of the state already seen sends nothing until the state changes.
    const resumed = await fetch(`${baseUrl}/api/runs/${runId}/events`, {
      headers: { cookie: `bb_session=${cookie?.value}`, "last-event-id": eventId ?? "" },
    });
    const again = resumed.body!.getReader();
    // A tick or the next state; or, when the run ended with the state already seen, the stream
    // simply ends.
    const resumedText = (await readUntil(again, (text) => text.includes("\nevent: run\n") || text.includes(": tick")))
      .text;
    expect(resumedText).toMatch(/^retry: 1000\n\n/);
    expect(resumedText).not.toContain(`id: ${eventId}\n`);
    await again.cancel();
    expect((await fetch(`${baseUrl}/api/runs/${runId}/events`)).status).toBe(401);

    await page.locator('[data-status="succeeded"]').waitFor({ timeout: 30_000 });
    await page.getByRole("group", { name: "Peak memory" }).waitFor({ timeout: 10_000 });
    // The stored per-second series replace the live charts on one timeline.
    await page.getByRole("region", { name: "Timeline" }).getByRole("figure").first().waitFor({ timeout: 10_000 });
    expect(await page.getByText("No per-second series for this run").count()).toBe(0);
    await page.screenshot({ path: path.join(screenshotsDir, "run-after-live.png"), fullPage: true });
    const run = await stack.db.db.run.findUniqueOrThrow({ where: { id: runId }, include: { result: true } });
    expect((run.result?.metrics as Record<string, number>).mem_peak_bytes).toBeGreaterThan(200_000_000);
  });

  it("shows a streaming LLM run's time to first token, inter-token latency and output rate live", async () => {
    const { page, baseUrl } = stack;
    const db = stack.db.db;
    const org = await db.organization.findUniqueOrThrow({ where: { slug: "local" } });
    const project = await db.project.create({ data: { orgId: org.id, name: "Live LLM", slug: "live-llm" } });
    const t = await db.target.create({
      data: { orgId: org.id, projectId: project.id, name: "model", kind: "http", baseUrl: targetUrl },
    });
    const scenario = await db.scenario.create({
      data: {
        orgId: org.id,
        projectId: project.id,
        name: "chat, streaming",
        engine: "llm",
        spec: {
          engine: "llm",
          path: "/v1/chat/completions",
          model: "m",
          promptTemplate: "#{{index}} hi",
          maxTokens: 16,
          stream: true,
          rate: 10,
          durationS: 8,
          maxConnections: 50,
          timeoutMs: 5000,
          warmupS: 0,
          headers: {},
        },
      },
    });
    await page.goto(`${baseUrl}/projects/${project.id}/launch?targetId=${t.id}&scenarioId=${scenario.id}`);
    await page.getByRole("button", { name: /^Launch/ }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
    await page.getByText("● live").waitFor({ timeout: 20_000 });

    const llm = page.getByRole("region", { name: /^LLM/ });
    const figures = llm.locator("dl[aria-label='Live LLM figures']");
    const figure = (label: string) => figures.locator("div", { hasText: label }).getByRole("definition");
    await figure("TTFT p50").filter({ hasText: /ms$/ }).waitFor({ timeout: 15_000 });
    // Figures as the mock model serves them: ~40 ms to the first token, ~25 ms between tokens.
    const ms = async (label: string) => Number((await figure(label).textContent())?.replace(/ ms$/, ""));
    expect(await ms("TTFT p50")).toBeGreaterThan(39);
    expect(await ms("TTFT p50")).toBeLessThan(150);
    expect(await ms("TTFT p99")).toBeGreaterThanOrEqual(await ms("TTFT p50"));
    expect(await ms("Inter-token p50")).toBeGreaterThan(23);
    expect(await ms("Inter-token p50")).toBeLessThan(100);
    expect(await ms("Inter-token p99")).toBeGreaterThanOrEqual(await ms("Inter-token p50"));
    await expect(figure("Output tokens/s").textContent()).resolves.toMatch(/^\d+(\.\d+)? tokens\/s$/);
    await page.screenshot({ path: path.join(screenshotsDir, "run-live-llm.png"), fullPage: true });
  });

  it("lands a launch of five repetitions on the first, live before its first event, saying 1 of 5", async () => {
    const { page, baseUrl } = stack;
    const { project, target: t, scenario } = await setUp(2);
    // Hold the event stream back: the page must show the live view from the run alone.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route("**/api/runs/*/events", async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.goto(`${baseUrl}/projects/${project.id}/launch?targetId=${t.id}&scenarioId=${scenario.id}`);
      await page.getByLabel("Repetitions").fill("5");
      await page.getByRole("button", { name: /^Launch/ }).click();
      await page.waitForURL(/\/runs\/[a-z0-9]+$/);
      const runId = page.url().split("/").pop() ?? "";
      const first = await stack.db.db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(first.groupIndex).toBe(0);
      // In the page, not in Next.js's route announcer, which reads the new page's title aloud.
      await page.getByRole("main").getByText("repetition 1 of 5").first().waitFor();
      // Queued at 0, or running with an indeterminate bar: never a part-filled bar it cannot know.
      const bar = page.getByRole("progressbar").first();
      await bar.waitFor();
      const now = await bar.getAttribute("aria-valuenow");
      if (now === null) expect(await bar.getAttribute("aria-busy")).toBe("true");
      else expect(now).toBe("0");
      await page.getByText("○ connecting…").waitFor();
      expect(await page.getByText(/Waiting for a worker|Running/).count()).toBeGreaterThan(0);
      await page.screenshot({ path: path.join(screenshotsDir, "run-live-before-first-event.png"), fullPage: true });
    } finally {
      release();
    }
    // Released, the stream connects and the page goes live.
    await page.getByText("● live").waitFor({ timeout: 20_000 });
    await page.unroute("**/api/runs/*/events");
    // The whole group runs back to back; nothing is left running.
    const groupId = (await stack.db.db.run.findUniqueOrThrow({ where: { id: page.url().split("/").pop() ?? "" } }))
      .groupId;
    const deadline = Date.now() + 90_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      statuses = (await stack.db.db.run.findMany({ where: { groupId }, select: { status: true } })).map(
        (r) => r.status,
      );
      if (statuses.length === 5 && statuses.every((st) => st === "succeeded")) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(statuses).toEqual(Array(5).fill("succeeded"));
  });

  it("cancels from the browser within a second and keeps what was measured", async () => {
    const { page, baseUrl } = stack;
    const { project, target: t, scenario } = await setUp(60);
    await page.goto(`${baseUrl}/projects/${project.id}/launch?targetId=${t.id}&scenarioId=${scenario.id}`);
    await page.getByRole("button", { name: /^Launch/ }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
    await page.getByText("● live").waitFor({ timeout: 20_000 });
    await page.waitForTimeout(2_000);
    const before = served;
    await page.getByRole("button", { name: "Cancel run" }).click();
    // Canceling asks first; keeping it running changes nothing.
    const dialog = page.getByRole("alertdialog", { name: /^Cancel run #\d+\?$/ });
    await dialog.waitFor();
    await page.screenshot({ path: path.join(screenshotsDir, "run-cancel-confirm.png") });
    await dialog.getByRole("button", { name: "Cancel run" }).click();
    await page.locator('[data-status="canceled"]').waitFor({ timeout: 15_000 });
    const atEnd = served;
    await new Promise((r) => setTimeout(r, 1_500));
    // No load after the run ended (a few requests may have been in flight).
    expect(served - atEnd).toBeLessThanOrEqual(4);
    expect(atEnd).toBeGreaterThan(before);
    const runId = page.url().split("/").pop() ?? "";
    const run = await stack.db.db.run.findUniqueOrThrow({ where: { id: runId }, include: { result: true } });
    expect(run.status).toBe("canceled");
    expect(run.endedAt!.getTime() - run.startedAt!.getTime()).toBeLessThan(15_000);
    expect((run.result?.metrics as Record<string, number>).requests).toBeGreaterThan(0);
  });
});

/**
 * Read a stream's text until `enough` holds or the stream ends (`ended`). Fails after `ms`
 * rather than waiting on a stream that neither says enough nor ends.
 */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  enough: (text: string) => boolean,
  ms = 20_000,
): Promise<{ text: string; ended: boolean }> {
  const decoder = new TextDecoder();
  const deadline = Date.now() + ms;
  let text = "";
  while (!enough(text)) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`the event stream sent neither enough nor its end in ${ms} ms: ${JSON.stringify(text)}`)),
        Math.max(0, deadline - Date.now()),
      );
    });
    const next = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
    if (next.done) return { text, ended: true };
    text += decoder.decode(next.value, { stream: true });
  }
  return { text, ended: false };
}
