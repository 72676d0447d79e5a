import { availableParallelism } from "node:os";
import {
  promQlKey,
  type TMonitorConfig,
  type TMonitorConfigInput,
  type TSeries,
  ZMonitorConfig,
} from "@benchboard/core";
import { describeStatus, OutboundError, type OutboundResponse, outboundRequest } from "../outbound";
import { type SafetyPolicy, STRICT_POLICY } from "../target-safety";
import { findPidByPort, processName, readProcess } from "./process";
import { parsePrometheusText, selectPrometheusValue } from "./prometheus-text";

export * from "./process";
export * from "./prometheus-text";

/** Readings of one sample, keyed by series key (`mem_bytes`, `cpu_cores`, `queue_depth`, `gauge.<name>`, …). */
export type MonitorReadings = Record<string, number | null>;

const SAMPLE_TIMEOUT_MS = 900;

interface Sampler {
  readonly label: string;
  /** Keys its readings use, known up front so that key ownership follows config order. */
  readonly keys: string[];
  sample(): Promise<MonitorReadings>;
  /**
   * Monitors that read a stored history (PromQL) are not sampled each second: they read the whole
   * window once, when the run ends, and give series aligned on `startMs`.
   */
  range?(startMs: number, endMs: number): Promise<Record<string, TSeries>>;
}

class MonitorError extends Error {
  override name = "MonitorError";
}

/** Turns a cumulative CPU-seconds counter into cores used since the previous reading. */
export class CpuRate {
  private last: { seconds: number; at: number } | null = null;
  private lastRate: number | null = null;
  /**
   * @param maxCores the most cores the process can use (the host's, for a local process): a rate
   *   above it is counter granularity or timing skew, never real, and is capped.
   * @param minSpanMs readings closer together than this are folded into the next one, because the
   *   counter advances in clock ticks (10 ms) and a short span turns one tick into a spike and the
   *   next span into a 0.
   */
  constructor(
    private readonly maxCores: number = Number.POSITIVE_INFINITY,
    private readonly minSpanMs = 200,
  ) {}

  /** `seconds`: the cumulative counter; `atMs`: a monotonic time taken when the counter was read. */
  next(seconds: number | null, atMs: number): number | null {
    const prev = this.last;
    if (seconds === null) {
      this.last = null;
      return null;
    }
    if (prev === null || seconds < prev.seconds) {
      // First reading, or a restarted process reset its counter: start over, no reading.
      this.last = { seconds, at: atMs };
      return null;
    }
    const spanMs = atMs - prev.at;
    // Too soon after the last reading: keep its baseline and repeat the last rate.
    if (spanMs < this.minSpanMs) return this.lastRate;
    this.last = { seconds, at: atMs };
    this.lastRate = Math.min(this.maxCores, (seconds - prev.seconds) / (spanMs / 1000));
    return this.lastRate;
  }
}

/** Monitor bodies are small; a larger answer is not a metrics endpoint. */
const SAMPLE_MAX_BYTES = 2 * 1024 * 1024;

/**
 * Where monitors may connect and whether local processes may be read. Process monitors read this
 * host's /proc: only a worker running the install organization's own run may do that.
 */
export interface MonitorOptions {
  policy?: SafetyPolicy;
  allowProcess?: boolean;
}

async function fetchText(
  url: string,
  init: { headers?: Record<string, string> },
  what: string,
  options: MonitorOptions,
): Promise<OutboundResponse> {
  try {
    return await outboundRequest(url, {
      headers: init.headers,
      timeoutMs: SAMPLE_TIMEOUT_MS,
      maxBytes: SAMPLE_MAX_BYTES,
      policy: options.policy ?? STRICT_POLICY,
    });
  } catch (err) {
    if (err instanceof OutboundError) throw new MonitorError(`${what} ${err.message}`);
    throw new MonitorError(`${what} unreachable`);
  }
}

