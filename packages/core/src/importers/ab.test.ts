import { describe, expect, it } from "vitest";
import { parseAb } from "./ab";
import { ZNormalizedRun } from "./normalized-run";
import { fixture, importErrorOf, replaceLine, truncateAtLine } from "./test-support";

describe("parseAb", () => {
  it("reads the report, connection times and percentiles (ab/basic.txt)", () => {
    const run = parseAb(fixture("ab/basic.txt"));
    expect(ZNormalizedRun.parse(run)).toEqual(run);
    expect(run.tool).toEqual({ name: "ab", version: "2.3" });
    expect(run.durationS).toBe(0.186);
    expect(run.target).toEqual({ url: "http://127.0.0.1:18080/" });
    expect(run.scenario).toEqual({ name: "ab", engine: "http-closed", spec: { concurrency: 20 } });
    expect(run.result.metrics).toEqual({
      requests: 2000,
      success: 2000,
      failed: 0,
      success_rate: 100,
      rps: 10754.6,
      runtime_ms: 186,
      // Total:  1    2   0.9      2       8
      latency_min: 1,
      latency_mean: 2,
      latency_stddev: 0.9,
      latency_max: 8,
      // 50% 2, 90% 3, 95% 4, 99% 7
      latency_p50: 2,
      latency_p90: 3,
      latency_p95: 4,
      latency_p99: 7,
      // HTML transferred: 60000 bytes over 2000 requests
      res_bytes_avg: 30,
    });
    expect(run.result.errors).toEqual([]);
    expect(run.result.extra).toEqual({
      latencyPercentilesMs: { "50": 2, "66": 2, "75": 2, "80": 2, "90": 3, "95": 4, "98": 5, "99": 7, "100": 8 },
      connectionTimesMs: {
        connect: { min: 0, mean: 1, sd: 0.7, median: 1, max: 7 },
        processing: { min: 0, mean: 1, sd: 0.8, median: 1, max: 7 },
        waiting: { min: 0, mean: 1, sd: 0.5, median: 1, max: 7 },
        total: { min: 1, mean: 2, sd: 0.9, median: 2, max: 8 },
      },
      failedRequests: 0,
      serverSoftware: "nginx/1.22.1",
      documentLength: "30 bytes",
      totalTransferredBytes: 346000,
      htmlTransferredBytes: 60000,
      timePerRequestMs: { mean: 1.86, meanAcrossConcurrent: 0.093 },
      transferRateKBytesPerSec: 1816.94,
    });
  });

  it("counts non-2xx responses as failed, not ab's Length mismatches (ab/mixed.txt)", () => {
    const run = parseAb(fixture("ab/mixed.txt"));
    expect(run.result.metrics).toEqual({
      requests: 2000,
      success: 1858,
      failed: 142,
      success_rate: expect.closeTo((1858 / 2000) * 100, 6),
      rps: 10036.28,
      runtime_ms: 199,
      latency_min: 1,
      latency_mean: 2,
      latency_stddev: 1.6,
      latency_max: 13,
      latency_p50: 1,
      latency_p90: 4,
      latency_p95: 6,
      latency_p99: 9,
      res_bytes_avg: 57552 / 2000,
    });
    expect(run.result.errors).toEqual([{ kind: "status", message: "non-2xx response", count: 142 }]);
    const extra = run.result.extra ?? {};
    expect(extra.failedRequests).toBe(142);
    expect(extra.failedBreakdown).toEqual({ connect: 0, receive: 0, length: 142, exceptions: 0 });
    expect(extra.warnings).toEqual([
      "WARNING: The median and mean for the initial connection time are not within a normal deviation. These results are probably not that reliable.",
    ]);
    expect(run.notes).toBe(
      "ab: WARNING: The median and mean for the initial connection time are not within a normal deviation. These results are probably not that reliable.",
    );
    expect(extra.latencyPercentilesMs).toEqual({
      "50": 1,
      "66": 2,
      "75": 2,
      "80": 3,
      "90": 4,
      "95": 6,
      "98": 7,
      "99": 9,
      "100": 13,
    });
    expect(extra.totalTransferredBytes).toBe(345561);
  });

  it("reads keep-alive and POST fields (ab/keepalive-post.txt)", () => {
    const run = parseAb(fixture("ab/keepalive-post.txt"));
    expect(run.target).toEqual({ url: "http://127.0.0.1:18080/echo" });
    expect(run.result.metrics).toEqual({
      requests: 1000,
      success: 1000,
      failed: 0,
      success_rate: 100,
      rps: 49338.86,
      runtime_ms: 20,
      latency_min: 0,
      latency_mean: 0,
      latency_stddev: 0.8,
      latency_max: 7,
      latency_p50: 0,
      latency_p90: 0,
      latency_p95: 0,
      latency_p99: 7,
      res_bytes_avg: 12,
    });
    const extra = run.result.extra ?? {};
    expect(extra.keepAliveRequests).toBe(1000);
    // ab's "Total body sent" counts request headers too, so it is not an average body size.
    expect(extra.totalBodySentBytes).toBe(181000);
    expect(run.result.metrics.req_bytes_avg).toBeUndefined();
    expect(extra.transferRateKBytesPerSec).toBe(7709.2);
    expect(extra.sentKBytesPerSec).toBe(8721.03);
    expect(extra.totalKBytesPerSec).toBe(16430.23);
    expect(extra.timePerRequestMs).toEqual({ mean: 0.203, meanAcrossConcurrent: 0.02 });
  });

  it("treats connections closed without any response as failed (ab/closed-without-response.txt)", () => {
    const run = parseAb(fixture("ab/closed-without-response.txt"));
    expect(run.result.metrics).toEqual({
      requests: 200,
      success: 0,
      failed: 200,
      success_rate: 0,
      rps: 5143.37,
      runtime_ms: 39,
    });
    expect(run.result.errors).toEqual([
      { kind: "transport", message: "connection closed without a response (ab counts it as complete)", count: 200 },
    ]);
    expect(run.result.extra?.failedRequests).toBe(0);
    expect(run.result.extra?.serverSoftware).toBe("");
  });

  describe("bad input", () => {
    const text = fixture("ab/basic.txt");

    it("names the last line when the report is cut before the rate", () => {
      const err = importErrorOf(() => parseAb(truncateAtLine(text, 21)));
      expect(err.line).toBe(20);
      expect(err.message).toBe('ab output, line 20: no "Requests per second:" line (output truncated?)');
    });

    it("names the last line when the connection times are cut off", () => {
      const err = importErrorOf(() => parseAb(truncateAtLine(text, 27)));
      expect(err.message).toContain('no "Total:" row in "Connection Times (ms)"');
    });

    it("names the last line when the percentile table is cut off", () => {
      const err = importErrorOf(() => parseAb(truncateAtLine(text, 38)));
      expect(err.line).toBe(37);
      expect(err.message).toContain('no "100%" row');
    });

    it("names the line of a malformed value", () => {
      const err = importErrorOf(() => parseAb(replaceLine(text, 17, "Complete requests:      lots")));
      expect(err.line).toBe(17);
      expect(err.message).toBe('ab output, line 17: "Complete requests" should be a whole number, got "lots"');
    });

    it("names the line of a malformed percentile row", () => {
      const err = importErrorOf(() => parseAb(replaceLine(text, 34, "  50%      two")));
      expect(err.line).toBe(34);
    });

    it("rejects another tool's output", () => {
      const err = importErrorOf(() => parseAb(fixture("wrk/latency.txt")));
      expect(err.message).toContain('no "Complete requests:" line');
    });
  });
});

