/**
 * Bounds on a result that came from outside (an upload), checked once at the boundary so that
 * what is stored is canonical: views never re-validate or re-inflate it. Server-only (histogram
 * decoding uses node:zlib).
 */
import { canonicalHistogram, HistogramInputError, type InflateBudget } from "./histogram-input";
import { ImportError } from "./importers/import-error";
import { RESULT_LIMITS, type TRunResultData } from "./run-result";

/** Shortest interval a series may have. */
export const MIN_SERIES_INTERVAL_MS = 1;
/** Most points in one series (a day at one a second). */
export const MAX_SERIES_POINTS = 86_400;
/** Most series in one result (the schema's bound; see `RESULT_LIMITS` for the others). */
export const MAX_SERIES = RESULT_LIMITS.series;
/** Most bytes all histograms of one upload may inflate to together. */
export const MAX_UPLOAD_INFLATED_BYTES = 32_000_000;
/** How far before the run's start a series may begin (clocks of two machines differ). */
const START_SLACK_MS = 60_000;

export interface RunWindow {
  startedAt: Date | null;
  endedAt: Date | null;
}

/**
 * The result with every histogram decoded under bounds and re-encoded in the engines' own
 * encoding, and every series checked: interval at least 1 ms, at most `MAX_SERIES_POINTS`
 * points, a start within the run's window when the run's times are known. Throws an
 * ImportError naming the field (e.g. `result.series.rps.intervalMs`).
 */
export function canonicalUploadResult(format: string, result: TRunResultData, window: RunWindow): TRunResultData {
  const budget: InflateBudget = { bytesLeft: MAX_UPLOAD_INFLATED_BYTES };
  const fail = (field: string, detail: string): never => {
    throw new ImportError(format, detail, { field });
  };
  const histogram = (encoded: string, field: string): string => {
    try {
      return canonicalHistogram(encoded, budget);
    } catch (err) {
      if (err instanceof HistogramInputError) fail(field, `the histogram ${err.message}`);
      throw err;
    }
  };
  const checkTimeline = (field: string, start: number, intervalMs: number, points: number) => {
    if (!Number.isFinite(start)) fail(`${field}.start`, "must be a time in epoch milliseconds");
    if (!(intervalMs >= MIN_SERIES_INTERVAL_MS)) fail(`${field}.intervalMs`, "must be at least 1 ms");
    if (points > MAX_SERIES_POINTS) {
      fail(`${field}.values`, `has ${points} points; at most ${MAX_SERIES_POINTS.toLocaleString("en-US")}`);
    }
    const from = window.startedAt?.getTime();
    const to = window.endedAt?.getTime();
    if (from !== undefined && start < from - START_SLACK_MS) fail(`${field}.start`, "is before the run started");
    if (to !== undefined && start > to) fail(`${field}.start`, "is after the run ended");
  };

  const seriesEntries = Object.entries(result.series);
  if (seriesEntries.length > MAX_SERIES) fail("result.series", `at most ${MAX_SERIES} series`);
  for (const [key, s] of seriesEntries) checkTimeline(`result.series.${key}`, s.start, s.intervalMs, s.values.length);

  const out: TRunResultData = { ...result };
  if (result.histogram !== undefined) out.histogram = histogram(result.histogram, "result.histogram");
  if (result.histograms) {
    out.histograms = Object.fromEntries(
      Object.entries(result.histograms).map(([key, h]) => [key, histogram(h, `result.histograms.${key}`)]),
    );
  }
  const intervals = result.intervalHistograms;
  if (intervals) {
    const field = "result.intervalHistograms";
    checkTimeline(field, intervals.start, intervals.intervalMs, intervals.values.length);
    out.intervalHistograms = {
      ...intervals,
      values: intervals.values.map((h, i) => (h === null ? null : histogram(h, `${field}.values.${i}`))),
    };
  }
  return out;
}

/**
 * The window part of `canonicalUploadResult` alone, for a result made canonical before the run's
 * times were known (an agent's, read on the parse pool): every series starts within the run.
 */
export function checkResultWindow(format: string, result: TRunResultData, window: RunWindow): void {
  const from = window.startedAt?.getTime();
  const to = window.endedAt?.getTime();
  const check = (field: string, start: number) => {
    if (from !== undefined && start < from - START_SLACK_MS) {
      throw new ImportError(format, "is before the run started", { field: `${field}.start` });
    }
    if (to !== undefined && start > to)
      throw new ImportError(format, "is after the run ended", { field: `${field}.start` });
  };
  for (const [key, s] of Object.entries(result.series)) check(`result.series.${key}`, s.start);
  if (result.intervalHistograms) check("result.intervalHistograms", result.intervalHistograms.start);
}