/** Status and size of an unexpected answer; its body is never repeated. */
function statusOnly(what: string, res: OutboundResponse): MonitorError {
  const redirect = res.status >= 300 && res.status < 400 ? " (a redirect; redirects are not followed)" : "";
  return new MonitorError(`${what} answered HTTP ${res.status}${redirect}, ${res.body.length} bytes`);
}

class PrometheusSampler implements Sampler {
  readonly label: string;
  readonly keys: string[];
  private readonly cpu = new CpuRate();
  constructor(
    private readonly config: Extract<TMonitorConfig, { kind: "prometheus" }>,
    private readonly options: MonitorOptions,
  ) {
    this.label = `prometheus ${new URL(config.url).host}`;
    this.keys = ["mem_bytes", "cpu_cores", ...config.gauges.map((g) => `gauge.${g.name}`)];
  }

  async read() {
    const res = await fetchText(
      this.config.url,
      { headers: { accept: "text/plain;version=0.0.4" } },
      "metrics endpoint",
      this.options,
    );
    if (res.status !== 200) throw statusOnly("metrics endpoint", res);
    return parsePrometheusText(res.body.toString("utf8"));
  }

  async sample(): Promise<MonitorReadings> {
    const parsed = await this.read();
    // The counter is read when the endpoint answers, so the span is measured from the answers.
    const now = performance.now();
    const out: MonitorReadings = {
      mem_bytes: selectPrometheusValue(parsed.samples, this.config.memoryMetric),
      cpu_cores: this.cpu.next(selectPrometheusValue(parsed.samples, this.config.cpuMetric), now),
    };
    for (const g of this.config.gauges) {
      out[`gauge.${g.name}`] = selectPrometheusValue(parsed.samples, g.metric, g.labels);
    }
    return out;
  }
}

/** Prometheus answers at most 11,000 points per series; a longer window takes a coarser step. */
export const PROMQL_MAX_POINTS = 11_000;
const PROMQL_TIMEOUT_MS = 10_000;
const PROMQL_MAX_BYTES = 4 * 1024 * 1024;
/** History monitors are read for the live page once every this many intervals. */
const RANGE_LIVE_EVERY = 5;

