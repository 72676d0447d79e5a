import { readdirSync } from "node:fs";

/**
 * A small Prometheus registry with text exposition format 0.0.4. The targets need only counters,
 * gauges and histograms, and the monitors under test parse this output, so the format is kept
 * strict: one HELP and TYPE per family before its samples, escaped label values, cumulative
 * histogram buckets ending in `+Inf`.
 */

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export type Labels<L extends string> = { readonly [K in L]: string | number | boolean };

interface Sample {
  suffix: string;
  labels: ReadonlyArray<readonly [string, string]>;
  value: number;
}

interface MetricOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

abstract class Metric<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  abstract readonly type: "counter" | "gauge" | "histogram";

  constructor(options: MetricOptions<L>) {
    if (!METRIC_NAME.test(options.name)) throw new Error(`invalid metric name ${options.name}`);
    for (const label of options.labelNames ?? []) {
      if (!LABEL_NAME.test(label) || label.startsWith("__")) throw new Error(`invalid label name ${label}`);
    }
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames ?? [];
  }

  /** Label pairs in declaration order, plus a key that identifies the series. */
  protected resolve(labels: Labels<L> | undefined): { key: string; pairs: Array<readonly [string, string]> } {
    const given = (labels ?? {}) as Record<string, string | number | boolean>;
    const pairs = this.labelNames.map((name) => {
      const value = given[name];
      if (value === undefined) throw new Error(`${this.name}: label ${name} is required`);
      return [name, String(value)] as const;
    });
    if (Object.keys(given).length !== pairs.length) {
      throw new Error(`${this.name}: unexpected labels ${Object.keys(given).join(",")}`);
    }
    return { key: pairs.map(([, value]) => value).join("\u0000"), pairs };
  }

  /** Label pairs for a reading; public so collectors can share it. */
  pairsOf(labels: Labels<L> | undefined): Array<readonly [string, string]> {
    return this.resolve(labels).pairs;
  }

  abstract samples(): Sample[];
}

function collected<L extends string>(metric: Metric<L>, collect: Collect<L>): Sample[] {
  const reading = collect();
  if (typeof reading === "number") return [{ suffix: "", labels: metric.pairsOf(undefined), value: reading }];
  return reading.map((r) => ({ suffix: "", labels: metric.pairsOf(r.labels), value: r.value }));
}

type Collect<L extends string> = () => number | ReadonlyArray<Reading<L>>;

export interface Reading<L extends string> {
  labels?: Labels<L>;
  value: number;
}

export class Counter<L extends string = never> extends Metric<L> {
  readonly type = "counter";
  private readonly series = new Map<string, { pairs: Array<readonly [string, string]>; value: number }>();
  /** For counters kept elsewhere (the kernel's CPU time): read at scrape time. */
  private readonly collect?: Collect<L>;

  constructor(options: MetricOptions<L> & { collect?: Collect<L> }) {
    super(options);
    this.collect = options.collect;
  }

  inc(labels?: Labels<L>, by = 1): void {
    if (!(by >= 0)) throw new Error(`${this.name}: counters only go up (got ${by})`);
    const { key, pairs } = this.resolve(labels);
    const entry = this.series.get(key);
    if (entry) entry.value += by;
    else this.series.set(key, { pairs, value: by });
  }

  samples(): Sample[] {
    if (this.collect) return collected(this, this.collect);
    // A counter without labels is exposed as 0 before its first increment so that rates work.
    if (this.series.size === 0 && this.labelNames.length === 0) return [{ suffix: "", labels: [], value: 0 }];
    return [...this.series.values()].map(({ pairs, value }) => ({ suffix: "", labels: pairs, value }));
  }
}

export class Gauge<L extends string = never> extends Metric<L> {
  readonly type = "gauge";
  private readonly series = new Map<string, { pairs: Array<readonly [string, string]>; value: number }>();
  /** For values owned elsewhere (queue lengths, memory): read at scrape time. */
  private readonly collect?: Collect<L>;

  constructor(options: MetricOptions<L> & { collect?: Collect<L> }) {
    super(options);
    this.collect = options.collect;
  }

  set(value: number, labels?: Labels<L>): void {
    const { key, pairs } = this.resolve(labels);
    this.series.set(key, { pairs, value });
  }

  inc(by = 1, labels?: Labels<L>): void {
    const { key, pairs } = this.resolve(labels);
    const entry = this.series.get(key);
    if (entry) entry.value += by;
    else this.series.set(key, { pairs, value: by });
  }

  dec(by = 1, labels?: Labels<L>): void {
    this.inc(-by, labels);
  }

  samples(): Sample[] {
    if (this.collect) return collected(this, this.collect);
    if (this.series.size === 0 && this.labelNames.length === 0) return [{ suffix: "", labels: [], value: 0 }];
    return [...this.series.values()].map(({ pairs, value }) => ({ suffix: "", labels: pairs, value }));
  }
}

