import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { parseServerTiming } from "../lib/server-timing";
import { sampleValue } from "../testing/prometheus-text";
import { expectConfigRejections, getConfig, putConfig, scrape, waitFor } from "../testing/services";
import { STAGES } from "./config";
import { type Gateway, startGateway } from "./server";

interface CompletionBody {
  id: string;
  object: string;
  model: string;
  choices: Array<{ message: { role: string; content: string }; finish_reason: string }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

interface ChunkBody {
  object: string;
  choices: Array<{ delta: { role?: string; content?: string }; finish_reason: string | null }>;
  usage?: CompletionBody["usage"];
}

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const running: Gateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.close(1_000)));
});

/** A gateway on an ephemeral port; small pools keep startup cheap on a shared machine. */
async function gateway(config: Record<string, unknown> = {}): Promise<Gateway> {
  const started = await startGateway({ port: 0, config: { initial_pool_size: 16, ...config } });
  running.push(started);
  return started;
}

const BODY = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "#1 Say hello." }] });
const STREAM_BODY = JSON.stringify({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "Hi" }] });

function complete(target: Gateway, body = BODY) {
  return fetch(`${target.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
}

/** Streams one completion with node:http so that chunk arrival times and trailers are visible. */
function streamCompletion(target: Gateway): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  trailers: Record<string, string | undefined>;
  events: Array<{ data: string; at: number }>;
  elapsedMs: number;
}> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(
      `${target.url}/v1/chat/completions`,
      { method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        const events: Array<{ data: string; at: number }> = [];
        let buffered = "";
        res.setEncoding("utf8");
        res.on("data", (text: string) => {
          buffered += text;
          let boundary = buffered.indexOf("\n\n");
          while (boundary >= 0) {
            const event = buffered.slice(0, boundary);
            buffered = buffered.slice(boundary + 2);
            expect(event.startsWith("data: ")).toBe(true);
            events.push({ data: event.slice(6), at: performance.now() - started });
            boundary = buffered.indexOf("\n\n");
          }
        });
        res.on("end", () => {
          expect(buffered).toBe("");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            trailers: res.trailers,
            events,
            elapsedMs: performance.now() - started,
          });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(STREAM_BODY);
  });
}

function stagesOf(header: string | null) {
  expect(header).toBeTruthy();
  const entries = parseServerTiming(header!);
  expect(entries.map((e) => e.name)).toEqual([...STAGES]);
  for (const entry of entries) {
    expect(entry.dur).toBeTypeOf("number");
    expect(entry.dur).toBeGreaterThanOrEqual(0);
  }
  return Object.fromEntries(entries.map((e) => [e.name, e.dur!])) as Record<(typeof STAGES)[number], number>;
}

describe("gateway: chat completions", () => {
  it("answers non-streaming with an OpenAI completion of ~1.37 KiB and per-stage Server-Timing", async () => {
    const target = await gateway({ latency_ms: 40 });
    const response = await complete(target);
    expect(response.status).toBe(200);
    const text = await response.text();
    const bytes = Buffer.byteLength(text);
    expect(bytes).toBeGreaterThan(1.3 * 1024);
    expect(bytes).toBeLessThan(1.45 * 1024);
    const body = JSON.parse(text) as CompletionBody;
    expect(body).toMatchObject({ object: "chat.completion", model: "gpt-4o-mini" });
    expect(body.id).toMatch(/^chatcmpl-/);
    const [choice] = body.choices;
    expect(choice?.message.role).toBe("assistant");
    expect(choice?.message.content.length).toBeGreaterThan(1000);
    expect(choice?.finish_reason).toBe("stop");
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);

    const stages = stagesOf(response.headers.get("server-timing"));
    expect(stages.upstream_request).toBeGreaterThanOrEqual(39);
    expect(stages.upstream_request).toBeLessThan(1_000);
    expect(stages.queue_wait).toBeLessThan(stages.upstream_request);
  });

  it("answers ~10.3 KiB with big_payload, like the larger Bifrost benchmark", async () => {
    const target = await gateway({ latency_ms: 0 });
    const small = Buffer.byteLength(await (await complete(target)).text());
    expect((await putConfig(target.url, { latency_ms: 0, big_payload: true })).status).toBe(200);
    const response = await complete(target);
    expect(response.status).toBe(200);
    const big = Buffer.byteLength(await response.text());
    expect(big).toBeGreaterThan(10 * 1024);
    expect(big).toBeLessThan(10.6 * 1024);
    expect(big / small).toBeGreaterThan(7);
  });

  it("streams SSE chunks spread over the latency, ending with [DONE] and a Server-Timing trailer", async () => {
    const target = await gateway({ latency_ms: 300, tokens_per_chunk: 20 });
    const whole = (await (await complete(target)).json()) as CompletionBody;

    const streamed = await streamCompletion(target);
    expect(streamed.status).toBe(200);
    expect(streamed.headers["content-type"]).toBe("text/event-stream");
    const atFirstByte = stagesOf(streamed.headers["server-timing"] as string);
    expect(atFirstByte.upstream_request).toBeLessThan(150);

    const events = streamed.events;
    expect(events.at(-1)?.data).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data) as ChunkBody);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(chunk.object).toBe("chat.completion.chunk");
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("stop");
    expect(chunks.at(-1)!.usage!.completion_tokens).toBe(whole.usage.completion_tokens);
    const content = chunks.map((c) => c.choices[0]!.delta.content ?? "").join("");
    expect(content).toBe(whole.choices[0]!.message.content);

    // Chunks arrive over the configured latency, not all at the end.
    expect(events[0]!.at).toBeLessThan(200);
    expect(streamed.elapsedMs).toBeGreaterThanOrEqual(290);
    const complete_ = stagesOf(streamed.trailers["server-timing"] ?? null);
    expect(complete_.response_parsing).toBeGreaterThanOrEqual(atFirstByte.response_parsing);
  });

  it("refuses a malformed request with an OpenAI error naming the parameter", async () => {
    const target = await gateway({ latency_ms: 0 });
    const response = await complete(target, JSON.stringify({ model: "gpt-4o-mini", messages: [] }));
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody;
    expect(body.error).toMatchObject({ type: "invalid_request_error", param: "messages" });
    expect(body.error.message).toContain("messages");
    const notJson = await complete(target, "{");
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as ErrorBody).error.param).toBe("body");
  });
});

describe("gateway: queue and workers", () => {
  it("with drop_excess_requests, a full queue refuses with 503 at once", async () => {
    const target = await gateway({ concurrency: 1, buffer_size: 1, drop_excess_requests: true, latency_ms: 400 });
    const started = performance.now();
    const responses = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const response = await complete(target);
        return {
          status: response.status,
          body: (await response.json()) as ErrorBody,
          retryAfter: response.headers.get("retry-after"),
          at: performance.now() - started,
        };
      }),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 503, 503, 503]);
    const firstServed = Math.min(...responses.filter((r) => r.status === 200).map((r) => r.at));
    for (const refused of responses.filter((r) => r.status === 503)) {
      // Refused at once, not after waiting for a worker.
      expect(refused.at).toBeLessThan(firstServed);
      expect(refused.retryAfter).toBe("1");
      expect(refused.body.error.type).toBe("server_overloaded");
    }
    const metrics = await scrape(target.url);
    expect(sampleValue(metrics, "gateway_dropped_requests_total")).toBe(3);
    expect(sampleValue(metrics, "gateway_requests_total", { status: "503", stream: "false" })).toBe(3);
    expect(sampleValue(metrics, "gateway_requests_total", { status: "200", stream: "false" })).toBe(2);
  });

  it("without drop_excess_requests, a full queue makes requests wait, and queue wait shows it", async () => {
    const target = await gateway({ concurrency: 1, buffer_size: 1, drop_excess_requests: false, latency_ms: 250 });
    const started = performance.now();
    const all = Promise.all(
      Array.from({ length: 5 }, async () => {
        const response = await complete(target);
        await response.arrayBuffer();
        return { status: response.status, stages: stagesOf(response.headers.get("server-timing")) };
      }),
    );
    // Whenever a request is blocked, the one worker is busy and the one queue slot is taken.
    const during = await waitFor(
      async () => {
        const metrics = await scrape(target.url);
        return sampleValue(metrics, "gateway_queue_blocked") > 0 ? metrics : undefined;
      },
      1_000,
      "a request blocked on the full queue",
    );
    expect(sampleValue(during, "gateway_active_workers")).toBe(1);
    expect(sampleValue(during, "gateway_queue_depth")).toBe(1);

    const responses = await all;
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(5 * 250 - 20);
    const waits = responses.map((r) => r.stages.queue_wait).sort((a, b) => a - b);
    expect(waits[0]).toBeLessThan(100);
    expect(waits[4]).toBeGreaterThan(3 * 250 - 20);
    const after = await scrape(target.url);
    expect(sampleValue(after, "gateway_dropped_requests_total")).toBe(0);
    expect(sampleValue(after, "gateway_queue_depth")).toBe(0);
  });

  it("concurrency caps upstream calls in flight", async () => {
    const target = await gateway({ concurrency: 4, buffer_size: 100, latency_ms: 250 });
    const started = performance.now();
    const all = Promise.all(Array.from({ length: 8 }, async () => (await complete(target)).status));
    // Whenever a request waits in the queue, all four workers are busy.
    const during = await waitFor(
      async () => {
        const metrics = await scrape(target.url);
        return sampleValue(metrics, "gateway_queue_depth") > 0 ? metrics : undefined;
      },
      1_000,
      "a request waiting in the queue",
    );
    expect(sampleValue(during, "gateway_active_workers")).toBe(4);
    expect(sampleValue(during, "gateway_workers")).toBe(4);
    expect(await all).toEqual(Array(8).fill(200));
    const elapsed = performance.now() - started;
    // Two waves of 250 ms: not one (concurrency ignored) and not eight (2 s, serialized).
    expect(elapsed).toBeGreaterThanOrEqual(480);
    expect(elapsed).toBeLessThan(1_500);
  });

  it("fails about error_rate of calls with an upstream error, counted in /metrics", async () => {
    const target = await gateway({ error_rate: 0.3, latency_ms: 0, concurrency: 50 });
    const statuses: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const results = await Promise.all(
        Array.from({ length: 40 }, async () => {
          const response = await complete(target);
          const body = (await response.json()) as ErrorBody;
          if (response.status === 500)
            expect(body.error).toMatchObject({ type: "upstream_error", code: "upstream_500" });
          return response.status;
        }),
      );
      statuses.push(...results);
    }
    const failed = statuses.filter((s) => s === 500).length;
    expect(statuses.filter((s) => s !== 500 && s !== 200)).toEqual([]);
    // 400 calls at p = 0.3: mean 120, sd ≈ 9.2; the bounds are more than 5 sd away.
    expect(failed).toBeGreaterThan(70);
    expect(failed).toBeLessThan(170);
    const metrics = await scrape(target.url);
    expect(sampleValue(metrics, "gateway_upstream_errors_total")).toBe(failed);
    expect(sampleValue(metrics, "gateway_requests_total", { status: "500", stream: "false" })).toBe(failed);

    expect((await putConfig(target.url, { error_rate: 1, latency_ms: 0 })).status).toBe(200);
    const streamed = await complete(target, STREAM_BODY);
    expect(streamed.status).toBe(500);
    expect(streamed.headers.get("content-type")).toBe("application/json");
    expect(stagesOf(streamed.headers.get("server-timing")).upstream_request).toBeGreaterThanOrEqual(0);
    expect((await putConfig(target.url, { error_rate: 0, latency_ms: 0 })).status).toBe(200);
    expect((await complete(target)).status).toBe(200);
  });
});

describe("gateway: /metrics and /admin/config", () => {
  it("serves valid Prometheus text with process, queue and stage metrics", async () => {
    const target = await gateway({ latency_ms: 5 });
    for (let i = 0; i < 3; i++) await (await complete(target)).arrayBuffer();
    const streamed = await complete(target, STREAM_BODY);
    await streamed.text();
    const metrics = await scrape(target.url);
    expect(sampleValue(metrics, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(sampleValue(metrics, "process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(metrics.get("process_cpu_seconds_total")?.type).toBe("counter");
    expect(metrics.get("gateway_queue_depth")?.type).toBe("gauge");
    expect(sampleValue(metrics, "gateway_requests_total", { status: "200", stream: "false" })).toBe(3);
    expect(sampleValue(metrics, "gateway_requests_total", { status: "200", stream: "true" })).toBe(1);
    expect(metrics.get("gateway_stage_duration_seconds")?.type).toBe("histogram");
    for (const stage of STAGES) {
      expect(sampleValue(metrics, "gateway_stage_duration_seconds_count", { stage })).toBe(4);
      expect(sampleValue(metrics, "gateway_stage_duration_seconds_bucket", { stage, le: "+Inf" })).toBe(4);
    }
    // Three plain calls wait 5 ms each upstream. libuv's timers keep whole milliseconds, so a
    // 5 ms wait can end up to 1 ms early: at least 3 × 4 ms, whatever the streamed call adds.
    expect(sampleValue(metrics, "gateway_stage_duration_seconds_sum", { stage: "upstream_request" })).toBeGreaterThan(
      0.012,
    );
    expect(sampleValue(metrics, "gateway_request_duration_seconds_count", { stream: "true" })).toBe(1);
    expect(sampleValue(metrics, "gateway_pool_contexts", { state: "in_use" })).toBe(0);
  });

  it("refuses bad knobs with 400 naming the field and keeps the config unchanged", async () => {
    const target = await gateway({ buffer_size: 300 });
    await expectConfigRejections(target.url, [
      { body: { buffer_size: 0 }, field: "buffer_size" },
      { body: { buffer_size: 1.5 }, field: "buffer_size" },
      { body: { concurrency: "many" }, field: "concurrency" },
      { body: { error_rate: 1.5 }, field: "error_rate" },
      { body: { drop_excess_requests: "sometimes" }, field: "drop_excess_requests" },
      { body: { latency_ms: -1 }, field: "latency_ms" },
      { body: { bufer_size: 10 }, field: "bufer_size" },
      { body: [1], field: "body" },
      { body: "{not json", field: "body" },
    ]);
    expect((await getConfig(target.url)).buffer_size).toBe(300);
  });

  it("applies knobs on PUT (others back to defaults) and PATCH (others kept)", async () => {
    const target = await gateway({ latency_ms: 7 });
    const put = await putConfig(target.url, { buffer_size: "15000", initial_pool_size: 32, concurrency: 3 });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ buffer_size: 15000, initial_pool_size: 32, concurrency: 3, latency_ms: 50 });
    const patched = await putConfig(target.url, { latency_ms: 1 }, "PATCH");
    expect(patched.body).toMatchObject({ buffer_size: 15000, concurrency: 3, latency_ms: 1 });
    expect(await getConfig(target.url)).toEqual(patched.body);
    const metrics = await scrape(target.url);
    expect(sampleValue(metrics, "gateway_queue_capacity")).toBe(15000);
    expect(sampleValue(metrics, "gateway_workers")).toBe(3);
    expect(sampleValue(metrics, "gateway_pool_contexts", { state: "idle" })).toBe(32);
  });
});
