import { describe, expect, it } from "vitest";
import { parseHey } from "./hey";
import { ZNormalizedRun } from "./normalized-run";
import { fixture, importErrorOf, replaceLine, truncateAtLine } from "./test-support";

describe("parseHey", () => {
  it("reads statuses, seconds and percentiles (hey/mixed.txt)", () => {
    const run = parseHey(fixture("hey/mixed.txt"));
    expect(ZNormalizedRun.parse(run)).toEqual(run);
    expect(run.tool).toEqual({ name: "hey" });
    expect(run.scenario).toEqual({ name: "hey", engine: "http-closed" });
    expect(run.durationS).toBe(0.1403);
    expect(run.result.metrics).toEqual({
      // [200] 1835 + [404] 66 + [500] 99
      requests: 2000,
      success: 1835,
      failed: 165,
      success_rate: expect.closeTo((1835 / 2000) * 100, 6),
      rps: 14256.1815,
      runtime_ms: 140.3,
      latency_min: 0,
      latency_mean: 1.3,
      latency_max: 12.1,
      latency_p50: 0.8,
      latency_p90: 3.1,
      latency_p95: 4.4,
      latency_p99: 7.9,
      res_bytes_avg: 28,
    });
    expect(run.result.statusCounts).toEqual({ "200": 1835, "404": 66, "500": 99 });
    expect(run.result.errors).toEqual([
      { kind: "status", status: 404, message: "HTTP 404", count: 66 },
      { kind: "status", status: 500, message: "HTTP 500", count: 99 },
    ]);
    const extra = run.result.extra ?? {};
    expect(extra.latencyPercentilesMs).toEqual({
      "10": 0.1,
      "25": 0.4,
      "50": 0.8,
      "75": 1.6,
      "90": 3.1,
      "95": 4.4,
      "99": 7.9,
    });
    expect(extra.totalDataBytes).toBe(57129);
    expect(extra.responseTimeHistogram).toEqual([
      { markMs: 0, count: 1 },
      { markMs: 1, count: 1335 },
      { markMs: 2, count: 370 },
      { markMs: 4, count: 150 },
      { markMs: 5, count: 60 },
      { markMs: 6, count: 35 },
      { markMs: 7, count: 15 },
      { markMs: 9, count: 22 },
      { markMs: 10, count: 4 },
      { markMs: 11, count: 6 },
      { markMs: 12, count: 2 },
    ]);
    expect(extra.phasesMs).toEqual({
      "DNS+dialup": { average: 0, fastest: 0, slowest: 12.1 },
      "DNS-lookup": { average: 0, fastest: 0, slowest: 0 },
      "req write": { average: 0, fastest: 0, slowest: 8.1 },
      "resp wait": { average: 1.2, fastest: 0, slowest: 10.6 },
      "resp read": { average: 0.1, fastest: 0, slowest: 10.9 },
    });
  });

  it("reads a duration-bound POST run (hey/post-duration.txt)", () => {
    const run = parseHey(fixture("hey/post-duration.txt"));
    expect(run.durationS).toBe(2.0011);
    expect(run.result.metrics).toEqual({
      requests: 37135,
      success: 37135,
      failed: 0,
      success_rate: 100,
      rps: 18556.9905,
      runtime_ms: 2001.1,
      latency_min: 0,
      latency_mean: 0.5,
      latency_max: 26.1,
      latency_p50: 0.4,
      latency_p90: 1.1,
      latency_p95: 1.4,
      latency_p99: 3.2,
      res_bytes_avg: 12,
    });
    expect(run.result.statusCounts).toEqual({ "200": 37135 });
    expect(run.result.extra?.totalDataBytes).toBe(445620);
  });

  it("leaves latency out when no request got a response (hey/refused.txt)", () => {
    const run = parseHey(fixture("hey/refused.txt"));
    expect(run.result.metrics).toEqual({
      requests: 40,
      success: 0,
      failed: 40,
      success_rate: 0,
      rps: 20339.1658,
      runtime_ms: 2,
    });
    expect(run.result.errors).toEqual([
      {
        kind: "connect",
        message: 'Get "http://127.0.0.1:18089/": dial tcp 127.0.0.1:18089: connect: connection refused',
        count: 40,
      },
    ]);
    expect(run.result.extra?.phasesMs).toBeUndefined();
    expect(run.result.extra?.latencyPercentilesMs).toBeUndefined();
  });

  describe("bad input", () => {
    const text = fixture("hey/mixed.txt");

    it("names the last line when the status section is cut off", () => {
      const lines = text.split("\n");
      const statusLine = lines.indexOf("Status code distribution:") + 1;
      const err = importErrorOf(() => parseHey(truncateAtLine(text, statusLine)));
      expect(err.line).toBe(statusLine - 2);
      expect(err.message).toContain('no "Status code distribution:" section');
    });

    it("names the field when the summary is cut off", () => {
      const err = importErrorOf(() => parseHey(truncateAtLine(text, 6)));
      expect(err.message).toContain('no "Requests/sec:" line');
    });

    it("names the line of a malformed percentile", () => {
      const lines = text.split("\n");
      const lineNo = lines.findIndex((l) => l.startsWith("  50% in")) + 1;
      const err = importErrorOf(() => parseHey(replaceLine(text, lineNo, "  50% in soon secs")));
      expect(err.line).toBe(lineNo);
      expect(err.message).toBe(`hey output, line ${lineNo}: "50%" should be a number, got "soon"`);
    });

    it("names the line of a malformed summary value", () => {
      const err = importErrorOf(() => parseHey(replaceLine(text, 4, "  Slowest:\tslow secs")));
      expect(err).toMatchObject({ line: 4, format: "hey" });
      expect(err.message).toBe('hey output, line 4: "Slowest" should be a number secs, got "slow secs"');
    });

    it("rejects another tool's output", () => {
      const err = importErrorOf(() => parseHey(fixture("ab/basic.txt")));
      expect(err.message).toContain('no "Total:" line');
    });
  });
});

