import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { deleteExchange, dropDatabase, testEnv, uniqueName } from "./testing/services";

const prefix = uniqueName("main");
const database = uniqueName("main_examples");
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await deleteExchange(`${prefix}.rooms`);
  await dropDatabase(database);
});

describe("main: all three targets in one command", () => {
  it("starts them on the configured ports, prints their URLs and exits cleanly on SIGTERM", async () => {
    child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: {
        ...process.env,
        BENCHBOARD_GATEWAY_PORT: "0",
        BENCHBOARD_CHAT_PORT: "0",
        BENCHBOARD_EXAMPLES_PORT: "0",
        BENCHBOARD_CHAT_PREFIX: prefix,
        BENCHBOARD_CHAT_INSTANCE_ID: "main",
        BENCHBOARD_EXAMPLES_DATABASE: database,
        BENCHBOARD_GATEWAY_CONFIG: JSON.stringify({ initial_pool_size: 8, latency_ms: 1 }),
        AMQP_URL: testEnv.AMQP_URL,
        DATABASE_URL: testEnv.DATABASE_URL,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));

    const deadline = performance.now() + 20_000;
    while (!output.includes("each: GET /metrics") && performance.now() < deadline && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(output).toContain("Benchboard reference targets:");
    const gatewayUrl = /gateway\s+(http:\/\/\S+)/.exec(output)?.[1];
    const chatUrl = /chat\s+(ws:\/\/\S+)/.exec(output)?.[1];
    const examplesUrl = /examples\s+(http:\/\/\S+)/.exec(output)?.[1];
    expect(gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(chatUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws$/);
    expect(examplesUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output).toContain(`queue ${prefix}.instance.main`);
    // Secrets stay out of the logs.
    expect(output).not.toContain("guest:guest@");

    const chatHttp = chatUrl!.replace(/^ws/, "http").replace(/\/ws$/, "");
    for (const base of [gatewayUrl, chatHttp, examplesUrl]) {
      const health = await fetch(`${base}/health`);
      expect(health.status, base).toBe(200);
      await health.arrayBuffer();
      expect((await fetch(`${base}/metrics`)).status).toBe(200);
    }
    expect(((await (await fetch(`${gatewayUrl}/admin/config`)).json()) as { latency_ms: number }).latency_ms).toBe(1);

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(output).toContain("SIGTERM: closing gateway, chat, examples");
    await expect(fetch(`${gatewayUrl}/health`)).rejects.toThrow();
  });

  it("refuses a bad environment with a message naming the variable", async () => {
    const failed = spawn(process.execPath, ["--import", "tsx", "src/gateway/main.ts"], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: { ...process.env, BENCHBOARD_GATEWAY_PORT: "70000" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    failed.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => failed.once("exit", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain("BENCHBOARD_GATEWAY_PORT");
  });
});
