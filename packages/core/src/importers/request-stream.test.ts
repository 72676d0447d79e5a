import { describe, expect, it } from "vitest";
import { decodeHistogram } from "../histogram";
import { detectFormat, importRun } from "./index";
import {
  LineSplitter,
  MAX_STREAM_LINE,
  parseK6Stream,
  parseK6StreamLine,
  parseVegetaResults,
  RequestAggregator,
} from "./request-stream";
import { fixture, importErrorOf, replaceLine } from "./test-support";

interface VegetaReport {
  requests: number;
  rate: number;
  success: number;
  status_codes: Record<string, number>;
  latencies: { mean: number; max: number; min: number };
}
const report = (name: string) => JSON.parse(fixture(`vegeta-results/${name}.report.json`)) as VegetaReport;

describe("vegeta results stream (attack | encode)", () => {
  it("gives the totals vegeta's own report gives for the same results", () => {
    const own = report("mixed");
    const run = parseVegetaResults(fixture("vegeta-results/mixed.jsonl"));
    const { metrics, statusCounts } = run.result;
    expect(metrics.requests).toBe(own.requests);
    // Status 0 is a request that got no response: an error, not a status.
    const { "0": unsent = 0, ...statuses } = own.status_codes;
    expect(statusCounts).toEqual(statuses);
    expect(metrics.success).toBe(Math.round(own.success * own.requests));
    expect(metrics.failed).toBe(own.requests - Math.round(own.success * own.requests));
    expect(metrics.success_rate).toBeCloseTo(own.success * 100, 6);
    expect(run.result.errors.find((e) => e.kind === "connect")?.count).toBe(unsent);
    // Timestamps are read at millisecond precision; vegeta's rate uses nanoseconds.
    expect(metrics.rps).toBeCloseTo(own.rate, 1);
    // The histogram keeps 3 significant digits.
    expect(Math.abs(metrics.latency_mean! - own.latencies.mean / 1e6) / (own.latencies.mean / 1e6)).toBeLessThan(0.002);
    expect(Math.abs(metrics.latency_max! - own.latencies.max / 1e6) / (own.latencies.max / 1e6)).toBeLessThan(0.002);
    expect(decodeHistogram(run.result.histogram!).totalCount).toBe(own.requests);
    expect(run.tool?.name).toBe("vegeta");
  });

  it("counts a run where nothing answered as all failed, with the transport error", () => {
    const own = report("refused");
    const run = parseVegetaResults(fixture("vegeta-results/refused.jsonl"));
    expect(run.result.metrics).toMatchObject({ requests: own.requests, success: 0, failed: own.requests });
    expect(run.result.errors).toEqual([expect.objectContaining({ kind: "connect", count: own.requests })]);
  });

  it("is recognised by its first line and by name", () => {
    const text = fixture("vegeta-results/mixed.jsonl");
    expect(detectFormat(text)).toBe("vegeta-results");
    expect(importRun("auto", text).result.metrics.requests).toBe(80);
    expect(importRun("vegeta-results", text).result.metrics.requests).toBe(80);
  });

  it("names the line of bad input", () => {
    const text = fixture("vegeta-results/mixed.jsonl");
    const broken = importErrorOf(() => parseVegetaResults(replaceLine(text, 7, '{"code":200,')));
    expect(broken.line).toBe(7);
    expect(broken.message).toMatch(/^vegeta results \(encode\), line 7: not a JSON object/);
    const badCode = importErrorOf(() =>
      parseVegetaResults(replaceLine(text, 3, '{"code":"x","latency":1,"timestamp":"2026-01-01T00:00:00Z"}')),
    );
    expect(badCode.message).toContain("line 3: code: expected an HTTP status code");
    const badTime = importErrorOf(() =>
      parseVegetaResults(replaceLine(text, 2, '{"code":200,"latency":1,"timestamp":"soon"}')),
    );
    expect(badTime.message).toContain('line 2: timestamp: expected a timestamp, got "soon"');
    expect(importErrorOf(() => parseVegetaResults("\n\n")).message).toContain("no requests in the stream");
  });
});

const k6Lines = fixture("k6-json/points.jsonl").trimEnd().split("\n");

describe("k6 --out json stream, recorded from k6 v1.8.1", () => {
  it("gives the totals k6's own summary gives for the same run", () => {
    const summary = JSON.parse(fixture("k6-json/mixed.summary.json")) as {
      metrics: {
        http_reqs: { count: number };
        http_req_failed: { passes: number; fails: number };
        http_req_duration: { max: number; avg: number };
      };
    };
    const run = parseK6Stream(fixture("k6-json/mixed.jsonl"));
    const { metrics } = run.result;
    expect(metrics.requests).toBe(summary.metrics.http_reqs.count);
    // k6's Rate counts the requests that failed as its passes.
    expect(metrics.failed).toBe(summary.metrics.http_req_failed.passes);
    expect(metrics.success).toBe(summary.metrics.http_req_failed.fails);
    const max = summary.metrics.http_req_duration.max;
    expect(Math.abs(metrics.latency_max! - max) / max).toBeLessThan(0.002);
    expect(run.result.errors).toContainEqual(
      expect.objectContaining({ kind: "connect", message: "dial: connection refused" }),
    );
    expect(detectFormat(fixture("k6-json/mixed.jsonl"))).toBe("k6-json");
  });
});

