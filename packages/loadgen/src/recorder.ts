import {
  createHistogram,
  type EngineProgress,
  encodeHistogram,
  type LatencyHistogram,
  type LlmProgress,
  recordMicros,
  summarizeMergeable,
  type TErrorEntry,
  type TSeries,
  type TStageStat,
} from "@benchboard/core";
import { encodeHistogramFast } from "./histogram-encode";
import { parseServerTiming } from "./server-timing";
import { DEFAULT_CHECKPOINT_MS, type EngineResult } from "./types";

export const SERIES_INTERVAL_MS = 1000;
/** Distinct error messages kept per run; the rest fold into one entry so a noisy target can't grow memory. */
const MAX_ERROR_KEYS = 200;
const MAX_STAGES = 64;

/**
 * Counters that add across shards. Metric-named keys (`requests`, `rps`, …) become metrics as
 * they are; the others are the numerators and denominators of averages, so that averages of
 * merged shards are exact too.
 */
export type Counters = Record<string, number>;

const SUMMED_METRICS = [
  "requests",
  "success",
  "failed",
  "rps",
  "target_rps",
  "messages",
  "throughput",
  "failed_connections",
  "completed_rps",
  "expected_deliveries",
  "lost_deliveries",
  "output_tokens",
] as const;

/** What an engine says about its run when the recorder builds the result. */
interface ResultOptions {
  startedAt: Date;
  endedAt: Date;
  canceled: boolean;
  runtimeMs: number;
  invalidReasons?: string[];
  extra?: Record<string, unknown>;
}

/**
 * Collects everything an engine measures: the run's latency histogram, one histogram per
 * second for per-interval percentiles, count series, status and error breakdown, byte sizes
 * and Server-Timing stages. Engines call it on their hot path, so recording is allocation-free
 * except when a new second starts.
 *
 * Each latency is recorded twice, into the run's histogram and the second's, rather than adding
 * the second's histogram to the run's when it closes: that addition walks every bucket in
 * JavaScript and held an open model's event loop for 3–6 ms once a second (measured), which
 * made the sends due meanwhile late — the generator's delay counted as the target's. Two
 * records cost about 50 ns more per request.
 *
 * Series intervals are aligned to whole epoch seconds (the first one is partial), so that
 * shards started at different moments line up second by second when merged.
 */
export class Recorder {
  readonly latency: LatencyHistogram = createHistogram();
  readonly counters: Counters = {
    requests: 0,
    success: 0,
    failed: 0,
    req_bytes_total: 0,
    req_bytes_count: 0,
    res_bytes_total: 0,
    res_bytes_count: 0,
  };
  readonly statusCounts: Record<string, number> = {};
  private readonly errors = new Map<string, TErrorEntry>();
  private readonly extraHistograms = new Map<string, LatencyHistogram>();
  /** Extra histograms also kept per second (`ttft`, `itl`): p50/p99 series of their own. */
  private readonly perSecond = new Map<string, PerSecondPercentiles>();
  private readonly countSeries = new Map<string, number[]>();
  private readonly interval: LatencyHistogram = createHistogram();
  private intervalIndex = 0;
  private readonly intervalEncoded: (string | null)[] = [];
  private readonly intervalP50: (number | null)[] = [];
  private readonly intervalP90: (number | null)[] = [];
  private readonly intervalP99: (number | null)[] = [];
  private readonly startPerf: number;
  private readonly seriesStartEpochMs: number;
  private readonly offsetMs: number;
  private finished = false;

  /** Create at the start of measurement (after any warm-up): `startPerf` is the zero of every series. */
  /** The `rps` series, held directly because every request adds to it. */
  private readonly rpsValues: number[] = [];

  constructor(countSeriesKeys: readonly string[] = ["rps", "errors"], startPerf = performance.now()) {
    this.countSeries.set("rps", this.rpsValues);
    for (const key of countSeriesKeys) if (key !== "rps") this.countSeries.set(key, []);
    const epochMs = performance.timeOrigin + startPerf;
    this.seriesStartEpochMs = Math.floor(epochMs / SERIES_INTERVAL_MS) * SERIES_INTERVAL_MS;
    this.offsetMs = epochMs - this.seriesStartEpochMs;
    this.startPerf = startPerf;
  }

