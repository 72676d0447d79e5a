import { randomBytes } from "node:crypto";
import path from "node:path";
import { seedReferenceTargets } from "@benchboard/db/seed/reference-targets";
import { type ChatServer, startChat } from "@benchboard/targets/chat/server";
import { type ExamplesServer, startExamples } from "@benchboard/targets/examples/server";
import { ZGatewayConfig } from "@benchboard/targets/gateway/config";
import { type Gateway, startGateway } from "@benchboard/targets/gateway/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, screenshotsDir, startStack } from "./harness";

// The demo data's scenarios for the three reference targets launch from the UI and complete,
// with the targets' own metrics (memory, queue depth, Server-Timing stages) stored beside them.
const baseDbUrl = process.env.DATABASE_URL ?? "postgresql://benchboard:benchboard@127.0.0.1:5432/benchboard";
const examplesDb = `bb_examples_${randomBytes(4).toString("hex")}`;
let stack: Stack;
let gateway: Gateway;
let chat: ChatServer;
let examples: ExamplesServer;

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  chat = await startChat({ port: 0, amqpUrl: process.env.AMQP_URL ?? "amqp://guest:guest@127.0.0.1:5672" });
  examples = await startExamples({ port: 0, databaseUrl: baseDbUrl, database: examplesDb });
  await examples.databaseReady();
  stack = await startStack();
  const org = await stack.db.db.organization.findUniqueOrThrow({ where: { slug: "local" } });
  await seedReferenceTargets(stack.db.db, org.id, {
    host: "127.0.0.1",
    gateway: gateway.port,
    chat: chat.port,
    examples: examples.port,
    rabbitManagement: "http://127.0.0.1:15672",
  });
}, 120_000);

afterAll(async () => {
  await Promise.allSettled([gateway?.close(), chat?.close(), examples?.close()]);
  await stack?.db.db.$executeRawUnsafe(`DROP DATABASE IF EXISTS "${examplesDb}" WITH (FORCE)`).catch(() => {});
  await stack?.close();
});

async function launchFromUi(projectName: string, scenarioName: string, configName?: string, durationS?: number) {
  const db = stack.db.db;
  const project = await db.project.findFirstOrThrow({ where: { name: projectName } });
  const scenario = await db.scenario.findFirstOrThrow({ where: { projectId: project.id, name: scenarioName } });
  const target = await db.target.findFirstOrThrow({ where: { projectId: project.id } });
  const config = configName
    ? await db.instanceConfig.findFirstOrThrow({ where: { projectId: project.id, name: configName } })
    : null;
  const { page, baseUrl } = stack;
  const query = `targetId=${target.id}&scenarioId=${scenario.id}${config ? `&configId=${config.id}` : ""}`;
  await page.goto(`${baseUrl}/projects/${project.id}/launch?${query}`);
  if (durationS !== undefined) await page.locator("#launch-duration").fill(String(durationS));
  await page.getByRole("button", { name: /^Launch/ }).click();
  await page.waitForURL(/\/runs\/[a-z0-9]+$/);
  const runId = page.url().split("/").pop() ?? "";
  await page
    .locator('[data-status="succeeded"], [data-status="failed"], [data-status="canceled"]')
    .first()
    .waitFor({ timeout: 90_000 });
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { result: true } });
  return { run, metrics: (run.result?.metrics ?? {}) as Record<string, number> };
}

