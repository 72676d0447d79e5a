/**
 * Per-second series shaped for charts: several metrics of one run on one shared time axis, or one
 * metric of several runs overlaid by elapsed time. Long series are reduced to a bounded number of
 * points so a 1-hour run charts instantly; peaks survive the reduction.
 */

export interface SeriesInput {
  metric: string;
  /** Epoch ms (or a Date) of the first sample. */
  start: number | Date;
  intervalMs: number;
  values: readonly (number | null)[];
}

export type ChartPoint = { t: number } & Record<string, number | null>;

/** Metrics whose peaks matter keep the maximum of a reduced bucket; rates keep the mean. */
export function keepsPeak(metric: string): boolean {
  return /^(latency|ttft|itl|mem|queue_depth|cpu|gauge)/.test(metric);
}

/** How many raw intervals go into one chart point so that at most `maxPoints` remain. */
export function bucketSize(length: number, maxPoints: number): number {
  return Math.max(1, Math.ceil(length / Math.max(1, maxPoints)));
}

const ms = (d: number | Date) => (d instanceof Date ? d.getTime() : d);

/** A usable interval: stored data is checked at upload, but a view never trusts it to be sane. */
const safeInterval = (intervalMs: number) => (Number.isFinite(intervalMs) && intervalMs >= 1 ? intervalMs : 1000);

/**
 * Reduces values placed at raw positions `offset + i * stretch` into `buckets` points of
 * `bucket` raw positions each. Work and memory depend on the number of values and points only,
 * never on how far apart the positions are.
 */
function reduceInto(
  values: readonly (number | null)[],
  offset: number,
  stretch: number,
  length: number,
  bucket: number,
  buckets: number,
  peak: boolean,
): (number | null)[] {
  // Flat typed arrays rather than an object per point: an overlay of ten one-hour runs reduces
  // 180,000 samples per request.
  const sum = new Float64Array(buckets);
  const count = new Uint32Array(buckets);
  const max = new Float64Array(buckets).fill(Number.NEGATIVE_INFINITY);
  const last = buckets - 1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined || !Number.isFinite(v)) continue;
    const at = offset + i * stretch;
    if (at < 0 || at >= length) continue;
    const b = Math.min(last, Math.floor(at / bucket));
    sum[b] = (sum[b] ?? 0) + v;
    count[b] = (count[b] ?? 0) + 1;
    if (v > (max[b] ?? 0)) max[b] = v;
  }
  const out: (number | null)[] = new Array(buckets);
  for (let b = 0; b < buckets; b++) {
    const n = count[b] ?? 0;
    out[b] = n === 0 ? null : peak ? (max[b] ?? null) : (sum[b] ?? 0) / n;
  }
  return out;
}

/**
 * One run's series on one time axis: `t` is seconds since the earliest series start, one point
 * per (possibly reduced) interval, null where a metric has no sample.
 */
export function alignSeries(
  series: readonly SeriesInput[],
  maxPoints = 900,
): { intervalMs: number; points: ChartPoint[] } {
  if (series.length === 0) return { intervalMs: 1000, points: [] };
  const intervalMs = Math.min(...series.map((s) => safeInterval(s.intervalMs)));
  const t0 = Math.min(...series.map((s) => ms(s.start)));
  const length = Math.max(
    1,
    ...series.map(
      (s) =>
        Math.round((ms(s.start) - t0) / intervalMs) +
        Math.round((s.values.length * safeInterval(s.intervalMs)) / intervalMs),
    ),
  );
  const bucket = bucketSize(length, maxPoints);
  const buckets = Math.min(Math.ceil(length / bucket), Math.max(1, maxPoints));
  const points: ChartPoint[] = Array.from({ length: buckets }, (_, i) => ({ t: (i * bucket * intervalMs) / 1000 }));
  for (const s of series) {
    const offset = Math.round((ms(s.start) - t0) / intervalMs);
    const stretch = Math.max(1, Math.round(safeInterval(s.intervalMs) / intervalMs));
    const reduced = reduceInto(s.values, offset, stretch, length, bucket, buckets, keepsPeak(s.metric));
    reduced.forEach((v, b) => {
      (points[b] as Record<string, number | null>)[s.metric] = v;
    });
  }
  return { intervalMs: intervalMs * bucket, points };
}

