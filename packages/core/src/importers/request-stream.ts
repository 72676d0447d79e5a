import {
  createHistogram,
  encodeHistogram,
  type LatencyHistogram,
  recordMicros,
  summarizeHistogram,
  summarizeMergeable,
} from "../histogram";
import type { EngineProgress, TErrorEntry } from "../run-result";
import { buildRun, isFailureStatus, statusError, transportErrorKind } from "./build";
import { ImportError } from "./import-error";
import type { TNormalizedRun } from "./normalized-run";
import { forEachLine } from "./text";
import { roundTo } from "./units";

/**
 * Per-request streams of load tools (vegeta's `attack | encode` results, k6's `--out json`
 * points): read line by line as they arrive, aggregated per second for a live view and into one
 * run with a merged latency histogram at the end. Every line is parsed once (linear time) and
 * no line may be longer than MAX_STREAM_LINE characters, so a hostile or broken stream cannot
 * make the reader hold or scan unbounded text.
 */
export const MAX_STREAM_LINE = 2_000_000;

/** One request as the tool reported it. */
export interface RequestSample {
  /** When the request was sent, epoch ms. */
  atMs: number;
  latencyMs: number;
  /** HTTP status; 0 when no response arrived. */
  status: number;
  /** The tool's error text, if any. */
  error?: string;
  bytesIn?: number;
  bytesOut?: number;
}

/** The figures of one second of the live view. */
export interface LiveSecond {
  /** Epoch ms at the end of the second. */
  t: number;
  rps: number;
  p50: number | null;
  p99: number | null;
  /** Errors so far (a running total, as the live page expects). */
  errors: number;
}

/** Progress of a client-reported run: the part of an engine's progress the run page shows. */
export type StreamProgress = Pick<
  EngineProgress,
  "elapsedMs" | "fraction" | "requests" | "errors" | "rps" | "latencyP50Ms" | "latencyP99Ms"
>;

/** Complete lines out of chunks of text, numbered from 1, each at most `maxLine` characters. */
export class LineSplitter {
  private pending = "";
  private lineNo = 0;

  constructor(
    private readonly format: string,
    private readonly maxLine = MAX_STREAM_LINE,
  ) {}

  /** The lines completed by `chunk`. */
  push(chunk: string): { line: number; text: string }[] {
    const out: { line: number; text: string }[] = [];
    let start = 0;
    for (let nl = chunk.indexOf("\n"); nl !== -1; nl = chunk.indexOf("\n", start)) {
      const piece = chunk.slice(start, nl);
      this.checkLength(this.pending.length + piece.length);
      out.push({ line: ++this.lineNo, text: this.pending + piece });
      this.pending = "";
      start = nl + 1;
    }
    const rest = chunk.slice(start);
    this.checkLength(this.pending.length + rest.length);
    this.pending += rest;
    return out;
  }

  /** The last line when the stream ended without a newline. */
  end(): { line: number; text: string }[] {
    if (this.pending === "") return [];
    const text = this.pending;
    this.pending = "";
    return [{ line: ++this.lineNo, text }];
  }

  private checkLength(length: number): void {
    if (length > this.maxLine) {
      throw new ImportError(this.format, `the line is longer than ${this.maxLine} characters`, {
        line: this.lineNo + 1,
      });
    }
  }
}

function parseLine(format: string, line: number, text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (err) {
    throw new ImportError(format, `not a JSON object: ${(err as Error).message}`, { line });
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new ImportError(format, "not a JSON object", { line });
  }
  return value as Record<string, unknown>;
}

/**
 * Distinct error messages kept per kind; the rest are counted together. A message often names
 * something that varies per request (a local port, a request id), and a result holds at most
 * `RESULT_LIMITS.errors` entries.
 */
const MAX_ERROR_MESSAGES = 200;
const OTHER_MESSAGES = "(other messages)";

function countMessage(counts: Map<string, number>, message: string): void {
  const key = counts.has(message) || counts.size < MAX_ERROR_MESSAGES ? message : OTHER_MESSAGES;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function fail(format: string, line: number, detail: string): never {
  throw new ImportError(format, detail, { line });
}

function timeMs(format: string, line: number, value: unknown, field: string): number {
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) fail(format, line, `${field}: expected a timestamp, got ${JSON.stringify(value)}`);
  return ms;
}

function finiteNumber(format: string, line: number, value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    fail(format, line, `${field}: expected a number of at least 0, got ${JSON.stringify(value)}`);
  }
  return value;
}

export const VEGETA_STREAM_FORMAT = "vegeta results (encode)";

