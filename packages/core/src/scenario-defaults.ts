import type { TOrgCaps } from "./caps";
import type { TEngineKind, TScenarioSpec } from "./scenario";

/**
 * Starting points for a new scenario of each engine: small enough to be a safe first run against
 * an unknown service, shaped like the reference benchmarks (a fixed-rate open model, a drill-style
 * closed model, an OpenAI-compatible LLM call, and the chat system's users × rooms × messages).
 */
export function defaultScenarioSpec(
  engine: TEngineKind,
  caps?: Pick<TOrgCaps, "maxRate" | "maxConnections" | "maxDurationS">,
): TScenarioSpec {
  const spec = uncappedDefault(engine);
  return caps ? withinCaps(spec, caps) : spec;
}

/**
 * The defaults brought within an organization's caps, so a new scenario saves and launches as it
 * is (a stranger's organization may allow 200 connections where the default opens 1,000).
 */
function withinCaps(
  spec: TScenarioSpec,
  caps: Pick<TOrgCaps, "maxRate" | "maxConnections" | "maxDurationS">,
): TScenarioSpec {
  const out: Record<string, unknown> = { ...spec };
  const clamp = (key: string, max: number) => {
    const value = out[key];
    if (typeof value === "number" && value > max) out[key] = Math.max(1, Math.floor(max));
  };
  clamp("rate", caps.maxRate);
  clamp("maxRate", caps.maxRate);
  if (typeof out.minRate === "number" && typeof out.maxRate === "number" && out.minRate > out.maxRate)
    out.minRate = out.maxRate;
  clamp("durationS", caps.maxDurationS);
  for (const key of ["maxConnections", "concurrency", "users", "poolSize"]) clamp(key, caps.maxConnections);
  return out as TScenarioSpec;
}

function uncappedDefault(engine: TEngineKind): TScenarioSpec {
  switch (engine) {
    case "http-open":
      return {
        engine,
        request: { method: "GET", path: "/", headers: {} },
        rate: 100,
        durationS: 30,
        maxConnections: 1_000,
        timeoutMs: 30_000,
        warmupS: 1,
      };
    case "http-closed":
      return {
        engine,
        request: { method: "GET", path: "/", headers: {} },
        concurrency: 10,
        requests: 1_000,
        rampUpS: 0,
        timeoutMs: 10_000,
      };
    case "llm":
      return {
        engine,
        path: "/v1/chat/completions",
        model: "gpt-4o-mini",
        promptTemplate: "#{{index}} {{timestamp}} {{nonce}} Say hello.",
        maxTokens: 150,
        stream: false,
        rate: 50,
        durationS: 30,
        maxConnections: 1_000,
        timeoutMs: 300_000,
        warmupS: 1,
        headers: {},
      };
    case "ws-chat":
      return {
        engine,
        path: "/ws",
        users: 50,
        rooms: 20,
        messagesPerUser: 100,
        poolSize: 50,
        messageIntervalMs: 0,
        messageBytes: 64,
        drainTimeoutMs: 10_000,
        connectTimeoutMs: 10_000,
        durationS: 300,
        endsAfter: "messages",
      };
    case "capacity-search":
      return {
        engine,
        request: { method: "GET", path: "/", headers: {} },
        slo: { p99Ms: 100, errorRatePct: 1 },
        minRate: 50,
        maxRate: 1_000,
        stepFactor: 2,
        resolutionPct: 5,
        plateauS: 10,
        warmupS: 2,
        maxConnections: 1_000,
        timeoutMs: 10_000,
      };
  }
}

export const ENGINE_LABEL: Record<TEngineKind, string> = {
  "http-open": "HTTP open model (fixed rate)",
  "http-closed": "HTTP closed model (fixed concurrency)",
  llm: "LLM chat completions",
  "ws-chat": "WebSocket chat",
  "capacity-search": "Capacity search (open model, stepped rates)",
};

/** One line describing the load, e.g. "5,000 req/s · 60 s" or "50 users · 20 rooms · 500 msgs". */
export function describeScenarioSpec(spec: TScenarioSpec): string {
  const n = (v: number) => v.toLocaleString("en-US");
  switch (spec.engine) {
    case "http-open": {
      const ramp = spec.rampS ? ` (ramp ${n(spec.rampFromRate ?? 0)}→ over ${n(spec.rampS)} s)` : "";
      return `${n(spec.rate)} req/s${ramp} · ${n(spec.durationS)} s`;
    }
    case "http-closed": {
      const parts = [`${n(spec.concurrency)} concurrent`];
      if (spec.requests !== undefined)
        parts.push(`${n(spec.requests)} ${spec.plan?.length ? "iterations" : "requests"}`);
      if (spec.durationS !== undefined) parts.push(`${n(spec.durationS)} s`);
      if (spec.plan?.length) parts.push(`${spec.plan.length}-step plan`);
      return parts.join(" · ");
    }
    case "llm":
      return `${n(spec.rate)} req/s · ${n(spec.durationS)} s · ${spec.model}${spec.stream ? " · streaming" : ""}`;
    case "ws-chat":
      return spec.endsAfter === "duration"
        ? `${n(spec.users)} users · ${n(spec.rooms)} rooms · chatting for ${n(spec.durationS)} s`
        : `${n(spec.users)} users · ${n(spec.rooms)} rooms · ${n(spec.messagesPerUser)} msgs each`;
    case "capacity-search":
      return `capacity ${n(spec.minRate)}–${n(spec.maxRate)} req/s · p99 ≤ ${n(spec.slo.p99Ms)} ms · errors ≤ ${n(spec.slo.errorRatePct)} % · ${n(spec.plateauS)} s plateaus`;
  }
}

/** Engines whose spec defaults `maxConnections` (to 1,000) when it is not given. */
const CONNECTION_DEFAULT_ENGINES = new Set(["http-open", "llm", "capacity-search"]);
const DEFAULT_MAX_CONNECTIONS = 1_000;

/**
 * A scenario spec as written (before its defaults are filled in) with the connection pool it
 * leaves out sized within the organization's cap: a file that says nothing about connections
 * applies to an organization allowing 200 as it is, where the bare default of 1,000 would be
 * refused. A value the spec gives is kept, and checked against the caps as usual.
 */
export function withConnectionDefaultWithinCaps(spec: unknown, caps: Pick<TOrgCaps, "maxConnections">): unknown {
  if (!spec || typeof spec !== "object" || Array.isArray(spec)) return spec;
  const raw = spec as Record<string, unknown>;
  if (!CONNECTION_DEFAULT_ENGINES.has(String(raw.engine)) || raw.maxConnections !== undefined) return spec;
  return { ...raw, maxConnections: Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS, Math.floor(caps.maxConnections))) };
}