/** Printable, short: an error text from the endpoint, never more of its answer. */
function shortText(v: unknown, max = 200): string | null {
  if (typeof v !== "string") return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const clean = v.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  if (clean === "") return null;
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** `query_range` over a window; the one series it gives becomes the monitor's series. */
class PromQlSampler implements Sampler {
  readonly label: string;
  readonly keys: string[];
  private readonly key: string;
  constructor(
    private readonly config: Extract<TMonitorConfig, { kind: "promql" }>,
    private readonly options: MonitorOptions,
  ) {
    this.label = `promql ${new URL(config.url).host}`;
    this.key = promQlKey(config);
    this.keys = [this.key];
  }

  /** Step in seconds for a window: the configured one, coarsened to stay within the point limit. */
  stepFor(spanS: number): number {
    const min = Math.max(1, Math.ceil(spanS / (PROMQL_MAX_POINTS - 1)));
    return Math.max(this.config.stepSeconds ?? 1, min);
  }

  /** Raw matrix of one series: `[epochSeconds, value]` pairs. */
  async query(startS: number, endS: number, step: number): Promise<{ points: [number, number | null][] }> {
    const base = this.config.url.replace(/\/+$/, "");
    const params = new URLSearchParams({
      query: this.config.query,
      start: String(startS),
      end: String(endS),
      step: String(step),
    });
    const url = `${base}/api/v1/query_range?${params.toString()}`;
    let res: OutboundResponse;
    try {
      res = await outboundRequest(url, {
        headers: { accept: "application/json" },
        timeoutMs: PROMQL_TIMEOUT_MS,
        maxBytes: PROMQL_MAX_BYTES,
        policy: this.options.policy ?? STRICT_POLICY,
      });
    } catch (err) {
      if (err instanceof OutboundError) throw new MonitorError(`url: Prometheus query API ${err.message}`);
      throw new MonitorError("url: Prometheus query API unreachable");
    }
    let body: unknown;
    try {
      body = JSON.parse(res.body.toString("utf8"));
    } catch {
      if (res.status !== 200) throw new MonitorError(`url: Prometheus query API ${describeStatus(res)}`);
      throw new MonitorError(
        `url: Prometheus query API answered with something other than JSON (${res.body.length} bytes)`,
      );
    }
    const answer = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
    if (answer.status === "error") {
      const type = shortText(answer.errorType, 40);
      const text = shortText(answer.error);
      throw new MonitorError(
        `query: Prometheus refused the expression${type ? ` (${type})` : ""}${text ? `: ${text}` : ""}`,
      );
    }
    if (res.status !== 200 || answer.status !== "success") {
      throw new MonitorError(`url: Prometheus query API ${describeStatus(res)}, not a query_range answer`);
    }
    const data = (answer.data && typeof answer.data === "object" ? answer.data : {}) as Record<string, unknown>;
    if (data.resultType !== "matrix" || !Array.isArray(data.result)) {
      throw new MonitorError("url: Prometheus query API answered without a matrix result");
    }
    if (data.result.length === 0) {
      throw new MonitorError("query: no series for the run's window (check the expression and its labels)");
    }
    if (data.result.length > 1) {
      throw new MonitorError(
        `query: gave ${data.result.length} series; it must give one (aggregate it, e.g. sum(…) or max(…))`,
      );
    }
    const values = (data.result[0] as { values?: unknown }).values;
    if (!Array.isArray(values)) throw new MonitorError("url: Prometheus query API answered a series without values");
    if (values.length > PROMQL_MAX_POINTS) {
      throw new MonitorError(`query: gave ${values.length} points; at most ${PROMQL_MAX_POINTS} are read`);
    }
    const points: [number, number | null][] = [];
    for (const pair of values) {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "number" || typeof pair[1] !== "string") {
        throw new MonitorError('url: Prometheus query API answered a point that is not [time, "value"]');
      }
      const v = Number(pair[1]);
      points.push([pair[0], Number.isFinite(v) ? v : null]);
    }
    return { points };
  }

  async range(startMs: number, endMs: number): Promise<Record<string, TSeries>> {
    const startS = Math.floor(startMs / 1000);
    const endS = Math.max(startS, Math.floor(endMs / 1000));
    const step = this.stepFor(endS - startS);
    const { points } = await this.query(startS, endS, step);
    const values: (number | null)[] = new Array(Math.floor((endS - startS) / step) + 1).fill(null);
    for (const [t, v] of points) {
      const slot = Math.round((t - startS) / step);
      if (slot >= 0 && slot < values.length) values[slot] = v;
    }
    return { [this.key]: { start: startS * 1000, intervalMs: step * 1000, values } };
  }

  /** The latest value of the last minute, for a connection test. */
  async sample(): Promise<MonitorReadings> {
    const endS = Math.floor(Date.now() / 1000);
    const { points } = await this.query(endS - 60, endS, 5);
    const last = points.filter((p) => p[1] !== null).at(-1);
    return { [this.key]: last ? last[1] : null };
  }
}

class RabbitMqSampler implements Sampler {
  readonly label: string;
  readonly keys: string[];
  private readonly auth: string;
  constructor(
    private readonly config: Extract<TMonitorConfig, { kind: "rabbitmq" }>,
    private readonly options: MonitorOptions,
  ) {
    this.label = `rabbitmq ${new URL(config.url).host}`;
    this.keys = [
      "queue_depth",
      ...config.queues.flatMap((q) => [`queue_depth.${q}`, `queue_ready.${q}`, `queue_unacked.${q}`]),
    ];
    this.auth = `Basic ${Buffer.from(`${config.username}:${config.password}`).toString("base64")}`;
  }