  get startedAtPerf(): number {
    return this.startPerf;
  }

  elapsedMs(nowPerf = performance.now()): number {
    return nowPerf - this.startPerf;
  }

  secondOf(nowPerf: number): number {
    const s = Math.floor((nowPerf - this.startPerf + this.offsetMs) / SERIES_INTERVAL_MS);
    return s > 0 ? s : 0;
  }

  /**
   * Record a latency sample (µs) observed at `nowPerf`, into the run's histogram and the
   * current second's.
   */
  recordLatency(nowPerf: number, micros: number): void {
    const second = this.secondOf(nowPerf);
    if (second > this.intervalIndex) this.rollTo(second);
    recordMicros(this.interval, micros);
    recordMicros(this.latency, micros);
  }

  /**
   * One answered request, as the HTTP engines record it on their hot path: counts it in the
   * `rps` series, records its latency (µs) and its status, finding the second once. The same
   * as `count("rps", nowPerf)`, `status(code)` and `recordLatency(nowPerf, micros)`.
   */
  response(nowPerf: number, micros: number, code: number): void {
    const second = this.secondOf(nowPerf);
    const rps = this.rpsValues;
    if (second < rps.length) rps[second] = rps[second]! + 1;
    else addAt(rps, second, 1);
    if (second > this.intervalIndex) this.rollTo(second);
    recordMicros(this.interval, micros);
    recordMicros(this.latency, micros);
    this.statusCounts[code] = (this.statusCounts[code] ?? 0) + 1;
  }

  /** Add to a per-second count series (`rps`, `errors`, `throughput`, …). */
  count(key: string, nowPerf: number, n = 1): void {
    let values = key === "rps" ? this.rpsValues : this.countSeries.get(key);
    if (!values) {
      values = [];
      this.countSeries.set(key, values);
    }
    addAt(values, this.secondOf(nowPerf), n);
  }

  add(counter: string, n = 1): void {
    this.counters[counter] = (this.counters[counter] ?? 0) + n;
  }

  status(code: number): void {
    // A numeric key is an element index: no string per request, and "200" is the same key.
    this.statusCounts[code] = (this.statusCounts[code] ?? 0) + 1;
  }

  error(kind: string, message: string, status?: number, n = 1): void {
    let key = `${kind}|${status ?? ""}|${message}`;
    if (!this.errors.has(key) && this.errors.size >= MAX_ERROR_KEYS) {
      key = `${kind}|${status ?? ""}|(other messages)`;
      message = "(other messages)";
    }
    const entry = this.errors.get(key);
    if (entry) entry.count += n;
    else this.errors.set(key, { kind, message, count: n, ...(status !== undefined ? { status } : {}) });
  }

  /** A named extra histogram to record into directly on a hot path (µs, with `recordMicros`). */
  extraHistogram(name: string): LatencyHistogram {
    let h = this.extraHistograms.get(name);
    if (!h) {
      h = createHistogram();
      this.extraHistograms.set(name, h);
    }
    return h;
  }

  /**
   * Record into a named extra histogram and into that second's histogram of the same name, so
   * the result carries `<name>_p50` and `<name>_p99` per-second series beside the run's figures.
   */
  recordExtraAt(name: string, micros: number, nowPerf: number): void {
    this.recordExtra(name, micros);
    let entry = this.perSecond.get(name);
    if (!entry) {
      entry = { current: createHistogram(), second: this.secondOf(nowPerf), p50: [], p99: [] };
      this.perSecond.set(name, entry);
    }
    const second = this.secondOf(nowPerf);
    if (second > entry.second) closePerSecond(entry, second);
    recordMicros(entry.current, micros);
  }

  /** Record into a named extra histogram (`ttft`, `itl`, `stage.<name>`), in µs. */
  recordExtra(name: string, micros: number): void {
    let h = this.extraHistograms.get(name);
    if (!h) {
      h = createHistogram();
      this.extraHistograms.set(name, h);
    }
    recordMicros(h, micros);
  }

