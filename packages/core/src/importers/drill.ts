import type { TErrorEntry } from "../run-result";
import { buildRun, statusError } from "./build";
import { ImportError } from "./import-error";
import type { TNormalizedRun } from "./normalized-run";
import { percentileLabel, percentileMetrics } from "./percentiles";
import { lastLineNo, splitLines, type TextLine, words } from "./text";
import { roundTo } from "./units";

const FORMAT = "drill";

/** One `--stats` block: the global one, or one per request name in the plan. */
interface StatsBlock {
  requests?: number;
  success?: number;
  failed?: number;
  rps?: number;
  durationS?: number;
  medianMs?: number;
  meanMs?: number;
  stddevMs?: number;
  maxMs?: number;
  percentilesMs: Record<string, number>;
}

const STAT_LABEL =
  /(Total requests|Successful requests|Failed requests|Median time per request|Average time per request|Sample standard deviation|Max time per request|'th percentile|Time taken for tests|Requests per second)/;
const STAT_VALUE = /^(\d+(?:\.\d+)?(?:ms|ns)?|\d+(?:\.\d+)? seconds|\d+(?:\.\d+)? \[#\/sec\])$/;
const PERCENTILE_BEFORE_LABEL = /(?:^|\s)(\d+(?:\.\d+)?)$/;

/**
 * A `--stats` line: `[<request name>] <label> <value>`. Found by the first label in the line
 * rather than by one pattern with a lazy prefix, which backtracks quadratically over spaces.
 */
function matchStatLine(t: string): { name: string; label: string; percentile?: string; value: string } | undefined {
  const found = STAT_LABEL.exec(t);
  if (!found) return undefined;
  let label = found[1] ?? "";
  let before = t.slice(0, found.index);
  let percentile: string | undefined;
  if (label === "'th percentile") {
    // The percentile's digits end right before the label; the words before them are the name.
    let digitsStart = before.length;
    while (digitsStart > 0 && /[\d.]/.test(before[digitsStart - 1] ?? "")) digitsStart--;
    const digits = before.slice(digitsStart);
    if (!PERCENTILE_BEFORE_LABEL.test(` ${digits}`)) return undefined;
    percentile = digits;
    label = `${digits}'th percentile`;
    before = before.slice(0, digitsStart);
  }
  const rest = t.slice(found.index + (found[1] ?? "").length);
  if (!/^\s/.test(rest)) return undefined;
  const value = rest.trim();
  if (!STAT_VALUE.test(value)) return undefined;
  return { name: before.trim(), label, percentile, value };
}

/** A request line drill prints without --quiet: name, URL, status and reason, time. */
function matchRequestLine(t: string): { status: string } | undefined {
  const parts = words(t);
  const last = parts[parts.length - 1] ?? "";
  if (parts.length < 4 || !/^\d+(?:\.\d+)?(?:ms|ns)$/.test(last)) return undefined;
  for (let i = 1; i < parts.length - 2; i++) {
    const word = parts[i] ?? "";
    const scheme = word.indexOf("://");
    if (scheme > 0 && scheme + 3 < word.length) {
      const status = /^(\d{3})(?!\w)/.exec(parts[i + 1] ?? "");
      return status ? { status: status[1] ?? "" } : undefined;
    }
  }
  return undefined;
}

/** The global block must be complete; drill 0.9.0 has no "Max time per request" line. */
const REQUIRED_GLOBAL: [keyof StatsBlock, string][] = [
  ["durationS", "Time taken for tests"],
  ["requests", "Total requests"],
  ["success", "Successful requests"],
  ["failed", "Failed requests"],
  ["rps", "Requests per second"],
  ["medianMs", "Median time per request"],
  ["meanMs", "Average time per request"],
  ["stddevMs", "Sample standard deviation"],
];

/**
 * drill `--stats` output (ANSI colours stripped), with or without `--quiet` and `--nanosec`.
 * Per-request-name blocks are kept in `extra.steps` in the metric vocabulary's units.
 */
export function parseDrill(text: string): TNormalizedRun {
  const lines = splitLines(text, { format: FORMAT });
  const global: StatsBlock = { percentilesMs: {} };
  const steps = new Map<string, StatsBlock>();
  const header: { concurrency?: number; iterations?: number; rampupS?: number; baseUrl?: string } = {};
  const statusCounts: Record<string, number> = {};
  let requestLines = 0;
  const unknown: { line: number; text: string }[] = [];

  for (const line of lines) {
    const t = line.text.trim();
    if (t === "") continue;
    let m = /^(Concurrency|Iterations|Rampup) (\d+)$/.exec(t);
    if (m) {
      const value = Number(m[2]);
      if (m[1] === "Concurrency") header.concurrency = value;
      else if (m[1] === "Iterations") header.iterations = value;
      else header.rampupS = value;
      continue;
    }
    m = /^Base URL (\S+)$/.exec(t);
    if (m) {
      header.baseUrl = m[1];
      continue;
    }
    const stat = matchStatLine(t);
    if (stat) {
      const { name } = stat;
      const block = name === "" ? global : (steps.get(name) ?? { percentilesMs: {} });
      if (name !== "") steps.set(name, block);
      readStat(line, block, stat.label, stat.percentile, stat.value);
      continue;
    }
    const request = matchRequestLine(t);
    if (request) {
      requestLines++;
      statusCounts[request.status] = (statusCounts[request.status] ?? 0) + 1;
      continue;
    }
    if (STAT_LABEL.test(t)) {
      throw new ImportError(
        FORMAT,
        `expected "<label> <value>" with a count, a time such as 12ms, seconds or [#/sec], got "${t}"`,
        {
          line: line.no,
        },
      );
    }
    unknown.push({ line: line.no, text: t });
  }

  const end = lastLineNo(lines);
  for (const [key, label] of REQUIRED_GLOBAL) {
    if (global[key] === undefined) {
      throw new ImportError(FORMAT, `no global "${label}" line (output truncated, or not run with --stats?)`, {
        line: end,
      });
    }
  }
  const requests = global.requests ?? 0;
  const failed = global.failed ?? 0;
  // Request lines (no --quiet) give every status; only trust them when they cover the whole run.
  const statusesKnown = requestLines > 0 && requestLines === requests;
  const errors: TErrorEntry[] = statusesKnown
    ? Object.entries(statusCounts)
        // drill counts every non-2xx response as failed.
        .filter(([code]) => Number(code) < 200 || Number(code) >= 300)
        .map(([code, count]) => statusError(Number(code), count))
    : failed > 0
      ? [{ kind: "status", message: "non-2xx response or connection error (drill does not say which)", count: failed }]
      : [];

  return buildRun(FORMAT, {
    tool: { name: "drill" },
    durationS: global.durationS,
    scenario: {
      name: "drill",
      engine: "http-closed",
      spec: { concurrency: header.concurrency, iterations: header.iterations, rampupS: header.rampupS },
    },
    target: header.baseUrl !== undefined && URL.canParse(header.baseUrl) ? { url: header.baseUrl } : undefined,
    metrics: blockMetrics(global),
    statusCounts: statusesKnown ? statusCounts : undefined,
    errors,
    extra: {
      latencyPercentilesMs: global.percentilesMs,
      steps: [...steps].map(([name, block]) => ({
        name,
        metrics: blockMetrics(block),
        latencyPercentilesMs: block.percentilesMs,
      })),
      unrecognizedLines: unknown.length > 0 ? unknown : undefined,
    },
  });
}

function blockMetrics(block: StatsBlock): Record<string, number | undefined> {
  return {
    requests: block.requests,
    success: block.success,
    failed: block.failed,
    rps: block.rps,
    latency_mean: block.meanMs,
    latency_stddev: block.stddevMs,
    latency_max: block.maxMs,
    ...percentileMetrics(block.percentilesMs),
    latency_p50: block.medianMs,
  };
}

function readStat(
  line: TextLine,
  block: StatsBlock,
  label: string,
  percentile: string | undefined,
  value: string,
): void {
  const count = (): number => {
    if (!/^\d+$/.test(value)) bad(line, label, "a whole number", value);
    return Number(value);
  };
  const time = (): number => {
    const m = /^(\d+(?:\.\d+)?)(ms|ns)$/.exec(value);
    if (!m) bad(line, label, "a time such as 12ms or 12000ns", value);
    return m[2] === "ns" ? roundTo(Number(m[1]) / 1e6) : Number(m[1]);
  };
  if (percentile !== undefined) {
    block.percentilesMs[percentileLabel(Number(percentile))] = time();
    return;
  }
  switch (label) {
    case "Total requests":
      block.requests = count();
      return;
    case "Successful requests":
      block.success = count();
      return;
    case "Failed requests":
      block.failed = count();
      return;
    case "Median time per request":
      block.medianMs = time();
      return;
    case "Average time per request":
      block.meanMs = time();
      return;
    case "Sample standard deviation":
      block.stddevMs = time();
      return;
    case "Max time per request":
      block.maxMs = time();
      return;
    case "Time taken for tests": {
      const m = /^(\d+(?:\.\d+)?) seconds$/.exec(value);
      if (!m) bad(line, label, "seconds such as 12.4 seconds", value);
      block.durationS = Number(m[1]);
      return;
    }
    case "Requests per second": {
      const m = /^(\d+(?:\.\d+)?) \[#\/sec\]$/.exec(value);
      if (!m) bad(line, label, "a rate such as 201.61 [#/sec]", value);
      block.rps = Number(m[1]);
      return;
    }
  }
}

function bad(line: TextLine, label: string, expected: string, got: string): never {
  throw new ImportError(FORMAT, `"${label}" should be ${expected}, got "${got}"`, { line: line.no });
}