describe("parseAb, results ab itself calls unreliable", () => {
  it("reads a run after its ERROR blocks and keeps them as notes (ab/unreliable-error.txt)", () => {
    const run = parseAb(fixture("ab/unreliable-error.txt"));
    expect(ZNormalizedRun.parse(run)).toEqual(run);
    expect(run.target).toEqual({ url: "http://127.0.0.1:18081/" });
    expect(run.scenario).toEqual({ name: "ab", engine: "http-closed", spec: { concurrency: 1 } });
    expect(run.result.metrics).toEqual({
      requests: 300,
      success: 300,
      failed: 0,
      success_rate: 100,
      rps: 1593.69,
      runtime_ms: 188,
      // Total:  0    1   0.4      0       4
      latency_min: 0,
      latency_mean: 1,
      latency_stddev: 0.4,
      latency_max: 4,
      latency_p50: 0,
      latency_p90: 1,
      latency_p95: 1,
      latency_p99: 2,
      res_bytes_avg: 30,
    });
    expect(run.result.extra?.connectionTimesMs).toEqual({
      connect: { min: 0, mean: 0, sd: 0, median: 0, max: 0 },
      processing: { min: 0, mean: 1, sd: 0.4, median: 0, max: 4 },
      waiting: { min: 0, mean: 1, sd: 0.4, median: 0, max: 4 },
      total: { min: 0, mean: 1, sd: 0.4, median: 0, max: 4 },
    });
    expect(run.result.extra?.latencyPercentilesMs).toEqual({
      "50": 0,
      "66": 0,
      "75": 0,
      "80": 0,
      "90": 1,
      "95": 1,
      "98": 2,
      "99": 2,
      "100": 4,
    });
    const blocks = ["processing", "waiting", "total"].map(
      (row) =>
        `ERROR: The median and mean for the ${row} time are more than twice the standard deviation apart. These results are NOT reliable.`,
    );
    expect(run.result.extra?.warnings).toEqual(blocks);
    expect(run.notes).toBe(blocks.map((b) => `ab: ${b}`).join("\n"));
    expect(run.result.extra?.unrecognizedLines).toBeUndefined();
  });

  it("reads a run after its WARNING blocks and keeps them as notes (ab/unreliable-warning.txt)", () => {
    const run = parseAb(fixture("ab/unreliable-warning.txt"));
    expect(run.result.metrics).toMatchObject({
      requests: 300,
      rps: 1320.24,
      latency_mean: 1,
      latency_stddev: 1,
      latency_max: 15,
      latency_p50: 0,
      latency_p99: 5,
    });
    const blocks = ["processing", "waiting"].map(
      (row) =>
        `WARNING: The median and mean for the ${row} time are not within a normal deviation. These results are probably not that reliable.`,
    );
    expect(run.result.extra?.warnings).toEqual(blocks);
    expect(run.notes).toBe(blocks.map((b) => `ab: ${b}`).join("\n"));
  });

  it("still refuses a broken row after the warnings, naming its line", () => {
    const text = fixture("ab/unreliable-error.txt");
    const lineNo = text.split("\n").findIndex((l) => l.startsWith("Total:")) + 1;
    const err = importErrorOf(() => parseAb(replaceLine(text, lineNo, "Total:  zero")));
    expect(err.line).toBe(lineNo);
    expect(err.message).toContain('expected a "Connection Times" row');
  });
});
