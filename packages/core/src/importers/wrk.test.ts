import { describe, expect, it } from "vitest";
import { decodeHistogram } from "../histogram";
import { ZNormalizedRun } from "./normalized-run";
import { fixture, importErrorOf, replaceLine, truncateAtLine } from "./test-support";
import { parseWrk } from "./wrk";

describe("parseWrk: wrk", () => {
  it("reads wrk --latency output (wrk/latency.txt)", () => {
    const run = parseWrk(fixture("wrk/latency.txt"));
    expect(ZNormalizedRun.parse(run)).toEqual(run);
    expect(run.tool).toEqual({ name: "wrk" });
    expect(run.durationS).toBe(3.01);
    expect(run.target).toEqual({ url: "http://127.0.0.1:18080/" });
    expect(run.scenario).toEqual({
      name: "wrk",
      engine: "http-closed",
      spec: { threads: 2, connections: 16, duration: "3s" },
    });
    expect(run.result.metrics).toEqual({
      requests: 251702,
      success: 251702,
      failed: 0,
      success_rate: 100,
      rps: 83527.44,
      runtime_ms: 3010,
      // Latency   383.91us  738.07us   8.18ms   90.97%
      latency_mean: 0.38391,
      latency_stddev: 0.73807,
      latency_max: 8.18,
      // 50% 129.00us, 90% 0.98ms, 99% 3.76ms
      latency_p50: 0.129,
      latency_p90: 0.98,
      latency_p99: 3.76,
    });
    expect(run.result.errors).toEqual([]);
    expect(run.result.histogram).toBeUndefined();
    expect(run.result.extra).toEqual({
      latencyPercentilesMs: { "50": 0.129, "75": 0.302, "90": 0.98, "99": 3.76 },
      latencyWithinStdevPercent: 90.97,
      // Req/Sec    42.10k    15.31k   71.46k    68.33%
      reqPerSecPerThread: { avg: 42100, stdev: 15310, max: 71460, withinStdevPercent: 68.33 },
      // 42.73MB read, Transfer/sec: 14.18MB (binary units)
      bytesRead: 42.73 * 1024 ** 2,
      transferBytesPerSec: 14.18 * 1024 ** 2,
    });
  });

  it("counts non-2xx responses as failed (wrk/mixed-status.txt)", () => {
    const run = parseWrk(fixture("wrk/mixed-status.txt"));
    expect(run.result.metrics).toEqual({
      requests: 129138,
      success: 129138 - 10407,
      failed: 10407,
      success_rate: expect.closeTo(((129138 - 10407) / 129138) * 100, 6),
      rps: 64523.93,
      runtime_ms: 2000,
      latency_mean: 0.34931,
      latency_stddev: 0.72955,
      latency_max: 8.86,
      latency_p50: 0.077,
      latency_p90: 1.13,
      latency_p99: 3.57,
    });
    expect(run.result.errors).toEqual([{ kind: "status", message: "response status 400 or above", count: 10407 }]);
    expect(run.result.extra?.latencyPercentilesMs).toEqual({ "50": 0.077, "75": 0.176, "90": 1.13, "99": 3.57 });
  });

  it("reads output without the latency distribution (wrk/no-latency.txt)", () => {
    const run = parseWrk(fixture("wrk/no-latency.txt"));
    expect(run.scenario?.spec).toEqual({ threads: 1, connections: 4, duration: "2s" });
    expect(run.result.metrics).toEqual({
      requests: 95613,
      success: 95613,
      failed: 0,
      success_rate: 100,
      rps: 47778.17,
      runtime_ms: 2000,
      latency_mean: 0.34221,
      latency_stddev: 0.8145,
      latency_max: 7.39,
    });
    expect(run.result.extra?.latencyPercentilesMs).toBeUndefined();
    expect(run.result.extra?.reqPerSecPerThread).toEqual({
      avg: 48100,
      stdev: 6500,
      max: 54930,
      withinStdevPercent: 60,
    });
  });

  it("leaves latency out when wrk recorded none (-nan%) and keeps socket timeouts (wrk/timeouts.txt)", () => {
    const run = parseWrk(fixture("wrk/timeouts.txt"));
    expect(run.result.metrics).toEqual({
      requests: 4,
      success: 4,
      failed: 0,
      success_rate: 100,
      rps: 1.33,
      runtime_ms: 3010,
      failed_connections: 0,
    });
    expect(run.result.errors).toEqual([{ kind: "timeout", message: "socket timeout error", count: 4 }]);
    expect(run.result.extra?.socketErrors).toEqual({ connect: 0, read: 0, write: 0, timeout: 4 });
    expect(run.result.extra?.bytesRead).toBeCloseTo(26.38 * 1024, 6);
    expect(run.result.extra?.transferBytesPerSec).toBeCloseTo(8.77 * 1024, 6);
    expect(run.result.extra?.latencyWithinStdevPercent).toBeUndefined();
  });

  it("reads a run where no request completed (wrk/read-errors.txt)", () => {
    const run = parseWrk(fixture("wrk/read-errors.txt"));
    expect(run.durationS).toBe(1.1);
    expect(run.result.metrics).toEqual({
      requests: 0,
      success: 0,
      failed: 0,
      rps: 0,
      runtime_ms: 1100,
      failed_connections: 0,
    });
    expect(run.result.errors).toEqual([{ kind: "transport", message: "socket read error", count: 12263 }]);
    expect(run.result.extra?.bytesRead).toBe(0);
    expect(run.result.extra?.reqPerSecPerThread).toEqual({ avg: 0, stdev: 0, max: 0 });
  });
});

