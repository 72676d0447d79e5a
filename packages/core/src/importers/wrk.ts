import { createHistogram, encodeHistogram, HISTOGRAM_MAX_US, MAX_HISTOGRAM_COUNT } from "../histogram";
import type { TErrorEntry } from "../run-result";
import { buildRun } from "./build";
import { ImportError } from "./import-error";
import type { TNormalizedRun } from "./normalized-run";
import { percentileLabel, percentileMetrics } from "./percentiles";
import { lastLineNo, parseDecimal, splitLines, type TextLine } from "./text";
import { parseBinaryBytes, parseDurationMs, parseMetricCount, roundTo } from "./units";

const FORMAT = "wrk";

interface StatsRow {
  avg: number;
  stdev: number;
  max: number;
  /** NaN when the tool had no samples (it prints `-nan%`). */
  withinStdevPercent: number;
}

interface SpectrumRow {
  valueMs: number;
  percentile: number;
  totalCount: number;
}

interface LatencyBlock {
  percentilesMs: Record<string, number>;
  spectrum: SpectrumRow[];
  footer: {
    meanMs?: number;
    stddevMs?: number;
    maxMs?: number;
    totalCount?: number;
    buckets?: number;
    subBuckets?: number;
  };
}

type Section = "none" | "distribution" | "recorded" | "uncorrected";

/**
 * wrk and wrk2 text output. wrk2 is recognised by its HdrHistogram blocks (`-L`/`-U`) or its
 * thread calibration lines; its latency is measured from the intended send time (open model).
 *
 * `requests` is wrk's count of completed responses and `failed` its "Non-2xx or 3xx" count
 * (status 400 and above). Socket errors go to `errors` only: they are not completed requests,
 * and wrk's timeout count is taken per check of stale connections, so it overlaps completions.
 */
