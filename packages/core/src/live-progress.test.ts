import { describe, expect, it } from "vitest";
import { judge } from "./judge";
import { combineProgress, LIVE_SAMPLES, LiveSamples, parseLiveProgress } from "./live-progress";

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
