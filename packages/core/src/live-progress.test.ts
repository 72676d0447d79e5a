import { describe, expect, it } from "vitest";
import { judge } from "./judge";
import {
  combineProgress,
  LIVE_MS_MAX,
  LIVE_SAMPLES,
  LIVE_TOKENS_PER_S_MAX,
  LiveSamples,
  parseLiveProgress,
  ZLiveProgress,
} from "./live-progress";

const p = (over: Partial<Parameters<LiveSamples["add"]>[0]> = {}) => ({
  elapsedMs: 1000,
  fraction: 0.5,
  requests: 100,
  errors: 1,
  rps: 100,
  latencyP50Ms: 2,
  latencyP99Ms: 9,
  ...over,
});

describe("live progress", () => {
  it("keeps five minutes of samples and round-trips through its schema", () => {
    let clock = 0;
    const live = new LiveSamples(() => ++clock);
    let last = live.add(p(), { mem_bytes: 5 });
    for (let i = 0; i < LIVE_SAMPLES + 10; i++) last = live.add(p({ rps: i }), {});
    expect(last.samples).toHaveLength(LIVE_SAMPLES);
    expect(last.samples.at(-1)?.rps).toBe(LIVE_SAMPLES + 9);
    expect(parseLiveProgress(JSON.parse(JSON.stringify(last)))).toEqual(last);
    expect(parseLiveProgress({ elapsedMs: "soon" })).toBeNull();
  });

  const llm = { ttftP50Ms: 42, ttftP99Ms: 80, itlP50Ms: 25, itlP99Ms: 31, tokensPerS: 39.5 };

  it("still reads progress stored before the LLM figures existed", () => {
    const old = {
      elapsedMs: 3000,
      fraction: 0.3,
      requests: 60,
      errors: 0,
      rps: 20,
      latencyP50Ms: 140,
      latencyP99Ms: 180,
      samples: [{ t: 1, rps: 20, p50: 140, p99: 180, errors: 0, mem: null, cpu: null, queue: null }],
      monitors: {},
    };
    const parsed = parseLiveProgress(old);
    expect(parsed).toMatchObject(old);
    expect(parsed?.llm).toBeUndefined();
  });

  it("carries an LLM run's figures through the worker's samples and the schema", () => {
    const last = new LiveSamples(() => 1).add(p({ llm }), {});
    expect(parseLiveProgress(JSON.parse(JSON.stringify(last)))?.llm).toEqual(llm);
    // Nothing measured yet (or a non-streaming run) reads as null, not as zero.
    const none = { ttftP50Ms: null, ttftP99Ms: null, itlP50Ms: null, itlP99Ms: null, tokensPerS: null };
    expect(parseLiveProgress({ ...p(), llm: none })?.llm).toEqual(none);
  });

  it("bounds the LLM figures and names the field that is out of range", () => {
    const bad = (over: Partial<typeof llm>) => ZLiveProgress.safeParse({ ...p(), llm: { ...llm, ...over } });
    expect(bad({ ttftP50Ms: LIVE_MS_MAX }).success).toBe(true);
    for (const [field, value] of [
      ["ttftP50Ms", -1],
      ["ttftP99Ms", LIVE_MS_MAX + 1],
      ["itlP50Ms", Number.POSITIVE_INFINITY],
      ["itlP99Ms", Number.NaN],
      ["tokensPerS", LIVE_TOKENS_PER_S_MAX + 1],
      ["tokensPerS", "fast"],
    ] as const) {
      const r = bad({ [field]: value });
      expect(r.success, `${field}=${value}`).toBe(false);
      expect(r.error?.issues[0]?.path).toEqual(["llm", field]);
    }
    // Malformed stored progress reads as none rather than as wrong figures.
    expect(parseLiveProgress({ ...p(), llm: { ...llm, ttftP50Ms: -5 } })).toBeNull();
    expect(parseLiveProgress({ ...p(), llm: "fast" })).toBeNull();
  });

  it("combines shards' LLM figures: first median, slowest p99, mean output rate", () => {
    const all = combineProgress([
      p({ llm }),
      p({ llm: { ...llm, ttftP50Ms: 60, ttftP99Ms: 120, itlP99Ms: null, tokensPerS: 20.5 } }),
    ]);
    expect(all.llm).toEqual({ ttftP50Ms: 42, ttftP99Ms: 120, itlP50Ms: 25, itlP99Ms: 31, tokensPerS: 30 });
    expect(combineProgress([p(), p()]).llm).toBeUndefined();
  });

  it("adds shards' counts and rates and shows the slowest p99", () => {
    const all = combineProgress([p({ rps: 10, latencyP99Ms: 4, fraction: 0.4 }), p({ rps: 20, latencyP99Ms: 7 })]);
    expect(all).toMatchObject({ rps: 30, requests: 200, latencyP99Ms: 7, fraction: 0.4 });
  });
});

describe("judge", () => {
  const base = { canceled: false, errors: [], series: {} };
  it("fails a run where nothing succeeded, naming the dominant error", () => {
    const verdict = judge({
      ...base,
      metrics: { requests: 5, success: 0, failed: 5 },
      errors: [{ kind: "connect", message: "ECONNREFUSED", count: 5 }],
    });
    expect(verdict).toEqual({ status: "failed", error: expect.stringContaining("ECONNREFUSED") });
  });
  it("fails a run whose target went down for its last 3 s", () => {
    const series = { rps: { values: [10, 10, 10, 10] }, errors: { values: [0, 10, 10, 10] } };
    expect(judge({ ...base, series, metrics: { requests: 40, success: 10, failed: 30 } }).status).toBe("failed");
    expect(judge({ ...base, metrics: { requests: 40, success: 40 } }).status).toBe("succeeded");
  });
});