/** Most points of a stored series' reduced copy (the database keeps one for longer series). */
export const SERIES_ROLLUP_POINTS = 600;

/**
 * A long series reduced to at most SERIES_ROLLUP_POINTS points, each the minimum, maximum, mean
 * and count of `bucket` consecutive samples (NaN and 0 where a bucket has none). What the database
 * stores beside the samples; `length` is the number of samples it was reduced from.
 */
export interface SeriesRollup {
  length: number;
  bucket: number;
  min: Float64Array;
  max: Float64Array;
  mean: Float64Array;
  count: Float64Array;
}

/**
 * Reads a stored reduced copy: big-endian float8 length, bucket, then min, max, mean and count
 * arrays of ceil(length / bucket) each. Null when the bytes do not have that shape.
 */
export function decodeSeriesRollup(bytes: Uint8Array): SeriesRollup | null {
  if (bytes.byteLength < 16 || bytes.byteLength % 8 !== 0) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getFloat64(0);
  const bucket = view.getFloat64(8);
  if (!Number.isInteger(length) || !Number.isInteger(bucket) || length < 0 || bucket < 1) return null;
  const n = Math.ceil(length / bucket);
  if (bytes.byteLength !== 16 + n * 32) return null;
  const read = (part: number) => {
    const out = new Float64Array(n);
    const base = 16 + part * n * 8;
    for (let i = 0; i < n; i++) out[i] = view.getFloat64(base + i * 8);
    return out;
  };
  return { length, bucket, min: read(0), max: read(1), mean: read(2), count: read(3) };
}

/** The reduced copy of a series, computed as the database computes it (for checks and tests). */
export function rollupSeries(values: readonly (number | null)[], maxPoints = SERIES_ROLLUP_POINTS): SeriesRollup {
  const bucket = Math.max(1, Math.ceil(values.length / Math.max(1, maxPoints)));
  const n = Math.ceil(values.length / bucket);
  const min = new Float64Array(n).fill(Number.NaN);
  const max = new Float64Array(n).fill(Number.NaN);
  const mean = new Float64Array(n).fill(Number.NaN);
  const count = new Float64Array(n);
  const sum = new Float64Array(n);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined || !Number.isFinite(v)) continue;
    const k = Math.floor(i / bucket);
    const c = count[k] ?? 0;
    if (c === 0 || v < (min[k] ?? 0)) min[k] = v;
    if (c === 0 || v > (max[k] ?? 0)) max[k] = v;
    sum[k] = (sum[k] ?? 0) + v;
    count[k] = c + 1;
  }
  for (let k = 0; k < n; k++) if ((count[k] ?? 0) > 0) mean[k] = (sum[k] ?? 0) / (count[k] ?? 1);
  return { length: values.length, bucket, min, max, mean, count };
}

/**
 * Reduces a stored reduced copy into chart buckets, like `reduceInto` does with samples. Each
 * stored point lands in the chart bucket of its first sample: when the stored bucket (in chart
 * intervals) divides the chart's, the result is the one the samples give (the maximum exactly, the
 * mean up to rounding); otherwise a stored point's samples are charted at most one point early.
 */
function reduceRollupInto(
  rollup: SeriesRollup,
  stretch: number,
  length: number,
  bucket: number,
  buckets: number,
  peak: boolean,
): (number | null)[] {
  const sum = new Float64Array(buckets);
  const count = new Float64Array(buckets);
  const max = new Float64Array(buckets).fill(Number.NEGATIVE_INFINITY);
  // A chart bucket made of exactly one stored point shows that point's own mean, unrounded.
  const parts = new Uint32Array(buckets);
  const sole = new Int32Array(buckets);
  const last = buckets - 1;
  const span = rollup.bucket * stretch;
  for (let k = 0; k < rollup.count.length; k++) {
    const c = rollup.count[k] ?? 0;
    if (!(c > 0)) continue;
    const at = k * span;
    if (at >= length) continue;
    const b = Math.min(last, Math.floor(at / bucket));
    const m = rollup.mean[k] ?? 0;
    sum[b] = (sum[b] ?? 0) + m * c;
    count[b] = (count[b] ?? 0) + c;
    parts[b] = (parts[b] ?? 0) + 1;
    sole[b] = k;
    const hi = rollup.max[k] ?? Number.NEGATIVE_INFINITY;
    if (hi > (max[b] ?? 0)) max[b] = hi;
  }
  const out: (number | null)[] = new Array(buckets);
  for (let b = 0; b < buckets; b++) {
    const n = count[b] ?? 0;
    if (n === 0) out[b] = null;
    else if (peak) out[b] = max[b] ?? null;
    else out[b] = parts[b] === 1 ? (rollup.mean[sole[b] ?? 0] ?? null) : (sum[b] ?? 0) / n;
  }
  return out;
}