describe("reference targets from the demo data", () => {
  it("runs the example apps' light, medium and heavy scenarios", async () => {
    for (const [name, requests] of [
      ["light: GET / × 2,000 at 20 concurrent", 2000],
      ["medium: customers × 500 at 10 concurrent", 500],
      ["heavy: resize 200×200 × 100 at 4 concurrent", 100],
    ] as const) {
      const { run, metrics } = await launchFromUi("Example apps (local)", name);
      expect(run.status, `${name}: ${run.error}`).toBe("succeeded");
      expect(metrics.requests).toBe(requests);
      expect(metrics.success).toBe(requests);
      expect(metrics.mem_peak_bytes).toBeGreaterThan(10_000_000);
    }
  });

  it("runs the gateway scenarios with the t3.medium profile applied and its stages recorded", async () => {
    const { run, metrics } = await launchFromUi(
      "LLM gateway (local)",
      "300 req/s non-streaming, 20 s",
      "t3.medium profile",
    );
    expect(run.status, run.error ?? "").toBe("succeeded");
    expect(gateway.config.get().buffer_size).toBe(15000);
    expect(gateway.config.get().initial_pool_size).toBe(10000);
    expect(metrics.requests).toBeGreaterThan(4000);
    expect(metrics.failed).toBe(0);
    expect(metrics["stage.queue_wait"]).toBeGreaterThanOrEqual(0);
    expect(metrics["stage.upstream_request"]).toBeGreaterThan(40);
    expect(metrics.res_bytes_avg).toBeGreaterThan(1000);
    expect(metrics.mem_peak_bytes).toBeGreaterThan(10_000_000);
    const streaming = await launchFromUi("LLM gateway (local)", "100 req/s streaming, 20 s", "t3.xlarge profile");
    expect(streaming.run.status, streaming.run.error ?? "").toBe("succeeded");
    expect(gateway.config.get().big_payload).toBe(true);
    expect(streaming.metrics.ttft_p50).toBeGreaterThan(0);
    expect(streaming.metrics.tokens_per_s).toBeGreaterThan(0);
    await stack.page.screenshot({ path: path.join(screenshotsDir, "run-gateway.png"), fullPage: true });
  });

  it("runs the chat scenario through RabbitMQ and counts every delivery", async () => {
    const { run, metrics } = await launchFromUi(
      "Chat service (local)",
      "100 users × 10 rooms × 20 messages",
      "20 publish workers",
    );
    expect(run.status, run.error ?? "").toBe("succeeded");
    expect(chat.config.get().PUBLISH_WORKERS).toBe(20);
    // 100 users × 20 messages, each delivered to the 9 other members of its room.
    expect(metrics.messages).toBe(100 * 20 * 9);
    expect(metrics.failed).toBe(0);
    const series = await stack.db.db.series.findMany({ where: { runId: run.id }, select: { metric: true } });
    expect(series.map((s) => s.metric)).toEqual(expect.arrayContaining(["mem_bytes", "throughput"]));
  });

  it("chats for a launch's duration override, live while it lasts", async () => {
    const db = stack.db.db;
    const project = await db.project.findFirstOrThrow({ where: { name: "Chat service (local)" } });
    const scenario = await db.scenario.findFirstOrThrow({
      where: { projectId: project.id, name: "100 users × 10 rooms, chatting for 20 s" },
    });
    const target = await db.target.findFirstOrThrow({ where: { projectId: project.id } });
    const { page, baseUrl } = stack;
    await page.goto(`${baseUrl}/projects/${project.id}/launch?targetId=${target.id}&scenarioId=${scenario.id}`);
    await page.getByText("users keep chatting until it ends").waitFor();
    // Rate and concurrency mean nothing to a chat: not offered.
    expect(await page.locator("#launch-rate").isDisabled()).toBe(true);
    expect(await page.locator("#launch-concurrency").isDisabled()).toBe(true);
    await page.locator("#launch-duration").fill("6");
    await page.getByRole("button", { name: /^Launch/ }).click();
    await page.waitForURL(/\/runs\/[a-z0-9]+$/);
    const runId = page.url().split("/").pop() ?? "";
    // Live for the 6 s it lasts, its bar moving through them.
    await page.getByText("● live").waitFor({ timeout: 20_000 });
    const bar = page.getByRole("progressbar", { name: "Progress" });
    await page.waitForFunction(() => {
      const now = document.querySelector('[role="progressbar"][aria-label="Progress"]')?.getAttribute("aria-valuenow");
      return now !== null && now !== undefined && Number(now) > 0 && Number(now) < 100;
    });
    expect(Number(await bar.getAttribute("aria-valuenow"))).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(screenshotsDir, "run-chat-live.png"), fullPage: true });
    await page.locator('[data-status="succeeded"], [data-status="failed"]').first().waitFor({ timeout: 60_000 });
    const run = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { result: true } });
    expect(run.status, run.error ?? "").toBe("succeeded");
    const metrics = (run.result?.metrics ?? {}) as Record<string, number>;
    expect(metrics.runtime_ms).toBeGreaterThanOrEqual(5_000);
    expect(metrics.runtime_ms).toBeLessThanOrEqual(12_000);
    // A message every 500 ms for 6 s: 12 from each of the 100 users.
    expect(metrics.requests).toBeGreaterThanOrEqual(100 * 11);
    expect(metrics.requests).toBeLessThanOrEqual(100 * 12);
    expect(metrics.messages).toBe(metrics.requests! * 9);
    expect(run.scenarioSnapshot).toMatchObject({
      overrides: { durationS: 6 },
      spec: { durationS: 6, endsAfter: "duration" },
    });
  });

  it("runs without an instance config on the target's baseline, not on what the previous run applied", async () => {
    const configured = await launchFromUi(
      "LLM gateway (local)",
      "300 req/s non-streaming, 20 s",
      "t3.xlarge profile",
      3,
    );
    expect(configured.run.status, configured.run.error ?? "").toBe("succeeded");
    expect(configured.run.serverConfig).toMatchObject({ big_payload: true, buffer_size: 20000 });
    expect(configured.metrics.res_bytes_avg).toBeGreaterThan(9000);

    const { run, metrics } = await launchFromUi("LLM gateway (local)", "300 req/s non-streaming, 20 s", undefined, 3);
    expect(run.status, run.error ?? "").toBe("succeeded");
    expect(run.configSnapshot).toBeNull();
    // The gateway was set back to its defaults, and the run recorded them as it found them.
    const defaults = ZGatewayConfig.parse({});
    expect(gateway.config.get()).toEqual(defaults);
    expect(run.serverConfig).toEqual(defaults);
    expect(metrics.res_bytes_avg).toBeLessThan(2000);

    const card = stack.page.getByRole("table", { name: "Server config in effect" });
    await card.waitFor();
    await stack.page.getByText("The run had no instance config: the target was set to its baseline").waitFor();
    const rows = Object.fromEntries(
      (await card.locator("tr").allTextContents()).map((text) => {
        const key = Object.keys(defaults).find((k) => text.startsWith(k)) ?? text;
        return [key, text.slice(key.length)];
      }),
    );
    expect(rows.big_payload).toBe("false");
    expect(rows.buffer_size).toBe(String(defaults.buffer_size));
    await stack.page.screenshot({ path: path.join(screenshotsDir, "run-baseline-config.png"), fullPage: true });
  });
});
