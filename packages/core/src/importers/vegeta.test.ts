import { describe, expect, it } from "vitest";
import { ZNormalizedRun } from "./normalized-run";
import { fixture, importErrorOf } from "./test-support";
import { parseVegeta } from "./vegeta";

describe("parseVegeta", () => {
  it("converts nanoseconds and keeps statuses and error texts (vegeta/mixed.json)", () => {
    const run = parseVegeta(fixture("vegeta/mixed.json"));
    expect(ZNormalizedRun.parse(run)).toEqual(run);
    expect(run.tool).toEqual({ name: "vegeta" });
    expect(run.scenario).toEqual({ name: "vegeta", engine: "http-open" });
    expect(run.startedAt).toBe("2026-11-22T18:41:33.129772581Z");
    expect(run.endedAt).toBe("2026-11-22T18:41:36.12481127Z");
    expect(run.durationS).toBe(2.994761186);
    expect(run.result.metrics).toEqual({
      requests: 600,
      success: 555,
      failed: 45,
      // "success": 0.925
      success_rate: 92.5,
      rps: 200.34986522628185,
      runtime_ms: 2994.761186,
      latency_min: 0.231535,
      latency_mean: 0.603782,
      latency_max: 12.84601,
      latency_p50: 0.448057,
      latency_p90: 0.708327,
      latency_p95: 1.084398,
      latency_p99: 4.630706,
      res_bytes_avg: 28.635,
      req_bytes_avg: 0,
    });
    expect(run.result.statusCounts).toEqual({ "200": 555, "404": 24, "500": 21 });
    expect(run.result.errors).toEqual([
      { kind: "status", status: 500, message: "500 Internal Server Error", count: 21 },
      { kind: "status", status: 404, message: "404 Not Found", count: 24 },
    ]);
    expect(run.result.extra).toEqual({
      latencyPercentilesMs: { "50": 0.448057, "90": 0.708327, "95": 1.084398, "99": 4.630706 },
      latencyTotalMs: 362.269477,
      throughput: 185.30645431672417,
      waitMs: 0.277503,
      latestSendAt: "2026-11-22T18:41:36.124533767Z",
      bytesInTotal: 17181,
      bytesOutTotal: 0,
    });
  });

  it("keeps -buckets counts (vegeta/buckets.json)", () => {
    const run = parseVegeta(fixture("vegeta/buckets.json"));
    expect(run.result.metrics.latency_p99).toBe(4.630706);
    expect(run.result.extra?.buckets).toEqual([
      { fromMs: 0, count: 0 },
      { fromMs: 0.1, count: 4 },
      { fromMs: 0.25, count: 412 },
      { fromMs: 0.5, count: 152 },
      { fromMs: 1, count: 27 },
      { fromMs: 5, count: 5 },
    ]);
  });

  it("counts the one transport error by status 0 and leaves out latencies of failures (vegeta/refused.json)", () => {
    const run = parseVegeta(fixture("vegeta/refused.json"));
    expect(run.result.metrics).toEqual({
      requests: 50,
      success: 0,
      failed: 50,
      success_rate: 0,
      rps: 51.0206340597257,
      runtime_ms: 979.995661,
      res_bytes_avg: 0,
      req_bytes_avg: 0,
    });
    expect(run.result.statusCounts).toEqual({});
    expect(run.result.errors).toEqual([
      {
        kind: "connect",
        message: 'Get "http://127.0.0.1:18089/": dial tcp 0.0.0.0:0->127.0.0.1:18089: connect: connection refused',
        count: 50,
      },
    ]);
    expect(run.result.extra?.latenciesOfFailedRequestsMs).toEqual({
      min: 0.294138,
      mean: 0.510573,
      max: 1.008892,
      "50": 0.466119,
      "90": 0.739011,
      "95": 0.849825,
      "99": 1.008892,
    });
    expect(run.result.extra?.unsentRequests).toBe(50);
  });

  it("keeps error texts it cannot count and unknown fields", () => {
    const doc = JSON.parse(fixture("vegeta/mixed.json")) as Record<string, unknown>;
    doc.status_codes = { "0": 5, "200": 595 };
    doc.errors = ["dial tcp: connection refused", "net/http: request canceled (Client.Timeout exceeded)"];
    doc.custom = { note: "from a wrapper" };
    const run = parseVegeta(JSON.stringify(doc));
    expect(run.result.errors).toEqual([]);
    expect(run.result.extra?.uncountedErrors).toEqual(doc.errors);
    expect(run.result.extra?.unknownFields).toEqual({ custom: { note: "from a wrapper" } });
  });

  describe("bad input", () => {
    const text = fixture("vegeta/mixed.json");

    it("names the line of a JSON syntax error", () => {
      const err = importErrorOf(() => parseVegeta('{\n  "requests": 600,\n  "latencies": {"mean": 1,}\n}'));
      expect(err.line).toBe(3);
      expect(err.message).toMatch(/^vegeta JSON report, line 3: not valid JSON at column \d+/);
    });

    it("says a truncated file ends early", () => {
      const err = importErrorOf(() => parseVegeta(text.slice(0, 200)));
      expect(err.message).toBe("vegeta JSON report, line 1: the JSON ends early (truncated file?)");
    });

    it("names a field with the wrong type", () => {
      const err = importErrorOf(() => parseVegeta(text.replace('"requests":600', '"requests":"600"')));
      expect(err.field).toBe("requests");
      expect(err.message).toBe('vegeta JSON report, field "requests": expected a number, got "600"');
    });

    it("names a nested field with the wrong type", () => {
      const err = importErrorOf(() => parseVegeta(text.replace('"50th":448057', '"50th":"fast"')));
      expect(err.field).toBe('latencies["50th"]');
    });

    it("checks that the status counts add up to the requests", () => {
      const err = importErrorOf(() => parseVegeta(text.replace('"requests":600', '"requests":601')));
      expect(err.field).toBe("status_codes");
      expect(err.message).toContain("add up to 600, but requests is 601");
    });

    it("rejects another tool's JSON", () => {
      const err = importErrorOf(() => parseVegeta(fixture("k6/summary-export.json")));
      expect(err.field).toBe("latencies");
    });
  });
});
