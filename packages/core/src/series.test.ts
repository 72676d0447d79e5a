import { describe, expect, it } from "vitest";
import { alignSeries, overlaySeries, toCsv } from "./series";

describe("alignSeries", () => {
  it("puts metrics starting at different times on one axis", () => {
    const { points, intervalMs } = alignSeries([
      { metric: "rps", start: 10_000, intervalMs: 1000, values: [100, 110, 120] },
      { metric: "mem_bytes", start: 11_000, intervalMs: 1000, values: [5, 6] },
    ]);
    expect(intervalMs).toBe(1000);
    expect(points).toEqual([
      { t: 0, rps: 100, mem_bytes: null },
      { t: 1, rps: 110, mem_bytes: 5 },
      { t: 2, rps: 120, mem_bytes: 6 },
    ]);
  });

  it("reduces an hour to a bounded number of points, keeping latency peaks and averaging rates", () => {
    const values = Array.from({ length: 3600 }, (_, i) => (i === 1234 ? 900 : 10));
    const { points, intervalMs } = alignSeries(
      [
        { metric: "latency_p99", start: 0, intervalMs: 1000, values },
        { metric: "rps", start: 0, intervalMs: 1000, values: values.map((_, i) => (i % 2 ? 100 : 200)) },
      ],
      600,
    );
    expect(points).toHaveLength(600);
    expect(intervalMs).toBe(6000);
    expect(Math.max(...points.map((p) => p.latency_p99 ?? 0))).toBe(900);
    expect(points[0]!.rps).toBe(150);
  });

  it("returns nothing for no series", () => {
    expect(alignSeries([]).points).toEqual([]);
  });
});

describe("overlaySeries", () => {
  it("aligns runs by time since their own start", () => {
    const points = overlaySeries("latency_p99", [
      { runId: "a", series: { start: 0, intervalMs: 1000, values: [1, 2, 3] } },
      { runId: "b", series: { start: 99_000, intervalMs: 1000, values: [4] } },
      { runId: "c", series: null },
    ]);
    expect(points).toEqual([
      { t: 0, a: 1, b: 4, c: null },
      { t: 1, a: 2, b: null, c: null },
      { t: 2, a: 3, b: null, c: null },
    ]);
  });
});

describe("toCsv", () => {
  it("quotes what needs quoting", () => {
    expect(
      toCsv([
        ["metric", "value"],
        ['a "b"', 1.5],
        ["x,y", null],
      ]),
    ).toBe('metric,value\r\n"a ""b""",1.5\r\n"x,y",\r\n');
  });
});

describe("series from hostile data", () => {
  it("charts a 1e-9 ms interval without sizing anything by it", () => {
    const { points } = alignSeries([{ metric: "rps", start: 0, intervalMs: 1e-9, values: [1, 2, 3] }]);
    expect(points.length).toBeLessThanOrEqual(900);
    expect(points.some((p) => p.rps !== null)).toBe(true);
  });

  it("charts two series started years apart in at most maxPoints points", () => {
    const { points } = alignSeries([
      { metric: "rps", start: 0, intervalMs: 1, values: [1] },
      { metric: "errors", start: 1e11, intervalMs: 1, values: [2] },
    ]);
    expect(points.length).toBeLessThanOrEqual(900);
    expect(points[0]?.rps).toBe(1);
    expect(points.at(-1)?.errors).toBe(2);
  });

  it("overlays a run with a 1e-9 ms interval in at most maxPoints points", () => {
    const points = overlaySeries("rps", [
      { runId: "a", series: { start: 0, intervalMs: 1e-9, values: [1, 2] } },
      { runId: "b", series: { start: 0, intervalMs: 1000, values: [3, 4] } },
    ]);
    expect(points.length).toBeLessThanOrEqual(600);
  });
});