describe("parseWrk: wrk2 (hand-written fixtures in wrk2's format)", () => {
  it("reads the HdrHistogram distribution, spectrum and footer (wrk2/latency.txt)", () => {
    const run = parseWrk(fixture("wrk2/latency.txt"));
    expect(ZNormalizedRun.parse(run)).toEqual(run);
    expect(run.tool).toEqual({ name: "wrk2" });
    expect(run.scenario).toEqual({
      name: "wrk2",
      engine: "http-open",
      spec: { threads: 2, connections: 20, duration: "30s" },
    });
    expect(run.result.metrics).toEqual({
      requests: 59989,
      success: 59989,
      failed: 0,
      success_rate: 100,
      rps: 1999.63,
      runtime_ms: 30000,
      // #[Mean = 1.154, StdDeviation = 0.636], #[Max = 12.383, …]: more digits than the stats row
      latency_mean: 1.154,
      latency_stddev: 0.636,
      latency_max: 12.383,
      latency_p50: 1.06,
      latency_p90: 1.67,
      latency_p99: 2.58,
      latency_p999: 10.13,
    });
    const extra = run.result.extra ?? {};
    expect(extra.latencyPercentilesMs).toEqual({
      "50": 1.06,
      "75": 1.34,
      "90": 1.67,
      "99": 2.58,
      "99.9": 10.13,
      "99.99": 12.38,
      "99.999": 12.38,
      "100": 12.38,
    });
    expect(extra.threadCalibration).toEqual([
      { meanLatencyMs: 1.094, rateSamplingIntervalMs: 10 },
      { meanLatencyMs: 1.121, rateSamplingIntervalMs: 10 },
    ]);
    expect(extra.hdrHistogram).toEqual({
      meanMs: 1.154,
      stddevMs: 0.636,
      maxMs: 12.383,
      totalCount: 40003,
      buckets: 27,
      subBuckets: 2048,
    });
    expect(extra.latencyWithinStdevPercent).toBe(90.9);
    expect(extra.reqPerSecPerThread).toEqual({ avg: 1050, stdev: 108.93, max: 1550, withinStdevPercent: 71.43 });
    expect(extra.uncorrectedLatency).toBeUndefined();
  });

  it("rebuilds a histogram from the spectrum that agrees with the printed percentiles", () => {
    const run = parseWrk(fixture("wrk2/latency.txt"));
    const histogram = decodeHistogram(run.result.histogram ?? "");
    expect(histogram.totalCount).toBe(40003);
    // Spectrum rows: 0.196 at 0th, 1.065 at 50th, 12.383 at 100th (µs resolution).
    expect(histogram.minNonZeroValue).toBeGreaterThanOrEqual(196);
    expect(histogram.minNonZeroValue).toBeLessThanOrEqual(197);
    expect(histogram.getValueAtPercentile(50) / 1000).toBeCloseTo(1.065, 2);
    expect(histogram.maxValue / 1000).toBeCloseTo(12.383, 2);
  });

  it("keeps the -U uncorrected block apart from the recorded one (wrk2/uncorrected.txt)", () => {
    const run = parseWrk(fixture("wrk2/uncorrected.txt"));
    expect(run.result.metrics.latency_p99).toBe(2.58);
    expect(run.result.metrics.latency_p999).toBe(10.13);
    expect(run.result.extra?.uncorrectedLatency).toEqual({
      percentilesMs: {
        "50": 1.06,
        "75": 1.34,
        "90": 1.67,
        "99": 2.5,
        "99.9": 3.15,
        "99.99": 4,
        "99.999": 4,
        "100": 4,
      },
      meanMs: 1.129,
      stddevMs: 0.419,
      maxMs: 4.005,
      totalCount: 40003,
      buckets: 27,
      subBuckets: 2048,
    });
    expect(decodeHistogram(run.result.histogram ?? "").totalCount).toBe(40003);
  });
});

