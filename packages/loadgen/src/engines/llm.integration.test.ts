import { type EngineProgress, LiveSamples, parseLiveProgress, runReading } from "@benchboard/core";
import { afterEach, describe, expect, it } from "vitest";
import { readBody, startHttpServer, type TestServer } from "../../test/servers";
import { runScenario } from "../index";
import { SseChatReader } from "./llm";

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A mock OpenAI-compatible provider: first token after 40 ms, then 4 more 25 ms apart. */
async function startMockLlm(prompts: string[]) {
  return startHttpServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as { messages: { content: string }[]; stream: boolean; model: string };
    prompts.push(body.messages[0]!.content);
    if (req.url !== "/v1/chat/completions") {
      res.statusCode = 404;
      res.end();
      return;
    }
    if (!body.stream) {
      await sleep(60);
      res.setHeader("content-type", "application/json");
      res.setHeader("server-timing", "provider;dur=55");
      res.end(JSON.stringify({ choices: [{ message: { content: "Hello there" } }], usage: { completion_tokens: 12 } }));
      return;
    }
    res.setHeader("content-type", "text/event-stream");
    await sleep(40);
    for (let i = 0; i < 5; i++) {
      if (i > 0) await sleep(25);
      res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: `tok${i} ` } }] })}\n\n`);
    }
    // Two tokens per event, as providers often send: only the usage chunk says so.
    if (!body.model.endsWith("-no-usage")) {
      res.write(`data: ${JSON.stringify({ choices: [], usage: { completion_tokens: 10 } })}\n\n`);
    }
    res.end("data: [DONE]\n\n");
  });
}

describe("llm engine", () => {
  it("measures time to first token and inter-token latency when streaming", async () => {
    const prompts: string[] = [];
    server = await startMockLlm(prompts);
    const result = await runScenario(
      { engine: "llm", rate: 20, durationS: 2, stream: true, promptTemplate: "#{{index}} {{nonce}} hi" },
      { baseUrl: server.url },
    );
    // Only the generator may be late (on a busy machine), and then the run says so.
    expect(
      result.invalidReasons.filter((r) => !r.startsWith("the load generator")),
      result.invalidReasons.join("; "),
    ).toEqual([]);
    expect(result.metrics.requests).toBe(40);
    expect(result.metrics.failed).toBe(0);
    expect(result.metrics.ttft_p50).toBeGreaterThan(39);
    expect(result.metrics.ttft_p50).toBeLessThan(65);
    expect(result.metrics.itl_p50).toBeGreaterThan(23);
    expect(result.metrics.itl_p50).toBeLessThan(40);
    expect(result.metrics.latency_p50).toBeGreaterThan(139);
    // 8 of the 10 tokens came after the first event, over ~100 ms: about 80 tokens/s per stream.
    expect(result.metrics.tokens_per_s).toBeGreaterThan(50);
    expect(result.metrics.tokens_per_s).toBeLessThan(84);
    // The provider's count (10 per reply), not the five content events.
    expect(result.metrics.output_tokens).toBe(400);
    expect((result.extra?.counters as Record<string, number>).tokens_from_usage).toBe(40);
    // Completed throughput sits beside the send rate; runtime is the window plus the last replies.
    expect(result.metrics.completed_rps).toBeGreaterThan(17);
    expect(result.metrics.completed_rps).toBeLessThanOrEqual(result.metrics.rps!);
    expect(result.metrics.runtime_ms).toBeGreaterThan(2000);
    // Connections were warmed first: those requests are not measured.
    expect((result.extra?.schedule as { warmupRequests: number }).warmupRequests).toBeGreaterThan(0);
    // Every prompt is distinct (the nonce) and carries its index.
    expect(new Set(prompts).size).toBe(prompts.length);
    expect(prompts.some((p) => p.startsWith("#39 "))).toBe(true);
  });

  it("reports TTFT, inter-token latency and output rate in each second's progress", async () => {
    server = await startMockLlm([]);
    const progress: EngineProgress[] = [];
    const result = await runScenario(
      { engine: "llm", rate: 20, durationS: 3, stream: true },
      { baseUrl: server.url, onProgress: (p) => progress.push(p) },
    );
    expect(result.metrics.failed).toBe(0);
    // Reported while the run goes on, not only at its end.
    const during = progress.filter((p) => p.fraction !== null && p.fraction < 1 && p.requests > 0);
    expect(during.length).toBeGreaterThanOrEqual(1);
    for (const p of during) {
      expect(p.llm, JSON.stringify(p)).toBeDefined();
      const llm = p.llm!;
      expect(llm.ttftP50Ms).toBeGreaterThan(39);
      expect(llm.ttftP50Ms).toBeLessThan(65);
      expect(llm.ttftP99Ms).toBeGreaterThanOrEqual(llm.ttftP50Ms!);
      expect(llm.itlP50Ms).toBeGreaterThan(23);
      expect(llm.itlP50Ms).toBeLessThan(40);
      expect(llm.itlP99Ms).toBeGreaterThanOrEqual(llm.itlP50Ms!);
      expect(llm.tokensPerS).toBeGreaterThan(50);
      expect(llm.tokensPerS).toBeLessThan(84);
    }
    // What the worker stores from it passes the live schema with the LLM figures intact.
    const stored = parseLiveProgress(JSON.parse(JSON.stringify(new LiveSamples().add(during.at(-1)!, {}))));
    expect(stored?.llm).toEqual(during.at(-1)!.llm);
  });

  it("counts stream events, and says so, when a stream reports no usage", async () => {
    server = await startMockLlm([]);
    const result = await runScenario(
      { engine: "llm", rate: 10, durationS: 1, stream: true, model: "mock-no-usage", warmupS: 0 },
      { baseUrl: server.url },
    );
    expect(result.metrics.requests).toBe(10);
    expect(result.metrics.output_tokens).toBe(50);
    const counters = result.extra?.counters as Record<string, number>;
    expect(counters.tokens_from_events).toBe(10);
    expect(counters.tokens_from_usage).toBeUndefined();
  });

  it("reads usage from non-streaming responses", async () => {
    const prompts: string[] = [];
    server = await startMockLlm(prompts);
    const progress: EngineProgress[] = [];
    const result = await runScenario(
      { engine: "llm", rate: 20, durationS: 2, stream: false },
      { baseUrl: server.url, onProgress: (p) => progress.push(p) },
    );
    expect(result.metrics.requests).toBe(40);
    expect(result.metrics.failed).toBe(0);
    expect(result.metrics.latency_p50).toBeGreaterThan(59);
    expect(result.metrics.ttft_p50).toBeUndefined();
    // The reply arrives whole: a per-request output rate would mean nothing, so there is none.
    expect(result.metrics.tokens_per_s).toBeUndefined();
    expect(result.metrics.output_tokens).toBe(480);
    expect(result.stages.provider?.count).toBe(40);
    // Without a stream there is no first token to time, nor a per-request output rate.
    const live = progress.filter((p) => p.requests > 0).at(-1)?.llm;
    expect(live).toMatchObject({ ttftP50Ms: null, ttftP99Ms: null, itlP50Ms: null, itlP99Ms: null });
    expect(live?.tokensPerS).toBeNull();
  });

  it("reads the run saturated, not invalid, when completed responses fall behind the send rate", async () => {
    // Every reply takes 1.5 s: 20 req/s are sent for 1 s, but they complete over 2.5 s.
    server = await startHttpServer(async (_req, res) => {
      await sleep(1500);
      res.end(JSON.stringify({ choices: [{ message: { content: "late" } }], usage: { completion_tokens: 3 } }));
    });
    const result = await runScenario(
      { engine: "llm", rate: 20, durationS: 1, stream: false, warmupS: 0, timeoutMs: 5000 },
      { baseUrl: server.url },
    );
    expect(result.metrics.rps).toBeGreaterThan(19);
    expect(result.metrics.runtime_ms).toBeGreaterThan(2400);
    expect(result.metrics.completed_rps).toBeLessThan(9);
    // The target's reason: a measurement of a saturated target (the generator's lateness, if a
    // busy machine caused any, would make it invalid and be said first).
    expect(result.saturationReasons.join("; ")).toMatch(
      /^the target did not keep up: completed \d+\.\d responses\/s, below 90% of the 20\.0 req\/s sent/,
    );
    if (result.valid) expect(runReading(result)).toBe("saturated");
    else expect(result.invalidReasons[0]).toMatch(/^the load generator/);
  });

  it("counts error responses", async () => {
    server = await startHttpServer((_req, res) => {
      res.statusCode = 200;
      res.end(JSON.stringify({ error: { message: "rate limited" } }));
    });
    const result = await runScenario({ engine: "llm", rate: 10, durationS: 1 }, { baseUrl: server.url });
    expect(result.metrics.requests).toBe(10);
    expect(result.metrics.failed).toBe(10);
    expect(result.errors[0]).toMatchObject({ kind: "response", count: 10 });
  });
});

describe("SseChatReader", () => {
  it("reassembles events split across chunks", () => {
    const r = new SseChatReader();
    const text = `data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"choices":[{"delta":{"content":"b"}}]}\r\n\r\ndata: [DONE]\n\n`;
    r.push(text.slice(0, 17), 1);
    r.push(text.slice(17, 60), 2);
    r.push(text.slice(60), 5);
    expect(r.contentEvents).toBe(2);
    expect(r.firstContentAt).toBe(2);
    expect(r.gapsMs).toEqual([3]);
    expect(r.done).toBe(true);
  });
});
