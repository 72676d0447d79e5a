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

/** One metric of several runs overlaid by time since each run's own start; keys are run ids. */
export function overlaySeries(
  metric: string,
  runs: readonly { runId: string; series: Omit<SeriesInput, "metric"> | null }[],
  maxPoints = 600,
): ChartPoint[] {
  const present = runs.filter((r) => r.series && r.series.values.length > 0);
  if (present.length === 0) return [];
  const intervalMs = Math.min(...present.map((r) => safeInterval(r.series!.intervalMs)));
  const length = Math.max(
    ...present.map((r) => Math.round((r.series!.values.length * safeInterval(r.series!.intervalMs)) / intervalMs)),
  );
  const bucket = bucketSize(length, maxPoints);
  const buckets = Math.min(Math.ceil(length / bucket), Math.max(1, maxPoints));
  const points: ChartPoint[] = Array.from({ length: buckets }, (_, i) => ({ t: (i * bucket * intervalMs) / 1000 }));
  const peak = keepsPeak(metric);
  for (const r of runs) {
    const s = r.series;
    const stretch = s ? Math.max(1, Math.round(safeInterval(s.intervalMs) / intervalMs)) : 1;
    const reduced = reduceInto(s?.values ?? [], 0, stretch, length, bucket, buckets, peak);
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
