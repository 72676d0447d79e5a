import {
  createHistogram,
  decodeHistogram,
  encodeHistogram,
  type LatencyHistogram,
  type TErrorEntry,
  type TSeries,
} from "@benchboard/core";
import { MAX_STALL_RECORDS } from "./engines/open-model";
import { type RoomStats, roomThroughputMedian } from "./engines/ws-chat";
import { type Counters, deriveMetrics, SERIES_INTERVAL_MS, stepSummaries } from "./recorder";
import type { EngineResult } from "./types";

const PER_SECOND_PERCENTILE = /_p\d+$/;

/** Series recomputed from interval histograms instead of being added. */
const PERCENTILE_SERIES: Record<string, number> = { latency_p50: 50, latency_p90: 90, latency_p99: 99 };

/**
 * Merge the results of shards that ran side by side into one result, exactly: histograms add
 * and every percentile is re-read from the merged histogram; counts and rates add; averages are
 * recomputed from summed numerators and denominators; per-second series are aligned on epoch
 * seconds and added, and per-second percentiles are re-read from merged interval histograms.
 * Nothing is averaged.
 */
export function mergeResults(results: EngineResult[]): EngineResult {
  if (results.length === 0) throw new Error("mergeResults needs at least one result");

  const latency = mergeEncoded(results.map((r) => r.histogram));
  const extraKeys = new Set(results.flatMap((r) => Object.keys(r.histograms ?? {})));
  const extraHistograms = new Map<string, LatencyHistogram>();
  for (const key of extraKeys) extraHistograms.set(key, mergeEncoded(results.map((r) => r.histograms?.[key])));

  const counters: Counters = {};
  for (const r of results) {
    for (const [k, v] of Object.entries(countersOf(r))) counters[k] = (counters[k] ?? 0) + v;
  }
  const { metrics, stages } = deriveMetrics(counters, latency.totalCount > 0 ? latency : null, extraHistograms);
  metrics.runtime_ms = Math.max(...results.map((r) => r.metrics.runtime_ms ?? 0));
  // Each shard's event loop is its own: the run shows the most held-up one.
  for (const key of ["event_loop_delay_p99", "event_loop_delay_max", "gc_pause_max", "gc_pause_share"]) {
    const values = results.map((r) => r.metrics[key]).filter((v): v is number => v !== undefined);
    if (values.length > 0) metrics[key] = Math.max(...values);
  }
  // What each shard's stalls dropped adds up; the stalls themselves are listed with their shard.
  const stallDropped = results.map((r) => r.metrics.stall_dropped).filter((v): v is number => v !== undefined);
  if (stallDropped.length > 0) metrics.stall_dropped = stallDropped.reduce((a, b) => a + b, 0);
  const stalls = results
    .flatMap((r, shard) => {
      const list = (r.extra as { schedule?: { stalls?: unknown } } | undefined)?.schedule?.stalls;
      return Array.isArray(list) ? list.map((s) => ({ ...(s as object), shard })) : [];
    })
    .slice(0, MAX_STALL_RECORDS);
  // Chat shards hold disjoint rooms: the run's rooms are all of theirs, and the median is re-read.
  const roomLists = results.map((r) => (r.extra as { rooms?: RoomStats[] } | undefined)?.rooms);
  const rooms = roomLists.every((list) => Array.isArray(list)) ? roomLists.flatMap((list) => list ?? []) : null;
  const roomMedian = rooms ? roomThroughputMedian(rooms) : null;
  if (roomMedian !== null) metrics["custom.room_throughput_median"] = roomMedian;

  const statusCounts: Record<string, number> = {};
  for (const r of results) {
    for (const [k, v] of Object.entries(r.statusCounts)) statusCounts[k] = (statusCounts[k] ?? 0) + v;
  }
  const errors = new Map<string, TErrorEntry>();
  for (const r of results) {
    for (const e of r.errors) {
      const key = `${e.kind}|${e.status ?? ""}|${e.message}`;
      const existing = errors.get(key);
      if (existing) existing.count += e.count;
      else errors.set(key, { ...e });
    }
  }

  const { series, intervalHistograms } = mergeSeries(results);
  const byShard = (reasons: (r: EngineResult) => readonly string[] | undefined) =>
    results.flatMap((r, i) =>
      (reasons(r) ?? []).map((reason) => (results.length > 1 ? `shard ${i + 1}: ${reason}` : reason)),
    );
  const invalidReasons = byShard((r) => r.invalidReasons);
  // A shard whose target was the limit makes the whole run saturated (still valid).
  const saturationReasons = byShard((r) => r.saturationReasons);
  const histograms: Record<string, string> = {};
  for (const [key, h] of extraHistograms) if (h.totalCount > 0) histograms[key] = encodeHistogram(h);

  return {
    startedAt: new Date(Math.min(...results.map((r) => r.startedAt.getTime()))),
    endedAt: new Date(Math.max(...results.map((r) => r.endedAt.getTime()))),
    canceled: results.some((r) => r.canceled),
    metrics,
    histogram: latency.totalCount > 0 ? encodeHistogram(latency) : undefined,
    histograms,
    ...(intervalHistograms ? { intervalHistograms } : {}),
    statusCounts,
    errors: [...errors.values()].sort((a, b) => b.count - a.count),
    stages,
    valid: results.every((r) => r.valid) && invalidReasons.length === 0,
    invalidReasons,
    saturationReasons,
    series,
    extra: {
      shards: results.length,
      ...stepSummaries(counters, extraHistograms),
      counters,
      ...(rooms ? { rooms } : {}),
      ...(stalls.length ? { schedule: { stalls } } : {}),
    },
  };
}

