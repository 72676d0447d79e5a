import { randomBytes } from "node:crypto";
import type { TScenarioSpec } from "@benchboard/core";
import { type CallDone, HttpCall, prepareRequest } from "../http/call";
import { recordHttpCall } from "../http/record";
import { enforceLimits } from "../limits";
import type { Recorder } from "../recorder";
import type { EngineContext, EngineResult } from "../types";
import { resolveTargetUrl } from "../url";
import { warmOpenModelCode } from "./http-open";
import { runOpenModel } from "./open-model";

type LlmSpec = Extract<TScenarioSpec, { engine: "llm" }>;

/** Fill `{{nonce}}`, `{{index}}` and `{{timestamp}}`; the nonce defeats response caches. */
export function renderPrompt(template: string, index: number, nowMs = Date.now()): string {
  return template.replace(/\{\{\s*(nonce|index|timestamp)\s*\}\}/g, (_, name: string) => {
    if (name === "nonce") return randomBytes(8).toString("hex");
    if (name === "index") return String(index);
    return new Date(nowMs).toISOString();
  });
}

/**
 * Incremental reader of an OpenAI-style SSE stream (`data: {...}` events, `data: [DONE]`).
 * Tracks content events (for time to first token and inter-token latency) and the usage the
 * last chunk may carry.
 */
export class SseChatReader {
  private buffer = "";
  firstContentAt: number | null = null;
  lastContentAt: number | null = null;
  contentEvents = 0;
  completionTokens: number | null = null;
  done = false;
  error: string | null = null;
  /** Gaps between consecutive content events, in ms. */
  readonly gapsMs: number[] = [];

  push(text: string, nowPerf: number): void {
    this.buffer += text;
    let nl = this.buffer.indexOf("\n");
    while (nl !== -1) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, "");
      this.buffer = this.buffer.slice(nl + 1);
      this.line(line, nowPerf);
      nl = this.buffer.indexOf("\n");
    }
  }

  end(nowPerf: number): void {
    if (this.buffer.length > 0) this.line(this.buffer, nowPerf);
    this.buffer = "";
  }

  private line(line: string, nowPerf: number): void {
    if (!line.startsWith("data:")) return;
    const data = line.slice(5).trim();
    if (data === "[DONE]") {
      this.done = true;
      return;
    }
    let event: ChatChunk;
    try {
      event = JSON.parse(data) as ChatChunk;
    } catch {
      return;
    }
    if (event.error) this.error = typeof event.error === "string" ? event.error : (event.error.message ?? "error");
    const tokens = event.usage?.completion_tokens;
    if (typeof tokens === "number") this.completionTokens = tokens;
    const content = event.choices?.[0]?.delta?.content ?? event.choices?.[0]?.text;
    if (typeof content === "string" && content.length > 0) {
      if (this.firstContentAt === null) this.firstContentAt = nowPerf;
      else if (this.lastContentAt !== null) this.gapsMs.push(nowPerf - this.lastContentAt);
      this.lastContentAt = nowPerf;
      this.contentEvents++;
    }
  }
}

interface ChatChunk {
  choices?: { delta?: { content?: string | null }; text?: string; message?: { content?: string } }[];
  usage?: { completion_tokens?: number };
  error?: string | { message?: string };
}

class LlmCall extends HttpCall {
  readonly sse: SseChatReader | null;
  constructor(startAt: number, done: CallDone, stream: boolean) {
    const sse = stream ? new SseChatReader() : null;
    super(startAt, done, {
      keepBody: !stream,
      onChunk: sse ? (chunk, now) => sse.push(chunk.toString("utf8"), now) : undefined,
    });
    this.sse = sse;
  }
}

/**
 * OpenAI-compatible `/v1/chat/completions` at a fixed arrival rate (open model). Latency runs
 * from the due time to the end of the response; with `stream`, time to first token (`ttft_*`)
 * runs from the due time to the first content event and inter-token latency (`itl_*`) is the gap
 * between content events (a server that sends several tokens per event reports per-event gaps).
 * Output tokens are defined once for both modes: the provider's `usage.completion_tokens`
 * (asked for on streams with `stream_options.include_usage`), or, on a stream that reports no
 * usage, one token per content event — the run says which (`extra.tokenCount`).
 * `output_tokens` is their total; `tokens_per_s_total` (derived) is that total over the runtime.
 * `tokens_per_s` is the output rate seen by one client and exists only for streams: the tokens
 * after the first content event over the time they took, pooled over all requests. A reply that
 * arrives whole has no such rate.
 */
