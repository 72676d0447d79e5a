import { z } from "zod";
import { RESERVED_KEYS } from "./record-keys";

/**
 * Service knobs on an instance config: typed values applied to the target's config-apply URL
 * before a run. Any name is accepted; the well-known ones below (the reference gateway's and chat
 * server's, spelled as those services spell them) are offered with their type so a form can
 * suggest them and a sweep can vary them.
 */
export type KnobValue = string | number | boolean;
export type KnobType = "number" | "string" | "boolean";

export const KNOB_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

export const ZKnobs = z
  .record(
    z
      .string()
      .max(100)
      .regex(KNOB_NAME_PATTERN, "knob names: letters, digits, _ . - (not starting with a digit)")
      .refine((k) => !RESERVED_KEYS.has(k), { error: (issue) => `${String(issue.input)} is a reserved name` })
      .meta({ not: { enum: [...RESERVED_KEYS] } }),
    z.union([z.string().max(2_000), z.number().finite(), z.boolean()]),
  )
  .refine((k) => Object.keys(k).length <= 100, "at most 100 knobs")
  .meta({ maxProperties: 100 });
export type TKnobs = z.infer<typeof ZKnobs>;

export interface KnownKnob {
  name: string;
  type: KnobType;
  description: string;
  /** The service the knob belongs to, for grouping suggestions. */
  service: "gateway" | "chat";
}

export const KNOWN_KNOBS: readonly KnownKnob[] = [
  { name: "buffer_size", type: "number", service: "gateway", description: "Requests that may wait for a worker" },
  { name: "initial_pool_size", type: "number", service: "gateway", description: "Request contexts allocated up front" },
  { name: "concurrency", type: "number", service: "gateway", description: "Upstream calls in flight at once" },
  {
    name: "drop_excess_requests",
    type: "boolean",
    service: "gateway",
    description: "Answer 503 at once when the queue is full",
  },
  { name: "latency_ms", type: "number", service: "gateway", description: "Mock provider answer time" },
  { name: "jitter_ms", type: "number", service: "gateway", description: "Mock provider ± latency spread" },
  { name: "error_rate", type: "number", service: "gateway", description: "Mock provider share of failed calls" },
  { name: "big_payload", type: "boolean", service: "gateway", description: "Mock provider ~10 KiB answers" },
  { name: "PUBLISH_WORKERS", type: "number", service: "chat", description: "Concurrent publishes to RabbitMQ" },
  { name: "publishChanSize", type: "number", service: "chat", description: "Messages waiting for a publish worker" },
  { name: "InitialCredits", type: "number", service: "chat", description: "AMQP prefetch per consumer" },
  { name: "CONSUMER_RATE", type: "number", service: "chat", description: "Cap on messages consumed per second" },
  {
    name: "publishDropWhenFull",
    type: "boolean",
    service: "chat",
    description: "Refuse messages when the publish channel is full",
  },
];

export function knobType(value: KnobValue): KnobType {
  return typeof value === "boolean" ? "boolean" : typeof value === "number" ? "number" : "string";
}

/**
 * Turn a form's text into a knob value of the chosen type; the error names what is wrong.
 * Booleans accept true/false (any case); numbers accept anything `Number()` reads as finite.
 */
export function parseKnobValue(type: KnobType, text: string): { value: KnobValue } | { error: string } {
  const trimmed = text.trim();
  if (type === "boolean") {
    if (/^true$/i.test(trimmed)) return { value: true };
    if (/^false$/i.test(trimmed)) return { value: false };
    return { error: "must be true or false" };
  }
  if (type === "number") {
    const n = trimmed === "" ? Number.NaN : Number(trimmed.replace(/_/g, ""));
    return Number.isFinite(n) ? { value: n } : { error: "must be a number" };
  }
  return { value: text };
}