  serverTiming(header: string): void {
    for (const entry of parseServerTiming(header)) {
      if (entry.dur === undefined || entry.dur < 0) continue;
      const key = `stage.${entry.name}`;
      if (!this.extraHistograms.has(key) && this.stageCount() >= MAX_STAGES) continue;
      // Per second too, so a stage that slows over the run shows as the target's own trend.
      this.recordExtraAt(key, entry.dur * 1000, performance.now());
    }
  }

  private stageCount(): number {
    let n = 0;
    for (const k of this.extraHistograms.keys()) if (k.startsWith("stage.")) n++;
    return n;
  }

  /**
   * An LLM run's figures so far: TTFT and inter-token percentiles from the running `ttft` and
   * `itl` histograms (ms), and the pooled per-client output rate (`decode_tokens / decode_s`).
   */
  llmProgress(): LlmProgress {
    const pct = (name: string, p: number) => {
      const h = this.extraHistograms.get(name);
      return h && h.totalCount > 0 ? h.getValueAtPercentile(p) / 1000 : null;
    };
    const decodeS = this.counters.decode_s ?? 0;
    const lastSecond = this.secondOf(performance.now()) - 1;
    const lastOf = (name: string, which: "p50" | "p99") => {
      const entry = this.perSecond.get(name);
      return entry && lastSecond >= 0 ? (entry[which][lastSecond] ?? null) : null;
    };
    return {
      intervalTtftP50Ms: lastOf("ttft", "p50"),
      intervalTtftP99Ms: lastOf("ttft", "p99"),
      intervalItlP50Ms: lastOf("itl", "p50"),
      intervalItlP99Ms: lastOf("itl", "p99"),
      ttftP50Ms: pct("ttft", 50),
      ttftP99Ms: pct("ttft", 99),
      itlP50Ms: pct("itl", 50),
      itlP99Ms: pct("itl", 99),
      tokensPerS: decodeS > 0 ? (this.counters.decode_tokens ?? 0) / decodeS : null,
    };
  }

  /** The generator's own figures so far, for live progress (open model). */
  generatorProgress(): { sendLagP99Ms?: number | null; connectionWaitP99Ms?: number | null } {
    const pct = (name: string) => {
      const h = this.extraHistograms.get(name);
      return h && h.totalCount > 0 ? h.getValueAtPercentile(99) / 1000 : null;
    };
    return { sendLagP99Ms: pct("send_lag"), connectionWaitP99Ms: pct("connection_wait") };
  }

  /** Close every interval before the one containing `nowPerf` (call about once a second). */
  tick(nowPerf = performance.now()): void {
    const second = this.secondOf(nowPerf);
    if (second > this.intervalIndex) this.rollTo(second);
    for (const entry of this.perSecond.values()) if (second > entry.second) closePerSecond(entry, second);
  }

  private rollTo(second: number): void {
    this.closeInterval();
    while (this.intervalEncoded.length < second) this.pushInterval(null, null, null, null);
    this.intervalIndex = second;
  }

  private closeInterval(): void {
    if (this.interval.totalCount > 0) {
      const h = this.interval;
      this.pushInterval(
        encodeHistogramFast(h),
        h.getValueAtPercentile(50) / 1000,
        h.getValueAtPercentile(90) / 1000,
        h.getValueAtPercentile(99) / 1000,
      );
      h.reset();
    } else {
      this.pushInterval(null, null, null, null);
    }
  }

  private pushInterval(encoded: string | null, p50: number | null, p90: number | null, p99: number | null): void {
    this.intervalEncoded.push(encoded);
    this.intervalP50.push(p50);
    this.intervalP90.push(p90);
    this.intervalP99.push(p99);
  }

