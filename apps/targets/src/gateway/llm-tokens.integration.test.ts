import { runScenario } from "@benchboard/loadgen";
import { afterEach, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "./server";

let gateway: Gateway | null = null;
afterEach(async () => {
  await gateway?.close(1_000);
  gateway = null;
});

describe("LLM figures through the gateway", () => {
  it("streaming and non-streaming runs report the same output tokens per request", async () => {
    // Several tokens per stream event: counting events would read a fifth of the tokens.
    gateway = await startGateway({
      port: 0,
      config: { initial_pool_size: 8, latency_ms: 30, tokens_per_chunk: 5 },
    });
    const run = (stream: boolean) =>
      runScenario({ engine: "llm", rate: 10, durationS: 2, warmupS: 0, stream }, { baseUrl: gateway!.url });
    const streamed = await run(true);
    const whole = await run(false);
    for (const r of [streamed, whole]) {
      expect(r.metrics.failed).toBe(0);
      expect(r.metrics.requests).toBe(20);
    }
    const perRequest = (r: typeof streamed) => r.metrics.output_tokens! / r.metrics.requests!;
    expect(perRequest(streamed)).toBeGreaterThan(5);
    expect(perRequest(streamed)).toBe(perRequest(whole));
    // Both counted from the provider's usage.
    for (const r of [streamed, whole]) {
      expect((r.extra?.counters as Record<string, number>).tokens_from_usage).toBe(20);
    }
    // A per-request output rate only where it means something: after the first token of a stream.
    expect(streamed.metrics.tokens_per_s).toBeGreaterThan(0);
    expect(whole.metrics.tokens_per_s).toBeUndefined();
    expect(streamed.metrics.ttft_p50).toBeGreaterThan(0);
    expect(streamed.series.ttft_p50?.values.some((v) => v !== null)).toBe(true);
  });
});