/** A run's series to overlay: its samples, or the stored reduced copy of a long one. */
export type OverlayInput = Omit<SeriesInput, "metric" | "values"> &
  ({ values: readonly (number | null)[]; rollup?: undefined } | { rollup: SeriesRollup; values?: undefined });

const sampleCount = (s: OverlayInput) => (s.rollup ? s.rollup.length : s.values.length);

/**
 * The chart's axis for an overlay: its base interval, length in base intervals, and how many of
 * them make one point. Exposed so a reader can tell which reduced copies are fine enough.
 */
export function overlayGeometry(series: readonly (OverlayInput | null)[], maxPoints = 600) {
  const present = series.filter((s): s is OverlayInput => s !== null && sampleCount(s) > 0);
  if (present.length === 0) return null;
  const intervalMs = Math.min(...present.map((s) => safeInterval(s.intervalMs)));
  const length = Math.max(
    ...present.map((s) => Math.round((sampleCount(s) * safeInterval(s.intervalMs)) / intervalMs)),
  );
  const bucket = bucketSize(length, maxPoints);
  const buckets = Math.min(Math.ceil(length / bucket), Math.max(1, maxPoints));
  return { intervalMs, length, bucket, buckets };
}

/**
 * Whether a stored reduced copy can chart a run on this axis: its buckets, in the axis' base
 * intervals, are no wider than the axis' points. When they also divide the axis' bucket the
 * chart is the one the samples give; otherwise some samples are charted one point early.
 */
export function rollupFineEnough(
  rollup: SeriesRollup,
  intervalMs: number,
  geometry: { intervalMs: number; bucket: number },
): boolean {
  const stretch = Math.max(1, Math.round(safeInterval(intervalMs) / geometry.intervalMs));
  return rollup.bucket * stretch <= geometry.bucket;
}

/**
 * One metric of several runs overlaid by time since each run's own start; keys are run ids. A run
 * may bring the stored reduced copy of a long series instead of its samples (see `rollupFineEnough`).
 */
export function overlaySeries(
  metric: string,
  runs: readonly { runId: string; series: OverlayInput | null }[],
  maxPoints = 600,
): ChartPoint[] {
  const geometry = overlayGeometry(
    runs.map((r) => r.series),
    maxPoints,
  );
  if (!geometry) return [];
  const { intervalMs, length, bucket, buckets } = geometry;
  const points: ChartPoint[] = Array.from({ length: buckets }, (_, i) => ({ t: (i * bucket * intervalMs) / 1000 }));
  const peak = keepsPeak(metric);
  for (const r of runs) {
    const s = r.series;
    const stretch = s ? Math.max(1, Math.round(safeInterval(s.intervalMs) / intervalMs)) : 1;
    const reduced = s?.rollup
      ? reduceRollupInto(s.rollup, stretch, length, bucket, buckets, peak)
      : reduceInto(s?.values ?? [], 0, stretch, length, bucket, buckets, peak);
    reduced.forEach((v, b) => {
      (points[b] as Record<string, number | null>)[r.runId] = v;
    });
  }
  return points;
}

function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 CSV with CRLF line ends. */
export function toCsv(rows: readonly (readonly (string | number | boolean | null | undefined)[])[]): string {
  return `${rows.map((r) => r.map(csvCell).join(",")).join("\r\n")}\r\n`;
}
