import * as hdr from "hdr-histogram-js";

/**
 * Latency histograms are recorded in microseconds (integers) from 1 µs to 1 hour with 3
 * significant digits, and stored encoded (compressed base64). Shards merge by adding histograms;
 * percentiles are always read from the merged histogram, never averaged.
 */
export const HISTOGRAM_MAX_US = 3_600_000_000;
/** Most samples one histogram may count (a million requests a second for eleven days). */
export const MAX_HISTOGRAM_COUNT = 1e12;

export type LatencyHistogram = hdr.Histogram;

export function createHistogram(): LatencyHistogram {
  return hdr.build({
    bitBucketSize: 64,
    autoResize: true,
    lowestDiscernibleValue: 1,
    highestTrackableValue: HISTOGRAM_MAX_US,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });
}

export function recordMicros(histogram: LatencyHistogram, micros: number): void {
  const v = Math.min(Math.max(1, Math.round(micros)), HISTOGRAM_MAX_US);
  histogram.recordValue(v);
}

export function encodeHistogram(histogram: LatencyHistogram): string {
  return hdr.encodeIntoCompressedBase64(histogram);
}

export function decodeHistogram(encoded: string): LatencyHistogram {
  const h = hdr.decodeFromCompressedBase64(encoded, 64, false);
  return h;
}

export interface LatencySummaryMs {
  latency_min: number;
  latency_mean: number;
  latency_p50: number;
  latency_p90: number;
  latency_p95: number;
  latency_p99: number;
  latency_p999: number;
  latency_max: number;
  latency_stddev: number;
}

/** Summary statistics in milliseconds, or null for an empty histogram (missing, never zero). */
export function summarizeHistogram(h: LatencyHistogram, prefix = "latency"): Record<string, number> | null {
  if (h.totalCount === 0) return null;
  const ms = (us: number) => us / 1000;
  const moments = histogramMoments(h);
  return {
    [`${prefix}_min`]: ms(h.minNonZeroValue),
    [`${prefix}_mean`]: ms(moments.mean),
    [`${prefix}_p50`]: ms(h.getValueAtPercentile(50)),
    [`${prefix}_p90`]: ms(h.getValueAtPercentile(90)),
    [`${prefix}_p95`]: ms(h.getValueAtPercentile(95)),
    [`${prefix}_p99`]: ms(h.getValueAtPercentile(99)),
    [`${prefix}_p999`]: ms(h.getValueAtPercentile(99.9)),
    [`${prefix}_max`]: ms(h.maxValue),
    [`${prefix}_stddev`]: ms(moments.stdDeviation),
  };
}

/**
 * The histogram's mean and standard deviation, as hdr-histogram-js computes them (each bucket
 * at its median equivalent value, summed in increasing order, so the figures are the same to
 * the last bit), read in one walk of the counts array instead of two walks of its iterator,
 * which allocate a step object per bucket and take tens of milliseconds on a wide histogram.
 * Engines summarise while they send (checkpoints), so this is on the generator's clock.
 */
export function histogramMoments(h: LatencyHistogram): { mean: number; stdDeviation: number } {
  const total = h.totalCount;
  if (total === 0) return { mean: 0, stdDeviation: 0 };
  const js = h as unknown as JsHistogramInternals;
  const length = js.countsArrayLength;
  let seen = 0;
  let sum = 0;
  let last = -1;
  for (let i = 0; i < length && seen < total; i++) {
    const count = js.getCountAtIndex(i);
    if (count === 0) continue;
    seen += count;
    sum += js.medianEquivalentValue(js.valueFromIndex(i)) * count;
    last = i;
  }
  const mean = sum / total;
  let deviations = 0;
  for (let i = 0; i <= last; i++) {
    const count = js.getCountAtIndex(i);
    if (count === 0) continue;
    const deviation = js.medianEquivalentValue(js.valueFromIndex(i)) - mean;
    deviations += deviation * deviation * count;
  }
  return { mean, stdDeviation: Math.sqrt(deviations / total) };
}

/** The parts of hdr-histogram-js's JsHistogram that `histogramMoments` reads (public in its JS). */
interface JsHistogramInternals {
  countsArrayLength: number;
  getCountAtIndex(index: number): number;
  valueFromIndex(index: number): number;
  medianEquivalentValue(value: number): number;
}

/** Every distinct recorded value (µs) with its count, in increasing order. */
export function recordedValues(h: LatencyHistogram): { valueUs: number; count: number }[] {
  const js = h as unknown as hdr.JsHistogram;
  const iterator = js.recordedValuesIterator;
  iterator.reset();
  const out: { valueUs: number; count: number }[] = [];
  while (iterator.hasNext()) {
    const v = iterator.next();
    out.push({ valueUs: js.highestEquivalentValue(v.valueIteratedTo), count: v.countAtValueIteratedTo });
  }
  return out;
}

/** Buckets for drawing a latency distribution: upper bound (ms) and count, log-spaced bounds. */
export function histogramBuckets(h: LatencyHistogram, buckets = 40): { leMs: number; count: number }[] {
  if (h.totalCount === 0) return [];
  const lo = Math.max(1, h.minNonZeroValue);
  const hi = Math.max(lo + 1, h.maxValue);
  const ratio = (hi / lo) ** (1 / buckets);
  const bounds = Array.from({ length: buckets }, (_, i) => (i === buckets - 1 ? hi : lo * ratio ** (i + 1)));
  const counts = new Array<number>(buckets).fill(0);
  let b = 0;
  for (const { valueUs, count } of recordedValues(h)) {
    while (b < buckets - 1 && valueUs > (bounds[b] ?? hi)) b++;
    counts[b] = (counts[b] ?? 0) + count;
  }
  return bounds.map((le, i) => ({ leMs: le / 1000, count: counts[i] ?? 0 }));
}

/**
 * Like `summarizeHistogram`, with min and max read at bucket precision like the percentiles.
 * Adding histograms keeps bucket-precision extremes, so this way a merged histogram summarizes
 * exactly like one histogram that recorded the same samples.
 */
export function summarizeMergeable(h: LatencyHistogram, prefix = "latency"): Record<string, number> | null {
  const summary = summarizeHistogram(h, prefix);
  if (summary === null) return null;
  const js = h as unknown as hdr.JsHistogram;
  summary[`${prefix}_min`] = js.lowestEquivalentValue(h.minNonZeroValue) / 1000;
  summary[`${prefix}_max`] = js.highestEquivalentValue(h.maxValue) / 1000;
  return summary;
}
