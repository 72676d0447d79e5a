import { describe, expect, it } from "vitest";
import { parseBifrost } from "./bifrost";
import { ZNormalizedRun } from "./normalized-run";
import { fixture, importErrorOf } from "./test-support";

const MiB = 1024 * 1024;

describe("parseBifrost (hand-written fixture in benchmark.go's format)", () => {
  const text = fixture("bifrost/results.json");

  it("returns one run per provider", () => {
    const runs = parseBifrost(text);
    expect(runs.map((r) => r.target?.name)).toEqual(["bifrost", "litellm", "openai"]);
    for (const run of runs) expect(ZNormalizedRun.parse(run)).toEqual(run);
  });

  it("reads a -rate run with memory and drop reasons", () => {
    const run = parseBifrost(text, { provider: "bifrost" });
    expect(run.tool).toEqual({ name: "bifrost-benchmarking" });
    expect(run.endedAt).toBe("2026-11-20T10:12:03+05:30");
    expect(run.scenario).toEqual({ name: "bifrost-benchmarking", engine: "http-open", spec: { mode: "rate" } });
    expect(run.result.metrics).toEqual({
      requests: 25000,
      success: 24990,
      failed: 10,
      success_rate: 99.96000000000001,
      rps: 5000.212504687,
      latency_mean: 1.842311,
      latency_p50: 1.517204,
      latency_p99: 6.903118,
      latency_max: 21.440977,
      mem_peak_bytes: 212.43359375 * MiB,
      mem_avg_bytes: 180.951171875 * MiB,
    });
    // Status 0 (no response) is left out; the drop reasons say what happened.
    expect(run.result.statusCounts).toEqual({ "200": 24990, "500": 6 });
    expect(run.result.errors).toEqual([
      { kind: "status", status: 500, message: "500 Internal Server Error", count: 6 },
      {
        kind: "timeout",
        message:
          'Post "http://localhost:8080/v1/chat/completions": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        count: 4,
      },
    ]);
    expect(run.result.extra).toEqual({ provider: "bifrost", mode: "rate", throughputRps: 4997.904171 });
  });

  it("treats -users mode's zero p50/p99 as not measured", () => {
    const run = parseBifrost(text, { provider: "LiteLLM" });
    expect(run.scenario).toEqual({ name: "bifrost-benchmarking", engine: "http-closed", spec: { mode: "users" } });
    expect(run.result.metrics).toEqual({
      requests: 3120,
      success: 3110,
      failed: 10,
      success_rate: 99.67948717948718,
      rps: 312,
      latency_mean: 31.958771,
      latency_max: 402.731,
      mem_peak_bytes: 512.765625 * MiB,
      mem_avg_bytes: 498.10546875 * MiB,
    });
    expect(run.result.errors).toEqual([{ kind: "status", status: 500, message: "HTTP 500", count: 10 }]);
    expect(run.result.extra).toEqual({ provider: "litellm", mode: "users", throughputRps: 312 });
  });

  it("treats zero memory (a remote provider) as not measured", () => {
    const run = parseBifrost(text, { provider: "openai" });
    expect(run.result.metrics).toEqual({
      requests: 500,
      success: 500,
      failed: 0,
      success_rate: 100,
      rps: 50.019006,
      latency_mean: 655.218,
      latency_p50: 612.301,
      latency_p99: 1480.55,
      latency_max: 2210.04,
    });
    expect(run.result.errors).toEqual([]);
  });

  it("keeps fields it does not know", () => {
    const doc = JSON.parse(text) as Record<string, Record<string, unknown>>;
    doc.bifrost = { ...doc.bifrost, cpu_usage: 1.5 };
    const run = parseBifrost(JSON.stringify(doc), { provider: "bifrost" });
    expect(run.result.extra?.unknownFields).toEqual({ cpu_usage: 1.5 });
  });

  describe("bad input", () => {
    it("lists the providers when the one asked for is missing", () => {
      const err = importErrorOf(() => parseBifrost(text, { provider: "portkey" }));
      expect(err.message).toBe(
        'bifrost-benchmarking results, field "portkey": has no results for provider "portkey" (it has bifrost, litellm, openai)',
      );
    });

    it("names a field with the wrong type", () => {
      const err = importErrorOf(() => parseBifrost(text.replace('"requests": 3120', '"requests": "3120"')));
      expect(err.field).toBe("litellm.requests");
    });

    it("names a missing required field", () => {
      const err = importErrorOf(() => parseBifrost(text.replace('"success_rate": 100,', "")));
      expect(err.message).toBe('bifrost-benchmarking results, field "openai.success_rate": is missing');
    });

    it("says a truncated file ends early", () => {
      const err = importErrorOf(() => parseBifrost(text.slice(0, 300)));
      expect(err.message).toContain("the JSON ends early");
    });
  });
});
