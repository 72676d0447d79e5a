import { describe, expect, it } from "vitest";
import { parseK6 } from "./k6";
import { ZNormalizedRun } from "./normalized-run";
import { fixture, importErrorOf } from "./test-support";

const CHECK_STATUS_200 = { name: "status is 200", path: "::status is 200" };
const CHECK_BODY = { name: "body is not empty", path: "::body is not empty" };
const THRESHOLDS = [
  { metric: "http_req_duration", expression: "p(95)<1000", passed: true },
  { metric: "http_req_duration", expression: "avg<500", passed: true },
  { metric: "http_req_failed", expression: "rate<0.01", passed: false },
];

describe("parseK6", () => {
  it("reads --summary-export and inverts its threshold booleans (k6/summary-export.json)", () => {
    const run = parseK6(fixture("k6/summary-export.json"));
    expect(ZNormalizedRun.parse(run)).toEqual(run);
    expect(run.tool).toEqual({ name: "k6" });
    expect(run.scenario).toEqual({ name: "k6" });
    expect(run.result.metrics).toEqual({
      // http_reqs.count / .rate
      requests: 21169,
      rps: 7055.770144112354,
      // http_req_failed.passes counts the requests that failed
      failed: 1684,
      success: 19485,
      success_rate: expect.closeTo((19485 / 21169) * 100, 6),
      latency_mean: 0.628645268505832,
      latency_min: 0.038568,
      latency_p50: 0.34906,
      latency_max: 24.795965,
      latency_p90: 1.2625580000000003,
      latency_p95: 1.943939199999993,
      latency_p99: 5.124642039999993,
    });
    // "p(95)<1000": false and "avg<500": false passed; "rate<0.01": true failed.
    expect(run.result.toolThresholds).toHaveLength(THRESHOLDS.length);
    expect(run.result.toolThresholds).toEqual(expect.arrayContaining(THRESHOLDS));
    expect(run.result.errors).toEqual([{ kind: "assert", message: 'check "status is 200" failed', count: 1684 }]);
    const extra = run.result.extra ?? {};
    expect(extra.summaryShape).toBe("summary-export");
    expect(extra.checks).toEqual([
      { ...CHECK_STATUS_200, passes: 19485, fails: 1684 },
      { ...CHECK_BODY, passes: 21169, fails: 0 },
    ]);
    expect(extra.latencyPercentilesMs).toEqual({
      "50": 0.34906,
      "90": 1.2625580000000003,
      "95": 1.943939199999993,
      "99": 5.124642039999993,
    });
    const k6Metrics = extra.k6Metrics as Record<string, Record<string, unknown>>;
    expect(Object.keys(k6Metrics)).toContain("http_req_waiting");
    expect(k6Metrics.http_req_failed).toEqual({ passes: 1684, fails: 19485, value: 0.07955028579526667 });
  });

  it("reads the legacy handleSummary() data object with { ok } verdicts (k6/handle-summary.json)", () => {
    const run = parseK6(fixture("k6/handle-summary.json"));
    expect(run.durationS).toBe(3.000426578);
    expect(run.result.metrics).toEqual({
      requests: 21374,
      rps: 7123.653735345628,
      failed: 1686,
      success: 19688,
      success_rate: expect.closeTo((19688 / 21374) * 100, 6),
      runtime_ms: 3000.426578,
      latency_mean: 0.6208768965565645,
      latency_min: 0.035513,
      latency_p50: 0.3479685,
      latency_max: 22.699534,
      latency_p90: 0.9089574000000009,
      latency_p95: 2.021429049999997,
      latency_p99: 5.967016460000003,
    });
    expect(run.result.toolThresholds).toHaveLength(THRESHOLDS.length);
    expect(run.result.toolThresholds).toEqual(expect.arrayContaining(THRESHOLDS));
    expect(run.result.extra?.summaryShape).toBe("handle-summary");
    expect(run.result.extra?.checks).toEqual([
      { ...CHECK_STATUS_200, passes: 19688, fails: 1686 },
      { ...CHECK_BODY, passes: 21374, fails: 0 },
    ]);
    expect(run.result.extra?.options).toEqual({
      noColor: false,
      summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"],
      summaryTimeUnit: "",
    });
  });

  it("reads the machine-readable summary (k6/machine-readable.json)", () => {
    const run = parseK6(fixture("k6/machine-readable.json"));
    expect(run.tool).toEqual({ name: "k6", version: "1.8.1" });
    expect(run.endedAt).toBe("2026-11-22T18:41:43.492349206Z");
    expect(run.durationS).toBe(3.000398286);
    expect(run.result.metrics).toEqual({
      requests: 28532,
      // No rate in this shape: count over config.duration.
      rps: expect.closeTo(28532 / 3.000398286, 6),
      // http_req_failed.matches
      failed: 2261,
      success: 26271,
      success_rate: expect.closeTo((26271 / 28532) * 100, 6),
      runtime_ms: 3000.398286,
      latency_mean: 0.4686328490466858,
      latency_max: 11.116834,
      latency_p50: 0.2922755,
      latency_min: 0.037366,
      latency_p90: 0.8744080000000003,
      latency_p95: 1.3658734499999976,
    });
    // This shape has no thresholds.
    expect(run.result.toolThresholds).toBeUndefined();
    expect(run.result.errors).toEqual([{ kind: "assert", message: 'check "status is 200" failed', count: 2261 }]);
    expect(run.result.extra?.checks).toEqual([
      { name: "status is 200", passes: 26271, fails: 2261 },
      { name: "body is not empty", passes: 28532, fails: 0 },
    ]);
    expect(run.result.extra?.execution).toBe("local");
    expect(run.result.extra?.summaryVersion).toBe("1.0.0");
  });

  it("reads checks nested in groups and submetric thresholds", () => {
    const doc = JSON.parse(fixture("k6/summary-export.json")) as {
      root_group: { groups: Record<string, unknown> };
      metrics: Record<string, Record<string, unknown>>;
    };
    doc.root_group.groups = {
      login: {
        name: "login",
        path: "::login",
        id: "x",
        groups: {},
        checks: { "token set": { name: "token set", path: "::login::token set", id: "y", passes: 3, fails: 1 } },
      },
    };
    doc.metrics["http_req_duration{status:200}"] = {
      avg: 1,
      min: 1,
      med: 1,
      max: 1,
      thresholds: { "p(99)<5": { threshold: "p(99)<5", abortOnFail: true } },
    };
    const err = importErrorOf(() => parseK6(JSON.stringify(doc)));
    expect(err.field).toBe('metrics["http_req_duration{status:200}"].thresholds["p(99)<5"]');

    doc.metrics["http_req_duration{status:200}"] = { avg: 1, min: 1, med: 1, max: 1, thresholds: { "p(99)<5": true } };
    const run = parseK6(JSON.stringify(doc));
    expect(run.result.toolThresholds).toContainEqual({
      metric: "http_req_duration{status:200}",
      expression: "p(99)<5",
      passed: false,
    });
    expect(run.result.extra?.checks).toContainEqual({
      name: "token set",
      path: "::login::token set",
      passes: 3,
      fails: 1,
    });
    expect(run.result.errors).toContainEqual({ kind: "assert", message: 'check "token set" failed', count: 1 });
  });

  describe("bad input", () => {
    const text = fixture("k6/summary-export.json");

    it("names the line of a JSON syntax error", () => {
      const err = importErrorOf(() => parseK6(text.replace('"count": 21169,', '"count": 21169,,')));
      expect(err.line).toBe(text.split("\n").findIndex((l) => l.includes('"count": 21169')) + 1);
    });

    it("says a truncated file ends early", () => {
      const err = importErrorOf(() => parseK6(text.slice(0, text.length / 2)));
      expect(err.message).toContain("the JSON ends early (truncated file?)");
    });

    it("names http_reqs when the test made no HTTP requests", () => {
      const doc = JSON.parse(text) as { metrics: Record<string, unknown> };
      delete doc.metrics.http_reqs;
      const err = importErrorOf(() => parseK6(JSON.stringify(doc)));
      expect(err.field).toBe("metrics.http_reqs");
    });

    it("names a field with the wrong type", () => {
      const err = importErrorOf(() => parseK6(text.replace(/("http_reqs": \{\s*"count": )21169/, '$1"21169"')));
      expect(err.message).toBe('k6 summary, field "metrics.http_reqs.count": expected a number, got "21169"');
    });

    it("names a threshold verdict that is not a boolean", () => {
      const err = importErrorOf(() => parseK6(text.replace('"rate<0.01": true', '"rate<0.01": "yes"')));
      expect(err.field).toBe('metrics.http_req_failed.thresholds["rate<0.01"]');
    });

    it("explains that an --out json stream is not a summary", () => {
      const stream = [
        '{"type":"Metric","data":{"name":"http_reqs","type":"counter","contains":"default","thresholds":[],"submetrics":null},"metric":"http_reqs"}',
        '{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-22T18:41:40.1+00:00","value":1,"tags":{"status":"200"}}}',
      ].join("\n");
      const err = importErrorOf(() => parseK6(stream));
      expect(err.message).toContain("--summary-export");
    });

    it("rejects another tool's JSON", () => {
      const err = importErrorOf(() => parseK6(fixture("vegeta/mixed.json")));
      expect(err.field).toBe("metrics");
    });
  });
});