export function parseWrk(text: string): TNormalizedRun {
  const lines = splitLines(text, { format: FORMAT });
  let url: string | undefined;
  let configuredDuration: string | undefined;
  let threads: number | undefined;
  let connections: number | undefined;
  let latencyRow: StatsRow | undefined;
  let reqPerSecRow: StatsRow | undefined;
  let completed: number | undefined;
  let runtimeMs: number | undefined;
  let bytesRead: number | undefined;
  let socketErrors: { connect: number; read: number; write: number; timeout: number } | undefined;
  let non2xx = 0;
  let rps: number | undefined;
  let transferPerSec: number | undefined;
  let wrk2 = false;
  const calibration: { meanLatencyMs: number; rateSamplingIntervalMs: number }[] = [];
  const blocks: Record<Exclude<Section, "none">, LatencyBlock> = {
    distribution: emptyBlock(),
    recorded: emptyBlock(),
    uncorrected: emptyBlock(),
  };
  let section: Section = "none";
  let inSpectrum = false;
  const unknown: { line: number; text: string }[] = [];

  for (const line of lines) {
    const t = line.text.trim();
    if (t === "") continue;
    let m: RegExpExecArray;

    if (t.startsWith("Running ")) {
      m = expect(line, /^Running (\S+) test @ (\S+)$/, "`Running <duration> test @ <url>`");
      configuredDuration = m[1];
      url = m[2];
    } else if (/^\d+ threads and /.test(t)) {
      m = expect(line, /^(\d+) threads and (\d+) connections$/, "`<n> threads and <n> connections`");
      threads = Number(m[1]);
      connections = Number(m[2]);
    } else if (t.startsWith("Thread calibration:")) {
      m = expect(
        line,
        /^Thread calibration: mean lat\.: ([\d.]+)ms, rate sampling interval: (\d+)ms$/,
        "a wrk2 thread calibration line",
      );
      wrk2 = true;
      calibration.push({ meanLatencyMs: Number(m[1]), rateSamplingIntervalMs: Number(m[2]) });
    } else if (t.startsWith("Thread Stats")) {
      section = "none";
    } else if (t === "Latency Distribution") {
      section = "distribution";
      inSpectrum = false;
    } else if (t.startsWith("Latency Distribution (HdrHistogram")) {
      m = expect(line, /^Latency Distribution \(HdrHistogram - (.+)\)$/, "an HdrHistogram latency block title");
      wrk2 = true;
      section = m[1]?.startsWith("Uncorrected") ? "uncorrected" : "recorded";
      inSpectrum = false;
    } else if (/^(Latency|Req\/Sec)\s+\d/.test(t)) {
      m = expect(
        line,
        /^(Latency|Req\/Sec)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)%$/,
        "a thread stats row (avg, stdev, max, +/- stdev)",
      );
      if (m[1] === "Latency") latencyRow = statsRow(line, m, parseDurationMs, "a latency such as 1.23ms");
      else reqPerSecRow = statsRow(line, m, parseMetricCount, "a count such as 5.01k");
    } else if (section !== "none" && /^\d+(\.\d+)?%/.test(t)) {
      m = expect(line, /^(\d+(?:\.\d+)?)%\s+(\S+)$/, "a percentile row such as 99.000%  1.23ms");
      blocks[section].percentilesMs[percentileLabel(Number(m[1]))] = duration(line, m[2] ?? "");
    } else if (t === "Detailed Percentile spectrum:") {
      if (section === "none" || section === "distribution")
        fail(line, "a percentile spectrum outside an HdrHistogram block");
      inSpectrum = true;
    } else if (inSpectrum && t.startsWith("Value")) {
      expect(line, /^Value\s+Percentile\s+TotalCount\s+1\/\(1-Percentile\)$/, "the spectrum column header");
    } else if (inSpectrum && /^\d/.test(t)) {
      m = expect(
        line,
        /^(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s+(\d+)\s+(\S+)$/,
        "a spectrum row (value, percentile, total count, 1/(1-percentile))",
      );
      const totalCount = Number(m[3]);
      if (!Number.isSafeInteger(totalCount) || totalCount > MAX_HISTOGRAM_COUNT) {
        fail(line, `a spectrum row with a total count below ${MAX_HISTOGRAM_COUNT.toExponential()}`);
      }
      if (section === "recorded" || section === "uncorrected") {
        blocks[section].spectrum.push({ valueMs: Number(m[1]), percentile: Number(m[2]), totalCount });
      }
    } else if (t.startsWith("#[")) {
      if (section !== "recorded" && section !== "uncorrected") fail(line, "an HdrHistogram footer outside its block");
      readFooter(line, blocks[section].footer);
      inSpectrum = false;
    } else if (/^-{10,}$/.test(t)) {
      section = "none";
      inSpectrum = false;
    } else if (/^\d+ requests in /.test(t)) {
      m = expect(line, /^(\d+) requests in (\S+), (\S+) read$/, "`<n> requests in <time>, <size> read`");
      completed = Number(m[1]);
      runtimeMs = duration(line, m[2] ?? "");
      bytesRead = bytes(line, m[3] ?? "");
      section = "none";
    } else if (t.startsWith("Socket errors:")) {
      m = expect(
        line,
        /^Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)$/,
        "`Socket errors: connect <n>, read <n>, write <n>, timeout <n>`",
      );
      socketErrors = { connect: Number(m[1]), read: Number(m[2]), write: Number(m[3]), timeout: Number(m[4]) };
    } else if (t.startsWith("Non-2xx or 3xx responses:")) {
      m = expect(line, /^Non-2xx or 3xx responses: (\d+)$/, "`Non-2xx or 3xx responses: <n>`");
      non2xx = Number(m[1]);
    } else if (t.startsWith("Requests/sec:")) {
      m = expect(line, /^Requests\/sec:\s+(\d+(?:\.\d+)?)$/, "`Requests/sec: <number>`");
      rps = Number(m[1]);
    } else if (t.startsWith("Transfer/sec:")) {
      m = expect(line, /^Transfer\/sec:\s+(\S+)$/, "`Transfer/sec: <size>`");
      transferPerSec = bytes(line, m[1] ?? "");
    } else {
      // Lua `done()` output and anything else the tool or a wrapper printed.
      unknown.push({ line: line.no, text: t });
    }
  }

  const end = lastLineNo(lines);
  if (completed === undefined && url === undefined && threads === undefined && latencyRow === undefined) {
    throw new ImportError(FORMAT, 'this is not wrk output: no "Running … test @" header and no "requests in" line', {
      line: 1,
    });
  }
  if (completed === undefined || runtimeMs === undefined) {
    throw new ImportError(FORMAT, 'no "<n> requests in <time>, <size> read" line (output truncated?)', { line: end });
  }
  if (rps === undefined) {
    throw new ImportError(FORMAT, 'no "Requests/sec:" line (output truncated?)', { line: end });
  }

  const recorded = wrk2 ? blocks.recorded : blocks.distribution;
  const hasLatency = latencyRow !== undefined && !Number.isNaN(latencyRow.withinStdevPercent);
  const footer = blocks.recorded.footer;
  const errors: TErrorEntry[] = [];
  if (non2xx > 0) errors.push({ kind: "status", message: "response status 400 or above", count: non2xx });
  if (socketErrors) {
    for (const kind of ["connect", "read", "write", "timeout"] as const) {
      const count = socketErrors[kind];
      if (count > 0) {
        const errorKind = kind === "read" || kind === "write" ? "transport" : kind;
        errors.push({ kind: errorKind, message: `socket ${kind} error`, count });
      }
    }
  }

  return buildRun(FORMAT, {
    tool: { name: wrk2 ? "wrk2" : "wrk" },
    durationS: roundTo(runtimeMs / 1000),
    scenario: {
      name: wrk2 ? "wrk2" : "wrk",
      engine: wrk2 ? "http-open" : "http-closed",
      spec: { threads, connections, duration: configuredDuration },
    },
    target: url !== undefined && URL.canParse(url) ? { url } : undefined,
    metrics: {
      requests: completed,
      success: completed - non2xx,
      failed: non2xx,
      rps,
      failed_connections: socketErrors?.connect,
      latency_mean: hasLatency ? (footer.meanMs ?? latencyRow?.avg) : undefined,
      latency_stddev: hasLatency ? (footer.stddevMs ?? latencyRow?.stdev) : undefined,
      latency_max: hasLatency ? (footer.maxMs ?? latencyRow?.max) : undefined,
      ...(hasLatency ? percentileMetrics(recorded.percentilesMs) : {}),
    },
    errors,
    histogram: wrk2 && hasLatency ? histogramFromSpectrum(blocks.recorded.spectrum) : undefined,
    extra: {
      latencyPercentilesMs: nonEmpty(recorded.percentilesMs),
      latencyWithinStdevPercent: finite(latencyRow?.withinStdevPercent),
      reqPerSecPerThread: reqPerSecRow && {
        avg: reqPerSecRow.avg,
        stdev: reqPerSecRow.stdev,
        max: reqPerSecRow.max,
        withinStdevPercent: finite(reqPerSecRow.withinStdevPercent),
      },
      bytesRead,
      transferBytesPerSec: transferPerSec,
      socketErrors,
      threadCalibration: calibration.length > 0 ? calibration : undefined,
      hdrHistogram: wrk2 && Object.keys(footer).length > 0 ? footer : undefined,
      uncorrectedLatency: nonEmpty(blocks.uncorrected.percentilesMs) && {
        percentilesMs: blocks.uncorrected.percentilesMs,
        ...blocks.uncorrected.footer,
      },
      unrecognizedLines: unknown.length > 0 ? unknown : undefined,
    },
  });
}