  progress(nowPerf: number, fraction: number | null): EngineProgress {
    const elapsedMs = this.elapsedMs(nowPerf);
    const requests = this.counters.requests ?? 0;
    const latency = this.latency.totalCount > 0 ? this.latency : null;
    // The rate of the last complete second reads better live than the run's average.
    const rpsSeries = this.countSeries.get("rps") ?? [];
    const lastSecond = this.secondOf(nowPerf) - 1;
    const rps = lastSecond >= 0 ? (rpsSeries[lastSecond] ?? 0) : requests / Math.max(0.001, elapsedMs / 1000);
    return {
      intervalP50Ms: lastSecond >= 0 ? (this.intervalP50[lastSecond] ?? null) : null,
      intervalP99Ms: lastSecond >= 0 ? (this.intervalP99[lastSecond] ?? null) : null,
      elapsedMs,
      fraction: fraction === null ? null : Math.min(1, Math.max(0, fraction)),
      requests,
      errors: this.counters.failed ?? 0,
      rps,
      latencyP50Ms: latency ? latency.getValueAtPercentile(50) / 1000 : null,
      latencyP99Ms: latency ? latency.getValueAtPercentile(99) / 1000 : null,
    };
  }

  /**
   * Close the series at `endPerf` and build the result. `counters` should by now hold the
   * engine's rate figures (`rps`, `target_rps`, …) so they add across shards.
   */
  finish(endPerf: number, opts: ResultOptions): EngineResult {
    if (!this.finished) {
      this.finished = true;
      this.tick(endPerf);
      this.closeInterval();
      for (const entry of this.perSecond.values()) closePerSecond(entry, entry.second + 1);
    }
    return this.build(opts);
  }

  /**
   * The result so far, without ending the recording: what a checkpoint stores so that a run
   * whose worker dies keeps what it measured. The second in progress is left out.
   */
  snapshot(nowPerf: number, opts: Omit<ResultOptions, "extra">): EngineResult {
    if (!this.finished) this.tick(nowPerf);
    return this.build(opts);
  }

  private build(opts: ResultOptions): EngineResult {
    let length = this.intervalEncoded.length;
    for (const values of this.countSeries.values()) length = Math.max(length, values.length);
    const start = this.seriesStartEpochMs;
    const series: Record<string, TSeries> = {};
    for (const [key, values] of this.countSeries) {
      series[key] = { start, intervalMs: SERIES_INTERVAL_MS, values: padArray(values, length, 0) };
    }
    series.latency_p50 = { start, intervalMs: SERIES_INTERVAL_MS, values: padArray(this.intervalP50, length, null) };
    series.latency_p90 = { start, intervalMs: SERIES_INTERVAL_MS, values: padArray(this.intervalP90, length, null) };
    series.latency_p99 = { start, intervalMs: SERIES_INTERVAL_MS, values: padArray(this.intervalP99, length, null) };
    for (const [name, entry] of this.perSecond) {
      series[`${name}_p50`] = { start, intervalMs: SERIES_INTERVAL_MS, values: padArray(entry.p50, length, null) };
      series[`${name}_p99`] = { start, intervalMs: SERIES_INTERVAL_MS, values: padArray(entry.p99, length, null) };
    }

    const histograms: Record<string, string> = {};
    for (const [key, h] of this.extraHistograms) if (h.totalCount > 0) histograms[key] = encodeHistogram(h);

    const invalidReasons = opts.invalidReasons ?? [];
    const { metrics, stages } = deriveMetrics(this.counters, this.latency, this.extraHistograms);
    metrics.runtime_ms = opts.runtimeMs;
    return {
      startedAt: opts.startedAt,
      endedAt: opts.endedAt,
      canceled: opts.canceled,
      metrics,
      histogram: this.latency.totalCount > 0 ? encodeHistogram(this.latency) : undefined,
      histograms,
      intervalHistograms: {
        start,
        intervalMs: SERIES_INTERVAL_MS,
        values: padArray(this.intervalEncoded, length, null),
      },
      statusCounts: { ...this.statusCounts },
      errors: [...this.errors.values()].sort((a, b) => b.count - a.count),
      stages,
      valid: invalidReasons.length === 0,
      invalidReasons,
      saturationReasons: [],
      series,
      extra: {
        ...opts.extra,
        ...stepSummaries(this.counters, this.extraHistograms),
        counters: { ...this.counters },
      },
    };
  }
}