function mergeEncoded(encoded: (string | null | undefined)[]): LatencyHistogram {
  const merged = createHistogram();
  for (const e of encoded) if (e) merged.add(decodeHistogram(e));
  return merged;
}

/** Counters of a result; results from elsewhere (imports) fall back to their count metrics. */
function countersOf(r: EngineResult): Counters {
  const fromExtra = (r.extra as { counters?: Counters } | undefined)?.counters;
  if (fromExtra) return fromExtra;
  const out: Counters = {};
  for (const key of [
    "requests",
    "success",
    "failed",
    "rps",
    "target_rps",
    "messages",
    "throughput",
    "failed_connections",
  ]) {
    const v = r.metrics[key];
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function mergeSeries(results: EngineResult[]): {
  series: Record<string, TSeries>;
  intervalHistograms?: EngineResult["intervalHistograms"];
} {
  const all = results.flatMap((r) => Object.values(r.series));
  if (all.length === 0) return { series: {} };
  const interval = all[0]!.intervalMs;
  const start = Math.min(...all.map((s) => s.start));
  const slot = (s: { start: number; intervalMs: number }, i: number) =>
    Math.round((s.start + i * s.intervalMs - start) / interval);
  let length = 0;
  for (const s of all) length = Math.max(length, slot(s, s.values.length));

  const series: Record<string, TSeries> = {};
  const keys = new Set(results.flatMap((r) => Object.keys(r.series)));
  for (const key of keys) {
    if (key in PERCENTILE_SERIES) continue;
    // Per-second percentiles of other histograms (TTFT, inter-token) keep the slowest shard's.
    const slowest = PER_SECOND_PERCENTILE.test(key);
    const values: (number | null)[] = new Array(length).fill(null);
    for (const r of results) {
      const s = r.series[key];
      if (!s) continue;
      s.values.forEach((v, i) => {
        if (v === null) return;
        const at = slot(s, i);
        values[at] = slowest ? Math.max(values[at] ?? v, v) : (values[at] ?? 0) + v;
      });
    }
    series[key] = { start, intervalMs: interval, values };
  }

  // Per-second percentiles only when every shard kept its interval histograms; otherwise they
  // could only be averaged, which is wrong, so they are left out.
  if (!results.every((r) => r.intervalHistograms || r.histogram === undefined)) return { series };
  const perSecond: (LatencyHistogram | null)[] = new Array(length).fill(null);
  for (const r of results) {
    const ih = r.intervalHistograms;
    if (!ih) continue;
    ih.values.forEach((encoded, i) => {
      if (!encoded) return;
      const at = slot(ih, i);
      const h = perSecond[at] ?? createHistogram();
      h.add(decodeHistogram(encoded));
      perSecond[at] = h;
    });
  }
  for (const [key, percentile] of Object.entries(PERCENTILE_SERIES)) {
    series[key] = {
      start,
      intervalMs: interval,
      values: perSecond.map((h) => (h && h.totalCount > 0 ? h.getValueAtPercentile(percentile) / 1000 : null)),
    };
  }
  return {
    series,
    intervalHistograms: {
      start,
      intervalMs: SERIES_INTERVAL_MS,
      values: perSecond.map((h) => (h && h.totalCount > 0 ? encodeHistogram(h) : null)),
    },
  };
}