/** One line of `vegeta encode` (JSON): a request, or null for a blank line. */
export function parseVegetaResultLine(line: number, text: string): RequestSample | null {
  const f = VEGETA_STREAM_FORMAT;
  const doc = parseLine(f, line, text);
  if (!doc) return null;
  const status = doc.code;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 0 || status > 999) {
    fail(f, line, `code: expected an HTTP status code, got ${JSON.stringify(status)}`);
  }
  const latencyNs = finiteNumber(f, line, doc.latency, "latency");
  const error = typeof doc.error === "string" && doc.error !== "" ? doc.error : undefined;
  return {
    atMs: timeMs(f, line, doc.timestamp, "timestamp"),
    latencyMs: latencyNs / 1e6,
    status,
    ...(error ? { error } : {}),
    ...(typeof doc.bytes_in === "number" ? { bytesIn: doc.bytes_in } : {}),
    ...(typeof doc.bytes_out === "number" ? { bytesOut: doc.bytes_out } : {}),
  };
}

export const K6_STREAM_FORMAT = "k6 --out json";

/**
 * One line of k6's `--out json` output. Each HTTP request is one `http_req_duration` Point (its
 * tags carry the status, and `error` for a request without a response); every other line
 * (Metric declarations, other metrics' points) gives null.
 */
export function parseK6StreamLine(line: number, text: string): RequestSample | null {
  const f = K6_STREAM_FORMAT;
  const doc = parseLine(f, line, text);
  if (!doc) return null;
  if (doc.type !== "Point" && doc.type !== "Metric") fail(f, line, `type: expected "Point" or "Metric"`);
  if (doc.type !== "Point" || doc.metric !== "http_req_duration") return null;
  const data = doc.data;
  if (!data || typeof data !== "object") fail(f, line, "data: expected an object");
  const point = data as Record<string, unknown>;
  const tags = (point.tags && typeof point.tags === "object" ? point.tags : {}) as Record<string, unknown>;
  const status = Number(tags.status ?? 0);
  if (!Number.isInteger(status) || status < 0 || status > 999) {
    fail(f, line, `data.tags.status: expected an HTTP status code, got ${JSON.stringify(tags.status)}`);
  }
  const latencyMs = finiteNumber(f, line, point.value, "data.value");
  // k6 counts a status outside the expected statuses (2xx-3xx by default) as failed.
  const unexpected = tags.expected_response === "false" && !isFailureStatus(status);
  const error =
    typeof tags.error === "string" && tags.error !== ""
      ? tags.error
      : unexpected
        ? `unexpected status ${status}`
        : undefined;
  return {
    atMs: timeMs(f, line, point.time, "data.time"),
    latencyMs,
    status,
    ...(error ? { error } : {}),
  };
}

const LIVE_SECONDS = 300;

/**
 * Requests in, figures out: the running totals, one live second per `tick()` (what arrived since
 * the last tick), and at the end the run with a latency histogram of every request.
 */