describe("parseWrk: units", () => {
  const output = (latency: string, reqPerSec: string, read: string) =>
    [
      "Running 1m test @ http://example.test/",
      "  1 threads and 1 connections",
      "  Thread Stats   Avg      Stdev     Max   +/- Stdev",
      `    Latency   ${latency}   50.00%`,
      `    Req/Sec   ${reqPerSec}   50.00%`,
      `  10 requests in 1.00m, ${read} read`,
      "Requests/sec:      0.17",
      "Transfer/sec:       1.00KB",
    ].join("\n");

  it("converts us, ms, s and m latencies and k/M counts", () => {
    const run = parseWrk(output("812.00us    1.50s    2.00m", "1.20M    3.40k    12.00", "1.50GB"));
    expect(run.result.metrics.latency_mean).toBe(0.812);
    expect(run.result.metrics.latency_stddev).toBe(1500);
    expect(run.result.metrics.latency_max).toBe(120000);
    expect(run.result.metrics.runtime_ms).toBe(60000);
    expect(run.result.extra?.reqPerSecPerThread).toEqual({ avg: 1.2e6, stdev: 3400, max: 12, withinStdevPercent: 50 });
    expect(run.result.extra?.bytesRead).toBe(1.5 * 1024 ** 3);
  });
});

describe("parseWrk: bad input", () => {
  const text = fixture("wrk/latency.txt");

  it("names the last line when the output is cut before Requests/sec", () => {
    const err = importErrorOf(() => parseWrk(truncateAtLine(text, 12)));
    expect(err.line).toBe(11);
    expect(err.message).toBe('wrk output, line 11: no "Requests/sec:" line (output truncated?)');
  });

  it("names the last line when the output is cut before the request count", () => {
    const err = importErrorOf(() => parseWrk(truncateAtLine(text, 9)));
    expect(err.line).toBe(8);
    expect(err.message).toContain("requests in");
  });

  it("names the line of a malformed latency", () => {
    const err = importErrorOf(() =>
      parseWrk(replaceLine(text, 4, "    Latency   383.91xs  738.07us   8.18ms   90.97%")),
    );
    expect(err.line).toBe(4);
    expect(err.message).toContain('"383.91xs"');
  });

  it("names the line of a malformed rate", () => {
    const err = importErrorOf(() => parseWrk(replaceLine(text, 12, "Requests/sec:  lots")));
    expect(err.line).toBe(12);
    expect(err.message).toContain("Requests/sec: <number>");
  });

  it("rejects another tool's output", () => {
    const err = importErrorOf(() => parseWrk(fixture("hey/mixed.txt")));
    expect(err.format).toBe("wrk");
    expect(err.line).toBe(1);
    expect(err.message).toContain("this is not wrk output");
  });
});