function emptyBlock(): LatencyBlock {
  return { percentilesMs: {}, spectrum: [], footer: {} };
}

function fail(line: TextLine, expected: string): never {
  throw new ImportError(FORMAT, `expected ${expected}, got "${line.text.trim()}"`, { line: line.no });
}

function expect(line: TextLine, pattern: RegExp, expected: string): RegExpExecArray {
  const m = pattern.exec(line.text.trim());
  if (!m) fail(line, expected);
  return m;
}

function duration(line: TextLine, token: string): number {
  const ms = parseDurationMs(token);
  if (ms === undefined) fail(line, `a duration such as 1.23ms (us, ms, s, m, h) instead of "${token}"`);
  return roundTo(ms);
}

function bytes(line: TextLine, token: string): number {
  const b = parseBinaryBytes(token);
  if (b === undefined) fail(line, `a size such as 1.23MB instead of "${token}"`);
  return roundTo(b);
}

function statsRow(
  line: TextLine,
  m: RegExpExecArray,
  parse: (token: string) => number | undefined,
  what: string,
): StatsRow {
  const values = [m[2], m[3], m[4]].map((token) => {
    const v = parse(token ?? "");
    if (v === undefined) fail(line, `${what} instead of "${token}"`);
    return roundTo(v);
  });
  const within = parseDecimal(m[5] ?? "");
  if (within === undefined) fail(line, `a percentage instead of "${m[5]}%"`);
  return { avg: values[0] ?? 0, stdev: values[1] ?? 0, max: values[2] ?? 0, withinStdevPercent: within };
}

function readFooter(line: TextLine, footer: LatencyBlock["footer"]): void {
  const t = line.text.trim();
  let m = /^#\[Mean\s*=\s*([\d.]+), StdDeviation\s*=\s*([\d.]+)\]$/.exec(t);
  if (m) {
    footer.meanMs = Number(m[1]);
    footer.stddevMs = Number(m[2]);
    return;
  }
  m = /^#\[Max\s*=\s*([\d.]+), Total count\s*=\s*(\d+)\]$/.exec(t);
  if (m) {
    footer.maxMs = Number(m[1]);
    footer.totalCount = Number(m[2]);
    return;
  }
  m = /^#\[Buckets\s*=\s*(\d+), SubBuckets\s*=\s*(\d+)\]$/.exec(t);
  if (m) {
    footer.buckets = Number(m[1]);
    footer.subBuckets = Number(m[2]);
    return;
  }
  fail(line, "an HdrHistogram footer (#[Mean = …], #[Max = …] or #[Buckets = …])");
}

/**
 * Rebuilds an approximate latency histogram from wrk2's percentile spectrum: each row's new
 * samples are recorded at the row's value, so values between two rows move up to the next row
 * (an upper bound, never an underestimate). The spectrum is printed at µs resolution.
 */
function histogramFromSpectrum(rows: readonly SpectrumRow[]): string | undefined {
  if (rows.length === 0) return undefined;
  const histogram = createHistogram();
  let counted = 0;
  for (const row of rows) {
    const added = row.totalCount - counted;
    if (added <= 0) continue;
    histogram.recordValueWithCount(Math.min(HISTOGRAM_MAX_US, Math.max(1, Math.round(row.valueMs * 1000))), added);
    counted = row.totalCount;
  }
  return histogram.totalCount > 0 ? encodeHistogram(histogram) : undefined;
}

function nonEmpty<T extends object>(value: T): T | undefined {
  return Object.keys(value).length > 0 ? value : undefined;
}

function finite(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}