describe("parseHey, hey 0.1.5 as `go install github.com/rakyll/hey@latest` builds it", () => {
  it('reads its "10%% in" percentile rows (hey-0.1.5/mixed.txt)', () => {
    const run = parseHey(fixture("hey-0.1.5/mixed.txt"));
    expect(ZNormalizedRun.parse(run)).toEqual(run);
    expect(run.durationS).toBe(0.1419);
    expect(run.result.metrics).toEqual({
      // [200] 1849 + [404] 52 + [500] 99
      requests: 2000,
      success: 1849,
      failed: 151,
      success_rate: expect.closeTo((1849 / 2000) * 100, 6),
      rps: 14092.8656,
      runtime_ms: 141.9,
      latency_min: 0,
      latency_mean: 1.4,
      latency_max: 14.5,
      latency_p50: 0.6,
      latency_p90: 3.9,
      latency_p95: 5.3,
      latency_p99: 8.5,
      res_bytes_avg: 28,
    });
    expect(run.result.statusCounts).toEqual({ "200": 1849, "404": 52, "500": 99 });
    expect(run.result.extra?.latencyPercentilesMs).toEqual({
      "10": 0.2,
      "25": 0.4,
      "50": 0.6,
      "75": 1.5,
      "90": 3.9,
      "95": 5.3,
      "99": 8.5,
    });
    expect(run.result.extra?.totalDataBytes).toBe(57423);
    expect(run.result.extra?.phasesMs).toEqual({
      "DNS+dialup": { average: 0, fastest: 0, slowest: 4.6 },
      "DNS-lookup": { average: 0, fastest: 0, slowest: 0 },
      "req write": { average: 0, fastest: 0, slowest: 5.1 },
      "resp wait": { average: 1.2, fastest: 0, slowest: 10.9 },
      "resp read": { average: 0.1, fastest: 0, slowest: 7.8 },
    });
    expect(run.result.extra?.unrecognizedLines).toBeUndefined();
  });

  it("reads a duration-bound POST run (hey-0.1.5/post-duration.txt)", () => {
    const run = parseHey(fixture("hey-0.1.5/post-duration.txt"));
    expect(run.durationS).toBe(2.0011);
    expect(run.result.metrics).toMatchObject({
      requests: 33793,
      success: 33793,
      failed: 0,
      rps: 16887.2524,
      latency_mean: 0.6,
      latency_max: 20.9,
      latency_p50: 0.5,
      latency_p90: 0.8,
      latency_p95: 1.2,
      latency_p99: 4.4,
      res_bytes_avg: 12,
    });
    expect(run.result.extra?.totalDataBytes).toBe(405516);
  });

  it("leaves latency out when every connection was refused (hey-0.1.5/refused.txt)", () => {
    const run = parseHey(fixture("hey-0.1.5/refused.txt"));
    expect(run.result.metrics).toEqual({
      requests: 40,
      success: 0,
      failed: 40,
      success_rate: 0,
      rps: 22564.4115,
      runtime_ms: 1.8,
    });
    expect(run.result.errors).toEqual([
      {
        kind: "connect",
        message: 'Get "http://127.0.0.1:18089/": dial tcp 127.0.0.1:18089: connect: connection refused',
        count: 40,
      },
    ]);
  });

  it("still names the line of a malformed doubled-percent row", () => {
    const text = fixture("hey-0.1.5/mixed.txt");
    const lineNo = text.split("\n").findIndex((l) => l.startsWith("  50%% in")) + 1;
    const err = importErrorOf(() => parseHey(replaceLine(text, lineNo, "  50%% in soon secs")));
    expect(err.message).toBe(`hey output, line ${lineNo}: "50%" should be a number, got "soon"`);
  });
});