interface PerSecondPercentiles {
  current: LatencyHistogram;
  /** The second `current` holds. */
  second: number;
  p50: (number | null)[];
  p99: (number | null)[];
}

/** Close the second `entry` holds (and any empty ones up to `second`), then move to `second`. */
function closePerSecond(entry: PerSecondPercentiles, second: number): void {
  while (entry.p50.length < entry.second) {
    entry.p50.push(null);
    entry.p99.push(null);
  }
  const h = entry.current;
  entry.p50[entry.second] = h.totalCount > 0 ? h.getValueAtPercentile(50) / 1000 : null;
  entry.p99[entry.second] = h.totalCount > 0 ? h.getValueAtPercentile(99) / 1000 : null;
  h.reset();
  entry.second = second;
}

/** `values[index] += n`, growing the series with zeros up to `index`. */
function addAt(values: number[], index: number, n: number): void {
  while (values.length <= index) values.push(0);
  values[index] = (values[index] ?? 0) + n;
}

function padArray<T>(values: readonly T[], length: number, fill: T): T[] {
  const out = values.slice(0, length);
  while (out.length < length) out.push(fill);
  return out;
}

/**
 * Metrics from summed counters and histograms. Used for single results and for merged shards
 * alike, so that both give the same numbers for the same samples.
 */
export function deriveMetrics(
  counters: Counters,
  latency: LatencyHistogram | null,
  extraHistograms: ReadonlyMap<string, LatencyHistogram>,
): { metrics: Record<string, number>; stages: Record<string, TStageStat> } {
  const metrics: Record<string, number> = {};
  for (const key of SUMMED_METRICS) {
    const v = counters[key];
    if (v !== undefined && Number.isFinite(v)) metrics[key] = v;
  }
  const requests = counters.requests ?? 0;
  if (requests > 0) metrics.success_rate = ((counters.success ?? 0) / requests) * 100;
  const avg = (total: string, count: string) => {
    const n = counters[count] ?? 0;
    return n > 0 ? (counters[total] ?? 0) / n : undefined;
  };
  const reqBytes = avg("req_bytes_total", "req_bytes_count");
  if (reqBytes !== undefined) metrics.req_bytes_avg = reqBytes;
  const resBytes = avg("res_bytes_total", "res_bytes_count");
  if (resBytes !== undefined) metrics.res_bytes_avg = resBytes;
  const tokensPerS = avg("decode_tokens", "decode_s");
  if (tokensPerS !== undefined) metrics.tokens_per_s = tokensPerS;
  if (latency) Object.assign(metrics, summarizeMergeable(latency) ?? {});
  const ttft = extraHistograms.get("ttft");
  if (ttft) Object.assign(metrics, summarizeMergeable(ttft, "ttft") ?? {});
  const itl = extraHistograms.get("itl");
  if (itl) Object.assign(metrics, summarizeMergeable(itl, "itl") ?? {});
  // The generator's own error (open model): due → fired, and fired → on a socket.
  const sendLag = extraHistograms.get("send_lag");
  if (sendLag && sendLag.totalCount > 0) {
    metrics.send_lag_p50 = sendLag.getValueAtPercentile(50) / 1000;
    metrics.send_lag_p99 = sendLag.getValueAtPercentile(99) / 1000;
    metrics.send_lag_max = sendLag.maxValue / 1000;
  }
  const fromSend = extraHistograms.get("from_send");
  if (fromSend && fromSend.totalCount > 0) {
    metrics.latency_from_send_p50 = fromSend.getValueAtPercentile(50) / 1000;
    metrics.latency_from_send_p99 = fromSend.getValueAtPercentile(99) / 1000;
  }
  const connectionWait = extraHistograms.get("connection_wait");
  if (connectionWait && connectionWait.totalCount > 0)
    metrics.connection_wait_p99 = connectionWait.getValueAtPercentile(99) / 1000;
  const cpuWall = counters.generator_wall_s ?? 0;
  // Cores per generator process: CPU seconds over wall seconds, both summed over shards.
  if (cpuWall > 0) metrics.generator_cpu = (counters.generator_cpu_s ?? 0) / cpuWall;

  const stages: Record<string, TStageStat> = {};
  for (const [key, h] of extraHistograms) {
    if (!key.startsWith("stage.") || h.totalCount === 0) continue;
    const meanMs = h.mean / 1000;
    stages[key.slice(6)] = {
      meanMs,
      count: h.totalCount,
      p50Ms: h.getValueAtPercentile(50) / 1000,
      p99Ms: h.getValueAtPercentile(99) / 1000,
      maxMs: (h as unknown as { highestEquivalentValue(v: number): number }).highestEquivalentValue(h.maxValue) / 1000,
    };
    metrics[key] = meanMs;
  }
  return { metrics, stages };
}

