import { afterEach, describe, expect, it } from "vitest";
import { startChatServer } from "../../test/chat-server";
import { startHttpServer, type TestServer } from "../../test/servers";
import { runScenario } from "../index";

// Every engine's dispatcher obeys the rate cap, including the two that do not pace themselves:
// the closed model (each user sends again as soon as its answer arrives) and chat with a message
// interval of 0. Against fast servers on 127.0.0.1 both would go far beyond the cap without it.
let http: TestServer | null = null;
let chat: Awaited<ReturnType<typeof startChatServer>> | null = null;
afterEach(async () => {
  await http?.close();
  await chat?.close();
  http = null;
  chat = null;
});

describe("rate ceiling", () => {
  it("holds a closed-model run at the cap: achieved ≤ cap", async () => {
    let served = 0;
    http = await startHttpServer((_req, res) => {
      served++;
      res.end("ok");
    });
    const cap = 200;
    const result = await runScenario(
      { engine: "http-closed", concurrency: 20, durationS: 2 },
      { baseUrl: http.url, limits: { maxRate: cap } },
    );
    const rps = result.metrics.rps!;
    // Uncapped, 20 users against this server send thousands per second.
    expect(rps).toBeLessThanOrEqual(cap * 1.02);
    expect(rps).toBeGreaterThan(cap * 0.8);
    expect(served).toBeLessThanOrEqual(Math.ceil(cap * 2 * 1.02) + 20);
    expect(result.metrics.failed).toBe(0);
  });

  it("holds a chat run with message interval 0 at the cap: achieved ≤ cap", async () => {
    chat = await startChatServer();
    const cap = 100;
    const result = await runScenario(
      { engine: "ws-chat", users: 10, rooms: 2, messagesPerUser: 1_000, messageIntervalMs: 0, durationS: 2 },
      { baseUrl: chat.url, limits: { maxRate: cap } },
    );
    const sent = result.metrics.requests!;
    const runtimeS = result.metrics.runtime_ms! / 1000;
    // Without the ceiling 10 users send their 10,000 messages in well under a second.
    expect(sent / runtimeS).toBeLessThanOrEqual(cap * 1.05);
    expect(sent).toBeLessThan(10_000);
    expect(sent).toBeGreaterThan(cap);
  });
});