export class RequestAggregator {
  private readonly all: LatencyHistogram = createHistogram();
  private window: LatencyHistogram = createHistogram();
  private windowCount = 0;
  private windowStartMs: number;
  private readonly statusCounts: Record<string, number> = {};
  private readonly transportErrors = new Map<string, number>();
  /** Requests that got a response the tool still judged failed (an assertion, a check). */
  private readonly judgedErrors = new Map<string, number>();
  private readonly seconds: LiveSecond[] = [];
  private readonly series = {
    rps: [] as (number | null)[],
    p50: [] as (number | null)[],
    p99: [] as (number | null)[],
  };
  private seriesStart: number | null = null;
  private requests = 0;
  private failed = 0;
  private bytesIn = 0;
  private bytesOut = 0;
  private firstSendMs = Number.POSITIVE_INFINITY;
  private lastSendMs = Number.NEGATIVE_INFINITY;
  private lastDoneMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly tool: string,
    private readonly startedMs = Date.now(),
  ) {
    this.windowStartMs = startedMs;
  }

  add(sample: RequestSample): void {
    this.requests++;
    const micros = sample.latencyMs * 1000;
    recordMicros(this.all, micros);
    recordMicros(this.window, micros);
    this.windowCount++;
    if (sample.status === 0) {
      countMessage(this.transportErrors, sample.error ?? "no response");
      this.failed++;
    } else {
      const key = String(sample.status);
      this.statusCounts[key] = (this.statusCounts[key] ?? 0) + 1;
      if (isFailureStatus(sample.status)) this.failed++;
      else if (sample.error) {
        this.failed++;
        countMessage(this.judgedErrors, sample.error);
      }
    }
    this.bytesIn += sample.bytesIn ?? 0;
    this.bytesOut += sample.bytesOut ?? 0;
    this.firstSendMs = Math.min(this.firstSendMs, sample.atMs);
    this.lastSendMs = Math.max(this.lastSendMs, sample.atMs);
    this.lastDoneMs = Math.max(this.lastDoneMs, sample.atMs + sample.latencyMs);
  }

  get totalRequests(): number {
    return this.requests;
  }

  /** Close the current second: its rate and percentiles join the live view and the series. */
  tick(nowMs = Date.now()): LiveSecond {
    const spanS = Math.max(0.001, (nowMs - this.windowStartMs) / 1000);
    const summary = summarizeHistogram(this.window);
    const second: LiveSecond = {
      t: nowMs,
      rps: roundTo(this.windowCount / spanS),
      p50: summary ? roundTo(summary.latency_p50!) : null,
      p99: summary ? roundTo(summary.latency_p99!) : null,
      errors: this.failed,
    };
    this.seconds.push(second);
    if (this.seconds.length > LIVE_SECONDS) this.seconds.shift();
    this.seriesStart ??= this.windowStartMs;
    this.series.rps.push(second.rps);
    this.series.p50.push(second.p50);
    this.series.p99.push(second.p99);
    this.window = createHistogram();
    this.windowCount = 0;
    this.windowStartMs = nowMs;
    return second;
  }

  progress(nowMs = Date.now()): StreamProgress {
    const summary = summarizeHistogram(this.all);
    const last = this.seconds.at(-1);
    return {
      elapsedMs: Math.max(0, nowMs - this.startedMs),
      fraction: null,
      requests: this.requests,
      errors: this.failed,
      rps: last?.rps ?? 0,
      latencyP50Ms: summary ? roundTo(summary.latency_p50!) : null,
      latencyP99Ms: summary ? roundTo(summary.latency_p99!) : null,
    };
  }

  /** The whole run: totals, status counts, errors, latency from the merged histogram, series. */
  result(extra: { endedMs?: number; exitCode?: number | null } = {}): TNormalizedRun {
    const errors: TErrorEntry[] = [];
    for (const [code, count] of Object.entries(this.statusCounts)) {
      if (isFailureStatus(Number(code))) errors.push(statusError(Number(code), count));
    }
    for (const [message, count] of this.transportErrors) {
      errors.push({ kind: transportErrorKind(message), message: message.slice(0, 500), count });
    }
    for (const [message, count] of this.judgedErrors) {
      errors.push({ kind: "assert", message: message.slice(0, 500), count });
    }
    const any = this.requests > 0;
    const sendSpanS = any ? (this.lastSendMs - this.firstSendMs) / 1000 : 0;
    const latency = summarizeMergeable(this.all) ?? {};
    const startedAt = any ? new Date(this.firstSendMs).toISOString() : new Date(this.startedMs).toISOString();
    const endedMs = any ? this.lastDoneMs : (extra.endedMs ?? Date.now());
    const run = buildRun(this.tool, {
      tool: { name: this.tool },
      startedAt,
      endedAt: new Date(endedMs).toISOString(),
      durationS: any ? roundTo(sendSpanS, 3) : undefined,
      scenario: { name: this.tool, engine: this.tool === "vegeta" ? "http-open" : undefined },
      metrics: {
        requests: this.requests,
        success: this.requests - this.failed,
        failed: this.failed,
        // Like vegeta's rate: requests over the time between the first and the last send.
        rps: any && sendSpanS > 0 ? roundTo(this.requests / sendSpanS) : undefined,
        ...Object.fromEntries(Object.entries(latency).map(([k, v]) => [k, roundTo(v)])),
        res_bytes_avg: any && this.bytesIn > 0 ? roundTo(this.bytesIn / this.requests) : undefined,
        req_bytes_avg: any && this.bytesOut > 0 ? roundTo(this.bytesOut / this.requests) : undefined,
      },
      statusCounts: this.statusCounts,
      errors,
      histogram: any ? encodeHistogram(this.all) : undefined,
      extra: { exitCode: extra.exitCode ?? undefined },
    });
    if (this.seriesStart !== null && this.series.rps.length > 0) {
      run.result.series = {
        rps: { start: this.seriesStart, intervalMs: 1000, values: this.series.rps },
        latency_p50: { start: this.seriesStart, intervalMs: 1000, values: this.series.p50 },
        latency_p99: { start: this.seriesStart, intervalMs: 1000, values: this.series.p99 },
      };
    }
    return run;
  }
}

/** A whole stream already on disk, as an upload: every line read once, in order. */
export function importRequestStream(
  format: string,
  tool: string,
  text: string,
  parse: (line: number, text: string) => RequestSample | null,
): TNormalizedRun {
  const aggregator = new RequestAggregator(tool, 0);
  let lastLine = 1;
  forEachLine(
    text,
    ({ no, text: body }) => {
      lastLine = no;
      const sample = parse(no, body);
      if (sample) aggregator.add(sample);
    },
    { format, maxLineChars: MAX_STREAM_LINE },
  );
  if (aggregator.totalRequests === 0) {
    throw new ImportError(format, "no requests in the stream", { line: lastLine });
  }
  return aggregator.result();
}

export function parseK6Stream(text: string): TNormalizedRun {
  return importRequestStream(K6_STREAM_FORMAT, "k6", text, parseK6StreamLine);
}

export function parseVegetaResults(text: string): TNormalizedRun {
  return importRequestStream(VEGETA_STREAM_FORMAT, "vegeta", text, parseVegetaResultLine);
}