  async readQueue(queue: string): Promise<{ messages: number | null; ready: number | null; unacked: number | null }> {
    const base = this.config.url.replace(/\/+$/, "");
    const url = `${base}/api/queues/${encodeURIComponent(this.config.vhost)}/${encodeURIComponent(queue)}`;
    const res = await fetchText(url, { headers: { authorization: this.auth } }, "management API", this.options);
    if (res.status === 401) throw new MonitorError("management API refused the credentials (HTTP 401)");
    if (res.status === 404) throw new MonitorError(`queue ${queue} not found in vhost ${this.config.vhost}`);
    if (res.status !== 200) throw statusOnly("management API", res);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(res.body.toString("utf8")) as Record<string, unknown>;
    } catch {
      throw new MonitorError(`management API answered with something other than JSON (${res.body.length} bytes)`);
    }
    if (!body || typeof body !== "object") throw new MonitorError("management API answered with an unexpected shape");
    const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
    return {
      messages: num(body.messages),
      ready: num(body.messages_ready),
      unacked: num(body.messages_unacknowledged),
    };
  }

  async sample(): Promise<MonitorReadings> {
    const queues = await Promise.all(this.config.queues.map((q) => this.readQueue(q)));
    const out: MonitorReadings = {};
    let total = 0;
    let any = false;
    this.config.queues.forEach((q, i) => {
      const r = queues[i]!;
      out[`queue_depth.${q}`] = r.messages;
      out[`queue_ready.${q}`] = r.ready;
      out[`queue_unacked.${q}`] = r.unacked;
      if (r.messages !== null) {
        total += r.messages;
        any = true;
      }
    });
    // Stats of a new queue appear a few seconds after it exists: missing, not zero.
    out.queue_depth = any ? total : null;
    return out;
  }
}

class ProcessSampler implements Sampler {
  readonly label: string;
  readonly keys = ["mem_bytes", "cpu_cores"];
  // A local process cannot use more than this host's cores.
  private readonly cpu = new CpuRate(availableParallelism());
  private pid: number | null;
  constructor(
    private readonly config: Extract<TMonitorConfig, { kind: "process" }>,
    private readonly options: MonitorOptions,
  ) {
    this.pid = config.pid ?? null;
    this.label = config.pid !== undefined ? `process ${config.pid}` : `process on port ${config.port}`;
  }

  async resolvePid(): Promise<number> {
    if (!this.options.allowProcess) {
      throw new MonitorError(
        "process monitors run only inside a worker, for the install's own organization (they read the worker host's processes)",
      );
    }
    if (this.pid !== null) return this.pid;
    const port = this.config.port!;
    const pid = await findPidByPort(port);
    if (pid === null) throw new MonitorError(`no local process listens on port ${port}`);
    this.pid = pid;
    return pid;
  }

  async sample(): Promise<MonitorReadings> {
    const pid = await this.resolvePid();
    let reading: Awaited<ReturnType<typeof readProcess>>;
    // The time the counter is read, on the monotonic clock, not when the read's promise settles.
    const readAt = performance.now();
    try {
      reading = await readProcess(pid);
    } catch {
      // Found by port: the target may have restarted under a new pid.
      if (this.config.pid === undefined) this.pid = null;
      throw new MonitorError(`process ${pid} is gone`);
    }
    return { mem_bytes: reading.rssBytes, cpu_cores: this.cpu.next(reading.cpuSeconds, readAt) };
  }
}

function createSampler(config: TMonitorConfig, options: MonitorOptions): Sampler {
  switch (config.kind) {
    case "prometheus":
      return new PrometheusSampler(config, options);
    case "rabbitmq":
      return new RabbitMqSampler(config, options);
    case "process":
      return new ProcessSampler(config, options);
    case "promql":
      return new PromQlSampler(config, options);
  }
}

