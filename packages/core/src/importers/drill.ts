import type { TErrorEntry } from "../run-result";
import { buildRun, statusError } from "./build";
import { ImportError } from "./import-error";
import type { TNormalizedRun } from "./normalized-run";
import { percentileLabel, percentileMetrics } from "./percentiles";
import { lastLineNo, splitLines, type TextLine } from "./text";
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

const STAT_LINE =
  /^(.*?)\s*(Total requests|Successful requests|Failed requests|Median time per request|Average time per request|Sample standard deviation|Max time per request|(\d+(?:\.\d+)?)'th percentile|Time taken for tests|Requests per second)\s+(\d+(?:\.\d+)?(?:ms|ns)?|\d+(?:\.\d+)? seconds|\d+(?:\.\d+)? \[#\/sec\])$/;
const STAT_LABEL =
  /(Total requests|Successful requests|Failed requests|Median time per request|Average time per request|Sample standard deviation|Max time per request|'th percentile|Time taken for tests|Requests per second)/;
/** A request line drill prints without --quiet: name, URL, status and reason, time. */
const REQUEST_LINE = /^(.*?)\s+(\S+:\/\/\S+) (\d{3})\b.*? (\d+(?:\.\d+)?)(ms|ns)$/;

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
  const lines = splitLines(text);
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
    m = STAT_LINE.exec(t);
    if (m) {
      const name = m[1] ?? "";
      const block = name === "" ? global : (steps.get(name) ?? { percentilesMs: {} });
      if (name !== "") steps.set(name, block);
      readStat(line, block, m[2] ?? "", m[3], m[4] ?? "");
      continue;
    }
    m = REQUEST_LINE.exec(t);
    if (m) {
      requestLines++;
      statusCounts[m[3] ?? ""] = (statusCounts[m[3] ?? ""] ?? 0) + 1;
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
