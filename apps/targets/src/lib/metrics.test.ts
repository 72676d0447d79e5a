import { describe, expect, it } from "vitest";
import { parsePrometheusText, sampleValue } from "../testing/prometheus-text";
import { exponentialBuckets, Registry, registerProcessMetrics } from "./metrics";

describe("Registry exposition (text format 0.0.4)", () => {
  it("writes HELP and TYPE once per family, before its samples", () => {
    const registry = new Registry();
    const counter = registry.counter<"status">({ name: "requests_total", help: "Requests.", labelNames: ["status"] });
    counter.inc({ status: 200 });
    counter.inc({ status: 200 }, 2);
    counter.inc({ status: "503" });
    registry.gauge({ name: "depth", help: "Depth.", collect: () => 7 });

    expect(registry.expose()).toBe(
      [
        "# HELP requests_total Requests.",
        "# TYPE requests_total counter",
        'requests_total{status="200"} 3',
        'requests_total{status="503"} 1',
        "# HELP depth Depth.",
        "# TYPE depth gauge",
        "depth 7",
        "",
      ].join("\n"),
    );
  });

  it("escapes label values and help text so they read back unchanged", () => {
    const registry = new Registry();
    const gauge = registry.gauge<"path">({
      name: "odd",
      help: 'Back\\slash and\nnewline "kept"',
      labelNames: ["path"],
    });
    const nasty = 'C:\\temp\\"quoted"\nline two';
    gauge.set(1.5, { path: nasty });
    const text = registry.expose();
    expect(text).toContain('odd{path="C:\\\\temp\\\\\\"quoted\\"\\nline two"} 1.5');
    const families = parsePrometheusText(text);
    expect(families.get("odd")?.help).toBe('Back\\slash and\nnewline "kept"');
    expect(sampleValue(families, "odd", { path: nasty })).toBe(1.5);
  });

  it("exposes histograms as cumulative buckets ending in +Inf, with _sum and _count", () => {
    const registry = new Registry();
    const histogram = registry.histogram<"stage">({
      name: "stage_seconds",
      help: "Stage time.",
      labelNames: ["stage"],
      buckets: [0.001, 0.01, 0.1],
    });
    for (const value of [0.0005, 0.001, 0.005, 0.05, 2]) histogram.observe(value, { stage: "queue_wait" });
    const text = registry.expose();
    expect(text).toContain('stage_seconds_bucket{stage="queue_wait",le="0.001"} 2\n');
    expect(text).toContain('stage_seconds_bucket{stage="queue_wait",le="0.01"} 3\n');
    expect(text).toContain('stage_seconds_bucket{stage="queue_wait",le="0.1"} 4\n');
    expect(text).toContain('stage_seconds_bucket{stage="queue_wait",le="+Inf"} 5\n');
    expect(text).toContain('stage_seconds_count{stage="queue_wait"} 5\n');
    const families = parsePrometheusText(text);
    expect(sampleValue(families, "stage_seconds_sum", { stage: "queue_wait" })).toBeCloseTo(2.0565, 10);
  });

  it("writes special values the way Prometheus reads them", () => {
    const registry = new Registry();
    const gauge = registry.gauge<"kind">({ name: "special", help: "x", labelNames: ["kind"] });
    gauge.set(Number.NaN, { kind: "nan" });
    gauge.set(Number.POSITIVE_INFINITY, { kind: "inf" });
    gauge.set(Number.NEGATIVE_INFINITY, { kind: "ninf" });
    gauge.set(1e-7, { kind: "tiny" });
    const text = registry.expose();
    expect(text).toContain('special{kind="nan"} NaN');
    expect(text).toContain('special{kind="inf"} +Inf');
    expect(text).toContain('special{kind="ninf"} -Inf');
    const families = parsePrometheusText(text);
    expect(sampleValue(families, "special", { kind: "tiny" })).toBe(1e-7);
    expect(sampleValue(families, "special", { kind: "inf" })).toBe(Number.POSITIVE_INFINITY);
  });

  it("refuses names and labels Prometheus would reject, and missing or extra labels", () => {
    const registry = new Registry();
    expect(() => registry.counter({ name: "bad-name", help: "x" })).toThrow(/invalid metric name/);
    expect(() => registry.counter({ name: "ok", help: "x", labelNames: ["__reserved"] })).toThrow(/invalid label/);
    expect(() => registry.histogram({ name: "h", help: "x", labelNames: ["le"], buckets: [1] })).toThrow(/reserved/);
    expect(() => registry.histogram({ name: "h2", help: "x", buckets: [2, 1] })).toThrow(/increase/);
    const counter = registry.counter<"a">({ name: "c", help: "x", labelNames: ["a"] });
    expect(() => counter.inc({} as { a: string })).toThrow(/label a is required/);
    expect(() => counter.inc({ a: "1", b: "2" } as { a: string })).toThrow(/unexpected labels/);
    expect(() => counter.inc({ a: "1" }, -1)).toThrow(/only go up/);
    registry.gauge({ name: "dup", help: "x" });
    expect(() => registry.gauge({ name: "dup", help: "x" })).toThrow(/already registered/);
  });

  it("includes the process collector the monitors read", () => {
    const registry = new Registry();
    registerProcessMetrics(registry, "unit");
    const families = parsePrometheusText(registry.expose());
    expect(families.get("process_resident_memory_bytes")?.type).toBe("gauge");
    expect(sampleValue(families, "process_resident_memory_bytes")).toBeGreaterThan(10 * 1024 * 1024);
    expect(families.get("process_cpu_seconds_total")?.type).toBe("counter");
    expect(sampleValue(families, "process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(sampleValue(families, "process_start_time_seconds")).toBeLessThanOrEqual(Date.now() / 1000);
    expect(sampleValue(families, "target_info", { service: "unit" })).toBe(1);
  });

  it("builds exponential buckets without float noise", () => {
    expect(exponentialBuckets(1e-6, 2, 4)).toEqual([0.000001, 0.000002, 0.000004, 0.000008]);
    expect(exponentialBuckets(0.1, 10, 3)).toEqual([0.1, 1, 10]);
  });
});