function parseConfig(input: TMonitorConfigInput | TMonitorConfig, index: number): TMonitorConfig {
  const parsed = ZMonitorConfig.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MonitorError(`monitors.${index}.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid monitor"}`);
  }
  return parsed.data;
}

export interface MonitorRunResult {
  /** Series per key, aligned on whole epoch seconds like the engines' series. */
  series: Record<string, TSeries>;
  /** `mem_peak_bytes`, `mem_avg_bytes`, `cpu_peak`, `queue_depth_peak` (when measured). */
  metrics: Record<string, number>;
  /** Distinct sampling failures with how often they happened, e.g. an unreachable endpoint. */
  errors: { monitor: string; message: string; count: number }[];
  samples: number;
}

export interface MonitorHandle {
  /** The most recent reading of each key (for live display), null where the last sample failed. */
  latest(): Record<string, number | null>;
  /**
   * What was sampled so far, sampling going on: the per-second series and history monitors'
   * window read up to now. A checkpoint carries it, so the run keeps its monitors' series when
   * the process that sampled them dies. Failures here are left to `stop()` to report.
   */
  snapshot(): Promise<MonitorRunResult>;
  stop(): Promise<MonitorRunResult>;
}

/**
 * Sample every monitor once a second, at whole epoch seconds, until `stop()` (or the signal);
 * a run stopped before the first whole second gets one reading at its stop.
 * A monitor that fails or is slower than the interval gives a missing value for that second,
 * never a zero. When two monitors give the same key (two processes' memory), the first in
 * `configs` keeps the plain key and the later ones get `<key>.<kind><index>`.
 */
