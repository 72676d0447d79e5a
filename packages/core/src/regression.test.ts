import { describe, expect, it } from "vitest";
import { relativeDelta } from "./compare";
import { DEFAULT_REGRESSION_METRICS, evaluateRegressions, regressionVerdict } from "./regression";

describe("regressionVerdict", () => {
  it("judges by the metric's direction beyond the tolerance", () => {
    // Throughput down 10%: worse for a higher-is-better metric.
    expect(regressionVerdict("rps", 1000, 900, 5)).toEqual({ delta: -0.1, verdict: "regressed" });
    expect(regressionVerdict("rps", 1000, 1100, 5)).toEqual({ delta: 0.1, verdict: "improved" });
    // Latency up 10%: worse for a lower-is-better metric.
    expect(regressionVerdict("latency_p99", 100, 110, 5).verdict).toBe("regressed");
    expect(regressionVerdict("latency_p99", 100, 90, 5).verdict).toBe("improved");
  });

  it("treats a change within or exactly at the tolerance as unchanged", () => {
    expect(regressionVerdict("latency_p99", 100, 104.9, 5).verdict).toBe("unchanged");
    expect(regressionVerdict("latency_p99", 100, 105, 5).verdict).toBe("unchanged");
    expect(regressionVerdict("latency_p99", 100, 105.01, 5).verdict).toBe("regressed");
    // (4.2 − 4) / 4 is 0.05000000000000004 in binary floating point.
    expect(regressionVerdict("latency_p50", 4, 4.2, 5).verdict).toBe("unchanged");
    expect(regressionVerdict("latency_p50", 4, 4.2001, 5).verdict).toBe("regressed");
    expect(regressionVerdict("rps", 200, 200, 0)).toEqual({ delta: 0, verdict: "unchanged" });
    // With zero tolerance any worsening counts.
    expect(regressionVerdict("rps", 200, 199.9, 0).verdict).toBe("regressed");
  });

  it("uses the delta definition shared with the comparison views", () => {
    const { delta } = regressionVerdict("latency_p50", 37, 41.3, 5);
    expect(delta).toBe(relativeDelta(37, 41.3));
  });

  it("never gates on neutral metrics", () => {
    expect(regressionVerdict("requests", 1000, 10, 5).verdict).toBe("unchanged");
    expect(regressionVerdict("target_rps", 1000, 3000, 5).verdict).toBe("unchanged");
  });

  it("judges a change from zero by direction, since it has no relative delta", () => {
    expect(regressionVerdict("failed_connections", 0, 12, 5)).toEqual({ delta: null, verdict: "regressed" });
    expect(regressionVerdict("rps", 0, 50, 5)).toEqual({ delta: null, verdict: "improved" });
    expect(regressionVerdict("failed_connections", 0, 0, 5)).toEqual({ delta: 0, verdict: "unchanged" });
  });

  it("calls a metric missing on either side incomparable", () => {
    expect(regressionVerdict("latency_p99", null, 10, 5)).toEqual({ delta: null, verdict: "incomparable" });
    expect(regressionVerdict("latency_p99", 10, undefined, 5)).toEqual({ delta: null, verdict: "incomparable" });
  });
});

describe("evaluateRegressions", () => {
  const base = { rps: 5000, latency_p50: 1.5, latency_p99: 6.9, latency_max: 21, requests: 300_000 };

  it("reports the default metrics either run measured, listing regressions and improvements", () => {
    const head = { rps: 4400, latency_p50: 1.2, latency_p99: 7.0, latency_max: 90, requests: 264_000 };
    const report = evaluateRegressions(base, head, { tolerancePct: 5 });
    expect(report.rows.map((r) => r.key)).toEqual(["rps", "latency_p50", "latency_p99"]);
    expect(report.regressed).toEqual(["rps"]);
    expect(report.improved).toEqual(["latency_p50"]);
    const p99 = report.rows.find((r) => r.key === "latency_p99");
    expect(p99).toMatchObject({ base: 6.9, head: 7.0, verdict: "unchanged", unit: "ms", direction: "lower" });
    expect(p99?.label).toBe("Latency p99");
  });

  it("reports exactly the metrics asked for, including ones a side lacks", () => {
    const head = { rps: 5000, latency_p50: 1.5, latency_p99: 6.9, latency_max: 90 };
    const report = evaluateRegressions(base, head, { tolerancePct: 10, metrics: ["latency_max", "ttft_p50"] });
    expect(report.rows.map((r) => [r.key, r.verdict])).toEqual([
      ["latency_max", "regressed"],
      ["ttft_p50", "incomparable"],
    ]);
    expect(report.regressed).toEqual(["latency_max"]);
  });

  it("finds nothing between identical runs", () => {
    const report = evaluateRegressions(base, base, { tolerancePct: 0 });
    expect(report.regressed).toEqual([]);
    expect(report.improved).toEqual([]);
    expect(report.rows.every((r) => r.verdict === "unchanged" && r.delta === 0)).toBe(true);
  });

  it("refuses a tolerance outside 0–1000%", () => {
    expect(() => evaluateRegressions(base, base, { tolerancePct: -1 })).toThrow(/between 0 and 1000/);
    expect(() => evaluateRegressions(base, base, { tolerancePct: Number.NaN })).toThrow(RangeError);
  });

  it("leaves extremes out of the default metrics", () => {
    expect(DEFAULT_REGRESSION_METRICS).not.toContain("latency_max");
    expect(DEFAULT_REGRESSION_METRICS).not.toContain("latency_min");
  });
});