export async function runLlm(spec: LlmSpec, ctx: EngineContext): Promise<EngineResult> {
  enforceLimits(spec, ctx);
  // The open model's shared code (pacing, undici, the recorder), compiled before the first run.
  await warmOpenModelCode();
  const url = resolveTargetUrl(ctx.baseUrl, spec.path);
  const headers: Record<string, string> = { ...ctx.headers, ...spec.headers, "content-type": "application/json" };
  if (spec.stream) headers.accept = "text/event-stream";
  const path = url.pathname + url.search;
  const bodyFor = (index: number) =>
    JSON.stringify({
      model: spec.model,
      messages: [{ role: "user", content: renderPrompt(spec.promptTemplate, index) }],
      max_tokens: spec.maxTokens,
      stream: spec.stream,
      ...(spec.stream ? { stream_options: { include_usage: true } } : {}),
    });
  const reqBytes = new Map<HttpCall, number>();

  return runOpenModel(
    {
      origin: url.origin,
      rate: spec.rate,
      durationS: spec.durationS,
      // Connections are opened and warmed like any open model's, with the same request.
      warmupS: spec.warmupS,
      maxConnections: spec.maxConnections,
      timeoutMs: spec.timeoutMs,
      dispatch: (pool, dueAt, index, done) => {
        const body = bodyFor(index);
        const request = prepareRequest({ path, method: "POST", headers, body, timeoutMs: spec.timeoutMs });
        const call = new LlmCall(dueAt, done, spec.stream);
        // Warm-up calls are recorded too (into a recorder that is thrown away), which takes the entry.
        reqBytes.set(call, request.bodyBytes);
        pool.dispatch(request, call);
        return call;
      },
      record: (rec, call, error, now) => {
        const bytes = reqBytes.get(call) ?? 0;
        reqBytes.delete(call);
        recordLlmCall(rec, call as LlmCall, error, now, bytes, spec.stream);
      },
      // Each second's progress carries TTFT, inter-token latency and output rate so far.
      progress: (rec, progress) => ({ ...progress, llm: rec.llmProgress() }),
    },
    ctx,
  );
}

function recordLlmCall(
  rec: Recorder,
  call: LlmCall,
  error: Error | null,
  now: number,
  reqBodyBytes: number,
  stream: boolean,
): void {
  const ok = recordHttpCall(rec, call, error, now, reqBodyBytes);
  if (!ok) return;
  let tokens: number | null = null;
  let failure: string | null = null;
  if (stream && call.sse) {
    const sse = call.sse;
    sse.end(now);
    if (sse.error) failure = sse.error;
    else if (sse.firstContentAt === null) failure = "stream carried no content";
    else {
      rec.recordExtraAt("ttft", (sse.firstContentAt - call.startAt) * 1000, sse.firstContentAt);
      for (const gap of sse.gapsMs) rec.recordExtraAt("itl", gap * 1000, now);
      // The provider's count when the stream reports it (we ask with `include_usage`); else one
      // token per content event, which undercounts a provider that sends several per event.
      const fromUsage = sse.completionTokens !== null;
      tokens = fromUsage ? sse.completionTokens! : sse.contentEvents;
      rec.add(fromUsage ? "tokens_from_usage" : "tokens_from_events");
      // Per-request output rate: the tokens after the first content event over the time they
      // took. The first event's share is taken as an even share of the events.
      const afterFirstMs = (sse.lastContentAt ?? now) - sse.firstContentAt;
      if (afterFirstMs > 0 && sse.contentEvents > 1) {
        rec.add("decode_tokens", (tokens * (sse.contentEvents - 1)) / sse.contentEvents);
        rec.add("decode_s", afterFirstMs / 1000);
      }
    }
  } else {
    try {
      const parsed = JSON.parse(call.body().toString("utf8")) as {
        usage?: { completion_tokens?: number };
        error?: unknown;
        choices?: unknown[];
      };
      if (parsed.error) failure = "response carries an error";
      else if (!Array.isArray(parsed.choices)) failure = "response has no choices";
      tokens = typeof parsed.usage?.completion_tokens === "number" ? parsed.usage.completion_tokens : null;
      // A whole reply at once has no per-request output rate: only the total is counted.
      if (tokens !== null) rec.add("tokens_from_usage");
    } catch {
      failure = "response is not JSON";
    }
  }
  if (failure !== null) {
    rec.add("success", -1);
    rec.add("failed");
    rec.count("errors", now);
    rec.error("response", failure);
    return;
  }
  if (tokens !== null) rec.add("output_tokens", tokens);
}
