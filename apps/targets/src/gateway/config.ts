import { z } from "zod";
import { boolKnob, intKnob, numberKnob } from "../lib/config-store";

/**
 * The gateway's knobs. The first four are Bifrost's own (`client.initial_pool_size`,
 * `concurrency_and_buffer_size`, `client.drop_excess_requests`, with Bifrost's documented
 * defaults); the rest shape the built-in mock provider like Bifrost's benchmarking mocker.
 */
export const ZGatewayConfig = z.strictObject({
  /** Requests that may wait in the gateway's queue for a free worker. */
  buffer_size: intKnob(1, 1_000_000, 5_000),
  /** Request contexts (with their response buffers) allocated up front; more are made on demand. */
  initial_pool_size: intKnob(0, 100_000, 5_000),
  /** Workers, i.e. upstream calls in flight at once. */
  concurrency: intKnob(1, 100_000, 1_000),
  /** When the queue is full: true answers 503 at once, false makes the request wait for room. */
  drop_excess_requests: boolKnob(false),
  /** Mock provider: time to answer (non-streaming) or to stream the whole answer. */
  latency_ms: numberKnob(0, 600_000, 50),
  /** Mock provider: uniform ± spread added to `latency_ms` (never below zero). */
  jitter_ms: numberKnob(0, 600_000, 0),
  /** Mock provider: share of upstream calls that fail with a 500. */
  error_rate: numberKnob(0, 1, 0),
  /** Mock provider: ~10.3 KiB answers instead of ~1.37 KiB (the two Bifrost benchmark sizes). */
  big_payload: boolKnob(false),
  /** Mock provider: words per streamed chunk. */
  tokens_per_chunk: intKnob(1, 10_000, 5),
});

export type TGatewayConfig = z.infer<typeof ZGatewayConfig>;

/** Request body, OpenAI chat completions. Unknown fields are accepted and passed upstream. */
const ZContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });

export const ZChatCompletionRequest = z.looseObject({
  model: z.string().min(1).max(256),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(["system", "developer", "user", "assistant", "tool"]),
        content: z.union([z.string(), z.array(ZContentPart), z.null()]).optional(),
        name: z.string().optional(),
      }),
    )
    .min(1, "at least one message is required"),
  stream: z.boolean().optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  user: z.string().optional(),
});

export type TChatCompletionRequest = z.infer<typeof ZChatCompletionRequest>;

export const STAGES = [
  "queue_wait",
  "key_selection",
  "request_preparation",
  "json_marshaling",
  "upstream_request",
  "response_parsing",
] as const;

export type Stage = (typeof STAGES)[number];
