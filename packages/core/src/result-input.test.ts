import { describe, expect, it } from "vitest";
import { createHistogram, encodeHistogram, recordMicros } from "./histogram";
import { ImportError } from "./importers/import-error";
import { canonicalUploadResult, MAX_SERIES_POINTS } from "./result-input";
import { type TRunResultData, ZRunResultData } from "./run-result";

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