interface HistogramSeries {
  pairs: Array<readonly [string, string]>;
  /** Non-cumulative counts per bucket; the last slot is the +Inf overflow. */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class Histogram<L extends string = never> extends Metric<L> {
  readonly type = "histogram";
  readonly buckets: readonly number[];
  private readonly series = new Map<string, HistogramSeries>();

  constructor(options: MetricOptions<L> & { buckets: readonly number[] }) {
    super(options);
    if (this.labelNames.includes("le" as L)) throw new Error(`${this.name}: "le" is reserved for buckets`);
    const buckets = options.buckets.filter((b) => b !== Number.POSITIVE_INFINITY);
    if (buckets.length === 0) throw new Error(`${this.name}: at least one finite bucket is required`);
    for (let i = 0; i < buckets.length; i++) {
      const bucket = buckets[i]!;
      if (!Number.isFinite(bucket)) throw new Error(`${this.name}: bucket ${bucket} is not finite`);
      if (i > 0 && bucket <= buckets[i - 1]!) throw new Error(`${this.name}: buckets must increase`);
    }
    this.buckets = buckets;
  }

  observe(value: number, labels?: Labels<L>): void {
    if (Number.isNaN(value)) return;
    const { key, pairs } = this.resolve(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { pairs, counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    let index = this.buckets.length;
    // Buckets are few (under 30), so a linear scan beats the bookkeeping of a binary search.
    for (let i = 0; i < this.buckets.length; i++) {
      if (value <= this.buckets[i]!) {
        index = i;
        break;
      }
    }
    entry.counts[index]! += 1;
    entry.sum += value;
    entry.count += 1;
  }

  samples(): Sample[] {
    const out: Sample[] = [];
    for (const entry of this.series.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        cumulative += entry.counts[i]!;
        out.push({
          suffix: "_bucket",
          labels: [...entry.pairs, ["le", formatValue(this.buckets[i]!)]],
          value: cumulative,
        });
      }
      out.push({ suffix: "_bucket", labels: [...entry.pairs, ["le", "+Inf"]], value: entry.count });
      out.push({ suffix: "_sum", labels: entry.pairs, value: entry.sum });
      out.push({ suffix: "_count", labels: entry.pairs, value: entry.count });
    }
    return out;
  }
}

/** `count` buckets growing by `factor` from `start`: the shape latency histograms need. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const buckets: number[] = [];
  let bucket = start;
  for (let i = 0; i < count; i++) {
    buckets.push(Number(bucket.toPrecision(12)));
    bucket *= factor;
  }
  return buckets;
}

/** Seconds, from 1 µs to ~67 s: wide enough for a 10 ns key selection and a 60 s upstream call. */
export const DURATION_BUCKETS_SECONDS = exponentialBuckets(1e-6, 2, 27);

/** What the registry needs from a metric, whatever its labels. */
interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "gauge" | "histogram";
  samples(): Sample[];
}

export class Registry {
  private readonly metrics = new Map<string, Family>();

  private add<M extends Family>(metric: M): M {
    if (this.metrics.has(metric.name)) throw new Error(`metric ${metric.name} is already registered`);
    this.metrics.set(metric.name, metric);
    return metric;
  }

  counter<L extends string = never>(options: MetricOptions<L> & { collect?: Collect<L> }): Counter<L> {
    return this.add(new Counter<L>(options));
  }

  gauge<L extends string = never>(options: MetricOptions<L> & { collect?: Collect<L> }): Gauge<L> {
    return this.add(new Gauge<L>(options));
  }

  histogram<L extends string = never>(options: MetricOptions<L> & { buckets: readonly number[] }): Histogram<L> {
    return this.add(new Histogram<L>(options));
  }

  /** The whole registry in text format 0.0.4. */
  expose(): string {
    const lines: string[] = [];
    for (const metric of this.metrics.values()) {
      lines.push(`# HELP ${metric.name} ${escapeHelp(metric.help)}`);
      lines.push(`# TYPE ${metric.name} ${metric.type}`);
      for (const sample of metric.samples()) {
        const labels =
          sample.labels.length === 0
            ? ""
            : `{${sample.labels.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(",")}}`;
        lines.push(`${metric.name}${sample.suffix}${labels} ${formatValue(sample.value)}`);
      }
    }
    return `${lines.join("\n")}\n`;
  }
}

export function escapeHelp(help: string): string {
  return help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

/**
 * The process collector every monitor expects (names as in the Prometheus client libraries), plus
 * V8 heap gauges because a Node target's RSS alone hides whether the heap or native memory grew.
 */
export function registerProcessMetrics(registry: Registry, service: string): void {
  const startTimeSeconds = Math.round((Date.now() - performance.now()) / 10) / 100;
  registry.gauge<"service" | "node_version">({
    name: "target_info",
    help: "Reference target identity; always 1.",
    labelNames: ["service", "node_version"],
    collect: () => [{ labels: { service, node_version: process.versions.node }, value: 1 }],
  });
  registry.counter({
    name: "process_cpu_user_seconds_total",
    help: "User CPU time spent in seconds.",
    collect: () => process.cpuUsage().user / 1e6,
  });
  registry.counter({
    name: "process_cpu_system_seconds_total",
    help: "System CPU time spent in seconds.",
    collect: () => process.cpuUsage().system / 1e6,
  });
  registry.counter({
    name: "process_cpu_seconds_total",
    help: "Total user and system CPU time spent in seconds.",
    collect: () => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1e6;
    },
  });
  registry.gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory size in bytes.",
    collect: () => process.memoryUsage.rss(),
  });
  registry.gauge({
    name: "process_start_time_seconds",
    help: "Start time of the process since unix epoch in seconds.",
    collect: () => startTimeSeconds,
  });
  registry.gauge({
    name: "process_open_fds",
    help: "Number of open file descriptors.",
    collect: () => countOpenFds(),
  });
  registry.gauge({
    name: "nodejs_heap_used_bytes",
    help: "V8 heap in use, in bytes.",
    collect: () => process.memoryUsage().heapUsed,
  });
  registry.gauge({
    name: "nodejs_heap_total_bytes",
    help: "V8 heap reserved, in bytes.",
    collect: () => process.memoryUsage().heapTotal,
  });
  registry.gauge({
    name: "nodejs_external_memory_bytes",
    help: "Memory held by C++ objects bound to JavaScript (Buffers included), in bytes.",
    collect: () => process.memoryUsage().external,
  });
}

function countOpenFds(): number {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return Number.NaN;
  }
}