export function startMonitors(
  configs: (TMonitorConfigInput | TMonitorConfig)[],
  options: { signal?: AbortSignal; intervalMs?: number } & MonitorOptions = {},
): MonitorHandle {
  const intervalMs = options.intervalMs ?? 1000;
  const samplers = configs.map((c, i) => createSampler(parseConfig(c, i), options));
  const kinds = configs.map((c) => c.kind);
  const start = Math.ceil(Date.now() / intervalMs) * intervalMs;
  const columns = new Map<string, (number | null)[]>();
  const errors = new Map<string, { monitor: string; message: string; count: number }>();
  const busy = new Set<number>();
  /** Latest values of history monitors, for live display only. */
  const live = new Map<string, number | null>();
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let samples = 0;

  const owner = new Map<string, number>();
  samplers.forEach((sampler, i) => {
    for (const key of sampler.keys) if (!owner.has(key)) owner.set(key, i);
  });
  const keyFor = (key: string, monitor: number) => {
    const first = owner.get(key);
    if (first === undefined) owner.set(key, monitor);
    return first === undefined || first === monitor ? key : `${key}.${kinds[monitor]}${monitor}`;
  };
  const fail = (i: number, err: unknown) => {
    const message = err instanceof MonitorError ? err.message : String((err as Error)?.message ?? err);
    const key = `${i}|${message}`;
    const e = errors.get(key);
    if (e) e.count++;
    else errors.set(key, { monitor: samplers[i]!.label, message, count: 1 });
  };
  const put = (key: string, slot: number, value: number | null) => {
    let col = columns.get(key);
    if (!col) {
      col = [];
      columns.set(key, col);
    }
    while (col.length <= slot) col.push(null);
    col[slot] = value;
  };

  /** One reading of a (non-range) monitor into `slot` of its series; a failure is counted. */
  const read = (i: number, slot: number): Promise<void> =>
    samplers[i]!.sample()
      .then((readings) => {
        for (const [k, v] of Object.entries(readings)) put(keyFor(k, i), slot, v);
      })
      .catch((err: unknown) => fail(i, err));

  const tick = () => {
    if (stopped) return;
    const slot = Math.round((Date.now() - start) / intervalMs);
    samples = Math.max(samples, slot + 1);
    samplers.forEach((sampler, i) => {
      if (busy.has(i)) return;
      if (sampler.range) {
        // Live only, every few seconds: the stored series is read over the whole window at the end,
        // which also reports its errors.
        if (slot % RANGE_LIVE_EVERY !== 0) return;
        busy.add(i);
        const p = sampler
          .sample()
          .then((readings) => {
            for (const [k, v] of Object.entries(readings)) live.set(keyFor(k, i), v);
          })
          .catch(() => {})
          .finally(() => {
            busy.delete(i);
            inFlight.delete(p);
          });
        inFlight.add(p);
        return;
      }
      busy.add(i);
      const p = read(i, slot).finally(() => {
        busy.delete(i);
        inFlight.delete(p);
      });
      inFlight.add(p);
    });
    schedule();
  };
  const schedule = () => {
    if (stopped) return;
    const next = start + Math.max(1, Math.ceil((Date.now() - start + 1) / intervalMs)) * intervalMs;
    timer = setTimeout(tick, Math.max(0, next - Date.now()));
  };
  timer = setTimeout(tick, Math.max(0, start - Date.now()));
  const halt = () => {
    stopped = true;
    clearTimeout(timer);
  };
  options.signal?.addEventListener("abort", halt, { once: true });

  /** History monitors' series over `[start, end]`; a failed read is counted only when `report`. */
  const readRanges = (series: Record<string, TSeries>, end: number, report: boolean) =>
    Promise.all(
      samplers.map(async (sampler, i) => {
        if (!sampler.range) return;
        try {
          const got = await sampler.range(start, end);
          for (const [k, s] of Object.entries(got)) series[keyFor(k, i)] = s;
        } catch (err) {
          if (report) fail(i, err);
        }
      }),
    );

  return {
    latest() {
      const out: Record<string, number | null> = {};
      for (const [key, values] of columns) out[key] = values.at(-1) ?? null;
      for (const [key, value] of live) out[key] = value;
      return out;
    },
    async stop() {
      const wasStopped = stopped;
      halt();
      options.signal?.removeEventListener("abort", halt);
      await Promise.allSettled([...inFlight]);
      let seriesStart = start;
      if (samples === 0 && !wasStopped) {
        // Over before the first whole second (a short chat run, a small closed test): one reading
        // now, in the second it falls in, so the run still has its target's memory and CPU.
        seriesStart = Math.floor(Date.now() / intervalMs) * intervalMs;
        samples = 1;
        await Promise.all(samplers.map((sampler, i) => (sampler.range ? undefined : read(i, 0))));
      }
      const series: Record<string, TSeries> = {};
      for (const [key, values] of columns) {
        while (values.length < samples) values.push(null);
        series[key] = { start: seriesStart, intervalMs, values };
      }
      // History monitors read the run's whole window now, each request bounded by its timeout.
      await readRanges(series, Date.now(), true);
      return { series, metrics: peakMetrics(series), errors: [...errors.values()], samples };
    },
    async snapshot() {
      const series: Record<string, TSeries> = {};
      for (const [key, values] of columns) {
        const copy = values.slice(0, samples);
        while (copy.length < samples) copy.push(null);
        series[key] = { start, intervalMs, values: copy };
      }
      if (samples > 0) await readRanges(series, Date.now(), false);
      return { series, metrics: peakMetrics(series), errors: [...errors.values()], samples };
    },
  };
}

/** A result (a checkpoint's, or the final one) with the monitors' series and peaks added. */
export function withMonitorSeries<R extends { series: Record<string, TSeries>; metrics: Record<string, number> }>(
  result: R,
  watched: Pick<MonitorRunResult, "series" | "metrics">,
): R {
  return {
    ...result,
    series: { ...result.series, ...watched.series },
    metrics: { ...result.metrics, ...watched.metrics },
  };
}

/**
 * An engine's `onCheckpoint` for a run whose target is watched: each checkpoint is sent with the
 * monitors' series sampled so far, so a process lost mid-run loses none of what they sampled.
 * `monitors` is asked at each checkpoint (they may start late, or not at all: then the engine's
 * checkpoint goes alone). One at a time: while one is being read or sent, the next is skipped.
 */
