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

function reduce(values: readonly (number | null)[], peak: boolean): number | null {
  let sum = 0;
  let count = 0;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue;
    sum += v;
    count++;
    if (v > max) max = v;
  }
  if (count === 0) return null;
  return peak ? max : sum / count;
}

/** How many raw intervals go into one chart point so that at most `maxPoints` remain. */
export function bucketSize(length: number, maxPoints: number): number {
  return Math.max(1, Math.ceil(length / Math.max(1, maxPoints)));
}

const ms = (d: number | Date) => (d instanceof Date ? d.getTime() : d);

/**
 * One run's series on one time axis: `t` is seconds since the earliest series start, one point
 * per (possibly reduced) interval, null where a metric has no sample.
 */
export function alignSeries(
  series: readonly SeriesInput[],
  maxPoints = 900,
): { intervalMs: number; points: ChartPoint[] } {
  if (series.length === 0) return { intervalMs: 1000, points: [] };
  const intervalMs = Math.min(...series.map((s) => s.intervalMs));
  const t0 = Math.min(...series.map((s) => ms(s.start)));
  const length = Math.max(
    ...series.map(
      (s) => Math.round((ms(s.start) - t0) / intervalMs) + Math.round((s.values.length * s.intervalMs) / intervalMs),
    ),
  );
  const bucket = bucketSize(length, maxPoints);
  const buckets = Math.ceil(length / bucket);
  const points: ChartPoint[] = Array.from({ length: buckets }, (_, i) => ({ t: (i * bucket * intervalMs) / 1000 }));
  for (const s of series) {
    const offset = Math.round((ms(s.start) - t0) / intervalMs);
    const stretch = Math.max(1, Math.round(s.intervalMs / intervalMs));
    const raw: (number | null)[] = new Array(length).fill(null);
    s.values.forEach((v, i) => {
      const at = offset + i * stretch;
      if (at < length) raw[at] = v;
    });
    const peak = keepsPeak(s.metric);
    for (let b = 0; b < buckets; b++) {
      (points[b] as Record<string, number | null>)[s.metric] = reduce(raw.slice(b * bucket, (b + 1) * bucket), peak);
    }
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
  const intervalMs = Math.min(...present.map((r) => r.series!.intervalMs));
  const length = Math.max(
    ...present.map((r) => Math.round((r.series!.values.length * r.series!.intervalMs) / intervalMs)),
  );
  const bucket = bucketSize(length, maxPoints);
  const buckets = Math.ceil(length / bucket);
  const points: ChartPoint[] = Array.from({ length: buckets }, (_, i) => ({ t: (i * bucket * intervalMs) / 1000 }));
  const peak = keepsPeak(metric);
  for (const r of runs) {
    const s = r.series;
    const raw: (number | null)[] = new Array(length).fill(null);
    if (s) {
      const stretch = Math.max(1, Math.round(s.intervalMs / intervalMs));
      s.values.forEach((v, i) => {
        if (i * stretch < length) raw[i * stretch] = v;
      });
    }
    for (let b = 0; b < buckets; b++) {
      (points[b] as Record<string, number | null>)[r.runId] = reduce(raw.slice(b * bucket, (b + 1) * bucket), peak);
    }
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