/** Per-step figures of a plan (`extra.steps`), from counters and `step.<name>` histograms. */
export function stepSummaries(
  counters: Counters,
  extraHistograms: ReadonlyMap<string, LatencyHistogram>,
): { steps?: Record<string, Record<string, number>> } {
  const steps: Record<string, Record<string, number>> = {};
  for (const [key, value] of Object.entries(counters)) {
    const m = /^step\.(.+)\.(requests|failed)$/.exec(key);
    if (!m) continue;
    const entry = steps[m[1]!] ?? {};
    entry[m[2]!] = value;
    steps[m[1]!] = entry;
  }
  for (const [key, h] of extraHistograms) {
    if (!key.startsWith("step.") || h.totalCount === 0) continue;
    const name = key.slice(5);
    steps[name] = { ...steps[name], ...summarizeMergeable(h) };
  }
  return Object.keys(steps).length > 0 ? { steps } : {};
}

/** Half of the engines' once-a-second tick. */
const CHECKPOINT_TICK_SLACK_MS = 500;

/**
 * Returns a function for an engine's once-a-second timer that hands the context a snapshot of
 * the result every `ctx.checkpointMs` (marked as partial), and does nothing without a callback.
 */
export function checkpointer(
  ctx: {
    onCheckpoint?: (partial: EngineResult) => void;
    checkpointMs?: number;
    onTick?: (counters: Readonly<Counters>, nowPerf: number) => void;
  },
  rec: Recorder,
  startedAt: Date,
): (nowPerf: number) => void {
  const every = ctx.checkpointMs ?? DEFAULT_CHECKPOINT_MS;
  let last = performance.now();
  return (nowPerf) => {
    ctx.onTick?.(rec.counters, nowPerf);
    // The timer ticks once a second and may fire a little early or late: a checkpoint is due
    // from half a tick before its time, so ticks that land just short of it do not skip a beat.
    if (!ctx.onCheckpoint || nowPerf - last < every - CHECKPOINT_TICK_SLACK_MS) return;
    last = nowPerf;
    const runtimeMs = rec.elapsedMs(nowPerf);
    ctx.onCheckpoint(
      rec.snapshot(nowPerf, {
        startedAt,
        endedAt: new Date(startedAt.getTime() + runtimeMs),
        canceled: false,
        runtimeMs,
        invalidReasons: [
          `partial result: checkpoint after ${Math.round(runtimeMs / 1000)} s; the run had not finished`,
        ],
      }),
    );
  };
}

let warmed = false;

/**
 * Run the code a second's close runs (percentiles, encoding, reset) once on a throwaway
 * histogram, so that its first real run, a second into measuring, is not also its first
 * compilation (the first close measured 14 ms cold). Engines call it before their warm-up.
 */
export function warmRecorderCode(): void {
  if (warmed) return;
  warmed = true;
  const h = createHistogram();
  for (let i = 0; i < 2000; i++) recordMicros(h, 50 + ((i * 7919) % 5000));
  for (let round = 0; round < 3; round++) {
    h.getValueAtPercentile(50);
    h.getValueAtPercentile(90);
    h.getValueAtPercentile(99);
    encodeHistogramFast(h);
  }
  summarizeMergeable(h);
  h.reset();
}