export function checkpointWithMonitors<R extends { series: Record<string, TSeries>; metrics: Record<string, number> }>(
  monitors: () => MonitorHandle | null | undefined,
  send: (result: R) => Promise<unknown>,
): (partial: R) => void {
  let busy = false;
  return (partial) => {
    const handle = monitors();
    if (!handle) {
      send(partial).catch(() => {});
      return;
    }
    if (busy) return;
    busy = true;
    handle
      .snapshot()
      .then((watched) => send(withMonitorSeries(partial, watched)))
      .catch(() => {})
      .finally(() => {
        busy = false;
      });
  };
}

/** Peaks and averages of the monitor series, in the metric vocabulary. */
export function peakMetrics(series: Record<string, TSeries>): Record<string, number> {
  const values = (key: string) =>
    (series[key]?.values ?? []).filter((v): v is number => v !== null && Number.isFinite(v));
  const metrics: Record<string, number> = {};
  const mem = values("mem_bytes");
  if (mem.length > 0) {
    metrics.mem_peak_bytes = Math.max(...mem);
    metrics.mem_avg_bytes = mem.reduce((a, b) => a + b, 0) / mem.length;
  }
  const cpu = values("cpu_cores");
  if (cpu.length > 0) metrics.cpu_peak = Math.max(...cpu);
  const queue = values("queue_depth").concat(values("gauge.queue_depth"));
  if (queue.length > 0) metrics.queue_depth_peak = Math.max(...queue);
  return metrics;
}

export interface ProbeResult {
  ok: boolean;
  /** What the monitor reads right now, keyed like the series it would record. */
  readings: MonitorReadings;
  /** Context for the person configuring it: resolved pid and name, metric names found, … */
  details: Record<string, unknown>;
  error?: string;
  tookMs: number;
}

/**
 * One-shot read for a "test connection" button. CPU needs two readings, so the probe takes two
 * a quarter second apart.
 */
export async function probeMonitor(
  input: TMonitorConfigInput | TMonitorConfig,
  options: MonitorOptions = {},
): Promise<ProbeResult> {
  const t0 = performance.now();
  const done = (r: Omit<ProbeResult, "tookMs">): ProbeResult => ({ ...r, tookMs: performance.now() - t0 });
  let config: TMonitorConfig;
  try {
    config = parseConfig(input, 0);
  } catch (err) {
    return done({ ok: false, readings: {}, details: {}, error: (err as Error).message });
  }
  const sampler = createSampler(config, options);
  const details: Record<string, unknown> = {};
  try {
    if (sampler instanceof PrometheusSampler) {
      const parsed = await sampler.read();
      const names = [...new Set(parsed.samples.map((s) => s.name))];
      details.metricCount = names.length;
      // Line numbers only: the text of an unparsable line is the endpoint's, not ours to show.
      if (parsed.errors.length > 0) {
        details.parseErrors = parsed.errors
          .slice(0, 10)
          .map((e) => ({ line: e.line, message: "not a valid sample line" }));
        details.parseErrorCount = parsed.errors.length;
      }
      if (config.kind === "prometheus") {
        details.missing = [config.memoryMetric, config.cpuMetric, ...config.gauges.map((g) => g.metric)].filter(
          (m) => !names.includes(m),
        );
      }
    }
    if (sampler instanceof ProcessSampler) {
      const pid = await sampler.resolvePid();
      details.pid = pid;
      details.name = await processName(pid);
    }
    const first = await sampler.sample();
    let readings = first;
    if ("cpu_cores" in first) {
      await new Promise((r) => setTimeout(r, 250));
      readings = { ...first, ...(await sampler.sample()) };
    }
    return done({ ok: true, readings, details });
  } catch (err) {
    return done({ ok: false, readings: {}, details, error: (err as Error).message });
  }
}