describe("k6 --out json stream (hand-written from k6's documented format)", () => {
  it("takes one request per http_req_duration point, failures by status and error tag", () => {
    const run = parseK6Stream(`${k6Lines.join("\n")}\n`);
    expect(run.result.metrics).toMatchObject({ requests: 4, success: 1, failed: 3, latency_max: expect.any(Number) });
    expect(run.result.statusCounts).toEqual({ "200": 1, "500": 1, "404": 1 });
    expect(run.result.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "status", status: 500, count: 1 }),
        expect.objectContaining({ kind: "timeout", message: "dial: i/o timeout", count: 1 }),
      ]),
    );
    // Four sends over 1.5 s.
    expect(run.result.metrics.rps).toBeCloseTo(4 / 1.5, 6);
    expect(run.startedAt).toBe("2026-07-04T08:00:01.100Z");
    expect(detectFormat(k6Lines.join("\n"))).toBe("k6-json");
  });

  it("names the line of bad input", () => {
    const err = importErrorOf(() => parseK6Stream([k6Lines[0], k6Lines[1], '{"type":"Sample"}'].join("\n")));
    expect(err.message).toBe('k6 --out json, line 3: type: expected "Point" or "Metric"');
    const value = importErrorOf(() =>
      parseK6StreamLine(
        9,
        '{"metric":"http_req_duration","type":"Point","data":{"time":"2026-07-04T10:00:01Z","value":-1}}',
      ),
    );
    expect(value.message).toContain("line 9: data.value: expected a number of at least 0");
  });
});

describe("line splitting and aggregation", () => {
  it("joins lines across chunks and refuses an over-long line, naming it", () => {
    const splitter = new LineSplitter("test");
    expect(splitter.push('{"a"')).toEqual([]);
    expect(splitter.push(':1}\n{"b":2}\n{"c"')).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '{"b":2}' },
    ]);
    expect(splitter.end()).toEqual([{ line: 3, text: '{"c"' }]);
    const small = new LineSplitter("test", 10);
    small.push("ok\n");
    const err = importErrorOf(() => small.push("x".repeat(11)));
    expect(err.message).toBe("test, line 2: the line is longer than 10 characters");
    expect(MAX_STREAM_LINE).toBeGreaterThan(1000);
  });

  it("gives one live second per tick with the running error total, and series at the end", () => {
    const agg = new RequestAggregator("vegeta", 1_000);
    agg.add({ atMs: 1_100, latencyMs: 2, status: 200 });
    agg.add({ atMs: 1_200, latencyMs: 4, status: 500 });
    const first = agg.tick(2_000);
    expect(first).toMatchObject({ t: 2_000, rps: 2, errors: 1 });
    agg.add({ atMs: 2_100, latencyMs: 8, status: 0, error: "connection refused" });
    expect(agg.tick(3_000)).toMatchObject({ rps: 1, errors: 2 });
    expect(agg.tick(4_000)).toMatchObject({ rps: 0, p50: null, errors: 2 });
    expect(agg.progress(4_000)).toMatchObject({ elapsedMs: 3_000, requests: 3, errors: 2 });
    const run = agg.result();
    expect(run.result.series.rps).toEqual({ start: 1_000, intervalMs: 1000, values: [2, 1, 0] });
    expect(run.result.series.latency_p50?.values[2]).toBeNull();
  });
});

describe("RequestAggregator bounds distinct error messages", () => {
  it("keeps 200 messages per kind and counts the rest together, so a long run's result stays storable", () => {
    const aggregator = new RequestAggregator("vegeta", 0);
    // Each message names another local port, as a connection reset does.
    for (let i = 0; i < 5_000; i++) {
      aggregator.add({ atMs: i, latencyMs: 1, status: 0, error: `read tcp 127.0.0.1:${10_000 + i}: connection reset` });
    }
    const run = aggregator.result();
    const { errors } = run.result;
    expect(errors.length).toBe(201);
    expect(errors.reduce((sum, e) => sum + e.count, 0)).toBe(5_000);
    expect(errors.at(-1)).toMatchObject({ message: "(other messages)", count: 4_800 });
    expect(run.result.metrics.failed).toBe(5_000);
  });
});
