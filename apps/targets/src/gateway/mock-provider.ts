import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { TGatewayConfig } from "./config";

/**
 * The built-in upstream: an OpenAI-compatible provider that answers after `latency_ms ± jitter_ms`
 * with a fixed-size completion, fails `error_rate` of calls with a 500, and streams by spreading
 * the latency over per-chunk deadlines (Bifrost's mocker does the same). It runs in-process so a
 * 2-core machine spends its CPU on the gateway, not on a second server.
 */

/** Body sizes of the gateway's non-streaming answer, as in the Bifrost benchmark tables (KiB). */
export const RESPONSE_BYTES = { small: Math.round(1.37 * 1024), big: Math.round(10.32 * 1024) } as const;

const WORDS =
  "the quick gateway routes each request to a provider key and streams tokens back while the queue holds " +
  "bursts and workers keep upstream calls in flight so latency stays flat under load benchmark results show " +
  "memory and overhead per stage for every run";

export class ProviderError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`provider answered ${status}`);
    this.name = "ProviderError";
  }
}

interface Completion {
  content: string;
  words: string[];
}

/** Output that a gateway answer of `targetBytes` needs, for a model name of typical length. */
function buildCompletion(targetBytes: number): Completion {
  const envelope = JSON.stringify({
    id: `chatcmpl-${"x".repeat(24)}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-4o-mini",
    choices: [{ index: 0, message: { role: "assistant", content: "" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 10, completion_tokens: 100, total_tokens: 110 },
  }).length;
  const source = WORDS.split(" ");
  let content = "";
  for (let i = 0; content.length < targetBytes - envelope; i++) {
    content += `${i === 0 ? "" : " "}${source[i % source.length]}`;
  }
  content = content.slice(0, Math.max(0, targetBytes - envelope));
  return { content, words: content.split(" ") };
}

const COMPLETIONS = { small: buildCompletion(RESPONSE_BYTES.small), big: buildCompletion(RESPONSE_BYTES.big) };

export interface UpstreamRequest {
  model: string;
  messages: Array<{ role: string; content?: unknown }>;
  stream?: boolean;
}

export class MockProvider {
  constructor(private readonly config: () => TGatewayConfig) {}

  private delayMs(config: TGatewayConfig): number {
    const jitter = config.jitter_ms > 0 ? (Math.random() * 2 - 1) * config.jitter_ms : 0;
    return Math.max(0, config.latency_ms + jitter);
  }

  /** Non-streaming call: writes the raw response body through `write` and resolves when done. */
  async complete(body: string, write: (text: string) => void, signal: AbortSignal): Promise<void> {
    const config = this.config();
    const request = JSON.parse(body) as UpstreamRequest;
    const delay = this.delayMs(config);
    if (delay > 0) await sleep(delay, undefined, { signal });
    if (Math.random() < config.error_rate) throw failure();
    const completion = config.big_payload ? COMPLETIONS.big : COMPLETIONS.small;
    write(
      JSON.stringify({
        id: completionId(),
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        choices: [{ index: 0, message: { role: "assistant", content: completion.content }, finish_reason: "stop" }],
        usage: usage(request, completion),
      }),
    );
  }

  /** Streaming call: yields raw chunk bodies (JSON), the last one carrying usage. */
  async *stream(body: string, signal: AbortSignal): AsyncGenerator<string> {
    const config = this.config();
    const request = JSON.parse(body) as UpstreamRequest;
    const total = this.delayMs(config);
    const completion = config.big_payload ? COMPLETIONS.big : COMPLETIONS.small;
    const perChunk = config.tokens_per_chunk;
    const chunkCount = Math.ceil(completion.words.length / perChunk);
    const fails = Math.random() < config.error_rate;
    const id = completionId();
    const created = Math.floor(Date.now() / 1000);
    const start = performance.now();
    if (fails) {
      if (total > 0) await sleep(total / Math.max(1, chunkCount), undefined, { signal });
      throw failure();
    }
    for (let i = 0; i < chunkCount; i++) {
      const deadline = start + (total * (i + 1)) / chunkCount;
      const wait = deadline - performance.now();
      // Sub-millisecond waits are skipped: a timer cannot be shorter than 1 ms anyway, and the
      // next deadline absorbs the difference.
      if (wait >= 1) await sleep(wait, undefined, { signal });
      const words = completion.words.slice(i * perChunk, (i + 1) * perChunk);
      const text = (i === 0 ? "" : " ") + words.join(" ");
      yield JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created,
        model: request.model,
        choices: [
          { index: 0, delta: i === 0 ? { role: "assistant", content: text } : { content: text }, finish_reason: null },
        ],
      });
    }
    yield JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model: request.model,
      choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
      usage: usage(request, completion),
    });
  }
}

function failure(): ProviderError {
  return new ProviderError(
    500,
    JSON.stringify({ error: { message: "mock provider failure", type: "server_error", code: "mock_failure" } }),
  );
}

function completionId(): string {
  return `chatcmpl-${randomBytes(12).toString("hex")}`;
}

function usage(request: UpstreamRequest, completion: Completion) {
  let promptChars = 0;
  for (const message of request.messages) {
    promptChars +=
      typeof message.content === "string" ? message.content.length : JSON.stringify(message.content ?? "").length;
  }
  const promptTokens = Math.max(1, Math.ceil(promptChars / 4));
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completion.words.length,
    total_tokens: promptTokens + completion.words.length,
  };
}
