import { describe, expect, it } from "vitest";
import { createHistogram, encodeHistogram, recordMicros } from "./histogram";
import { ImportError } from "./importers/import-error";
import { canonicalUploadResult, MAX_SERIES_POINTS } from "./result-input";
import { RESULT_LIMITS, type TRunResultData, ZRunResultData } from "./run-result";

const window = { startedAt: new Date("2026-01-01T00:00:00Z"), endedAt: new Date("2026-01-01T00:01:00Z") };
const t0 = window.startedAt.getTime();

function result(extra: Partial<TRunResultData>): TRunResultData {
  return ZRunResultData.parse({ metrics: { requests: 1 }, ...extra });
}

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ImportError);
    return (err as ImportError).field;
  }
  throw new Error("nothing was thrown");
}

describe("canonicalUploadResult", () => {
  it("keeps a sane result, with its histogram in the engines' encoding", () => {
    const h = createHistogram();
    recordMicros(h, 1234);
    const input = result({
      histogram: encodeHistogram(h),
      series: { rps: { start: t0, intervalMs: 1000, values: [1, 2, 3] } },
    });
    expect(canonicalUploadResult("native", input, window)).toEqual(input);
  });

  it.each([
    ["an interval under 1 ms", { start: t0, intervalMs: 1e-9, values: [1] }, "result.series.rps.intervalMs"],
    [
      "too many points",
      { start: t0, intervalMs: 1, values: new Array(MAX_SERIES_POINTS + 1).fill(1) },
      "result.series.rps.values",
    ],
    ["a start long before the run", { start: 0, intervalMs: 1000, values: [1] }, "result.series.rps.start"],
    ["a start after the run", { start: t0 + 3_600_000, intervalMs: 1000, values: [1] }, "result.series.rps.start"],
  ])("refuses a series with %s, naming the field", (_, series, field) => {
    expect(fieldOf(() => canonicalUploadResult("native", result({ series: { rps: series } }), window))).toBe(field);
  });

  it("names the histogram that does not decode", () => {
    expect(fieldOf(() => canonicalUploadResult("native", result({ histograms: { ttft: "garbage!" } }), window))).toBe(
      "result.histograms.ttft",
    );
    expect(
      fieldOf(() =>
        canonicalUploadResult(
          "native",
          result({ intervalHistograms: { start: t0, intervalMs: 1000, values: [null, "x"] } }),
          window,
        ),
      ),
    ).toBe("result.intervalHistograms.values.1");
  });
});

describe("ZRunResultData bounds every record", () => {
  const keys = (n: number, value: unknown) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));
  const list = (n: number, value: unknown) => Array.from({ length: n }, () => value);
  const RECORDS: [keyof typeof RESULT_LIMITS, (n: number) => Record<string, unknown>][] = [
    ["metrics", (n) => ({ metrics: keys(n, 1) })],
    ["statusCounts", (n) => ({ statusCounts: keys(n, 1) })],
    ["errors", (n) => ({ errors: list(n, { kind: "timeout", count: 1 }) })],
    ["stages", (n) => ({ stages: keys(n, { meanMs: 1 }) })],
    ["series", (n) => ({ series: keys(n, { start: 0, values: [] }) })],
    ["histograms", (n) => ({ histograms: keys(n, "x") })],
    ["toolThresholds", (n) => ({ toolThresholds: list(n, { metric: "m", expression: "e", passed: true }) })],
    ["invalidReasons", (n) => ({ invalidReasons: list(n, "r") })],
  ];

  it.each(RECORDS)("%s: takes the limit, refuses one more naming the field and the limit", (field, make) => {
    const max = RESULT_LIMITS[field];
    expect(ZRunResultData.safeParse({ metrics: {}, ...make(max) }).success).toBe(true);
    const over = ZRunResultData.safeParse({ metrics: {}, ...make(max + 1) });
    expect(over.error?.issues).toEqual([
      expect.objectContaining({
        path: [field],
        message: expect.stringMatching(`at most ${max.toLocaleString("en-US")}$`),
      }),
    ]);
  });

  it("counts before it validates: 200,000 bad metric values give one issue, the count", () => {
    const parsed = ZRunResultData.safeParse({ metrics: keys(200_000, "not a number") });
    expect(parsed.error?.issues).toHaveLength(1);
    expect(parsed.error?.issues[0]?.message).toBe("has 200,000 metrics; at most 5,000");
  });

  it("bounds extra by its JSON size and refuses a reserved key at any depth in it", () => {
    const size = RESULT_LIMITS.extraChars;
    expect(ZRunResultData.safeParse({ metrics: {}, extra: { a: "x".repeat(size - 20) } }).success).toBe(true);
    const big = ZRunResultData.safeParse({ metrics: {}, extra: { a: "x".repeat(size) } });
    expect(big.error?.issues[0]).toMatchObject({
      path: ["extra"],
      message: expect.stringMatching(/at most 1,000,000$/),
    });
    const nested = ZRunResultData.safeParse({ metrics: {}, extra: { a: [{ b: { constructor: 1 } }] } });
    expect(nested.error?.issues[0]).toMatchObject({
      path: ["extra", "a", 0, "b", "constructor"],
      message: "constructor is a reserved name",
    });
  });
});
