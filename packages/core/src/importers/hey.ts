import type { TErrorEntry } from "../run-result";
import { buildRun, countsFromStatuses, isFailureStatus, statusError, transportErrorKind } from "./build";
import { ImportError } from "./import-error";
import type { TNormalizedRun } from "./normalized-run";
import { percentileLabel, percentileMetrics } from "./percentiles";
import { lastLineNo, parseDecimal, splitLines, type TextLine } from "./text";
import { roundTo, secondsToMs } from "./units";

const FORMAT = "hey";

type Section = "none" | "summary" | "histogram" | "latency" | "details" | "status" | "errors";

const SECTION_TITLES: Record<string, Section> = {
  "Summary:": "summary",
  "Response time histogram:": "histogram",
  "Latency distribution:": "latency",
  "Details (average, fastest, slowest):": "details",
  "Status code distribution:": "status",
  "Error distribution:": "errors",
};

/**
 * hey's default text report. All times are seconds with 4 decimals (so 0.0000 means under
 * 50 µs). With no response at all hey prints 0.0000/NaN latencies: those are left out.
 */
export function parseHey(text: string): TNormalizedRun {
  const lines = splitLines(text, { format: FORMAT });
  let section: Section = "none";
  const summary: Record<string, number> = {};
  const histogram: { markMs: number; count: number }[] = [];
  const percentilesMs: Record<string, number> = {};
  const phases: Record<string, { average?: number; fastest?: number; slowest?: number }> = {};
  const statusCounts: Record<string, number> = {};
  const transportErrors: TErrorEntry[] = [];
  const seen = new Set<Section>();
  const unknown: { line: number; text: string }[] = [];

  for (const line of lines) {
    const t = line.text.trim();
    if (t === "") continue;
    const title = SECTION_TITLES[t];
    if (title) {
      section = title;
      seen.add(title);
      continue;
    }
    switch (section) {
      case "summary": {
        const m = /^(Total|Slowest|Fastest|Average|Requests\/sec|Total data|Size\/request):\s*(.*)$/.exec(t);
        if (!m) break;
        const key = m[1] ?? "";
        const unit = key === "Requests/sec" ? "" : key === "Total data" || key === "Size/request" ? " bytes" : " secs";
        summary[key] = numberWithUnit(line, m[2] ?? "", unit, key);
        continue;
      }
      case "histogram": {
        const m = /^(\d+(?:\.\d+)?) \[(\d+)\]\s*\|/.exec(t);
        if (!m) fail(line, 'a histogram row such as "0.012 [843] |■■■"');
        histogram.push({ markMs: roundTo(secondsToMs(Number(m[1]))), count: Number(m[2]) });
        continue;
      }
      case "latency": {
        // hey 0.1.5 (today's `go install`) prints the row through a template that doubles the
        // percent sign ("99%% in …"); Debian's 0.1.4 prints one.
        const m = /^(\d+(?:\.\d+)?)%{1,2} in (\S+) secs$/.exec(t);
        if (!m) fail(line, 'a percentile row such as "99% in 0.0123 secs"');
        percentilesMs[percentileLabel(Number(m[1]))] = roundTo(
          secondsToMs(numberWithUnit(line, m[2] ?? "", "", `${m[1]}%`)),
        );
        continue;
      }
      case "details": {
        const m = /^([^:]+):\s*(\S+) secs, (\S+) secs, (\S+) secs$/.exec(t);
        if (!m) fail(line, 'a details row such as "resp wait: 0.0012 secs, 0.0001 secs, 0.0200 secs"');
        const [average, fastest, slowest] = [m[2], m[3], m[4]].map((v) => {
          const s = numberWithUnit(line, v ?? "", "", m[1] ?? "");
          return Number.isNaN(s) ? undefined : roundTo(secondsToMs(s));
        });
        phases[m[1] ?? ""] = { average, fastest, slowest };
        continue;
      }
      case "status": {
        const m = /^\[(\d+)\]\s+(\d+) responses$/.exec(t);
        if (!m) fail(line, 'a status row such as "[200] 998 responses"');
        statusCounts[m[1] ?? ""] = Number(m[2]);
        continue;
      }
      case "errors": {
        const m = /^\[(\d+)\]\s+(.*)$/.exec(t);
        if (!m) fail(line, 'an error row such as "[3] Get …: connection refused"');
        const message = m[2] ?? "";
        transportErrors.push({ kind: transportErrorKind(message), message, count: Number(m[1]) });
        continue;
      }
      default:
        break;
    }
    unknown.push({ line: line.no, text: t });
  }

  const end = lastLineNo(lines);
  for (const key of ["Total", "Requests/sec"]) {
    if (summary[key] === undefined) {
      throw new ImportError(FORMAT, `no "${key}:" line in the Summary (output truncated?)`, { line: end });
    }
  }
  if (!seen.has("status")) {
    throw new ImportError(FORMAT, 'no "Status code distribution:" section (output truncated?)', { line: end });
  }

  const transportFailures = transportErrors.reduce((n, e) => n + e.count, 0);
  const counts = countsFromStatuses(statusCounts, transportFailures);
  const responses = counts.requests - transportFailures;
  const hasLatency = responses > 0;
  const seconds = (key: string) => {
    const v = summary[key];
    return hasLatency && v !== undefined && !Number.isNaN(v) ? roundTo(secondsToMs(v)) : undefined;
  };
  const errors: TErrorEntry[] = [
    ...Object.entries(statusCounts)
      .filter(([code]) => isFailureStatus(Number(code)))
      .map(([code, count]) => statusError(Number(code), count)),
    ...transportErrors,
  ];

  return buildRun(FORMAT, {
    tool: { name: "hey" },
    durationS: summary.Total,
    scenario: { name: "hey", engine: "http-closed" },
    metrics: {
      ...counts,
      rps: summary["Requests/sec"],
      latency_min: seconds("Fastest"),
      latency_mean: seconds("Average"),
      latency_max: seconds("Slowest"),
      ...(hasLatency ? percentileMetrics(percentilesMs) : {}),
      res_bytes_avg: summary["Size/request"],
    },
    statusCounts,
    errors,
    extra: {
      latencyPercentilesMs: Object.keys(percentilesMs).length > 0 ? percentilesMs : undefined,
      totalDataBytes: summary["Total data"],
      responseTimeHistogram: histogram.length > 0 ? histogram : undefined,
      // hey's DNS+dialup row prints the overall fastest and slowest request, not the dial times.
      phasesMs: Object.keys(phases).length > 0 && hasLatency ? phases : undefined,
      unrecognizedLines: unknown.length > 0 ? unknown : undefined,
    },
  });
}

function fail(line: TextLine, expected: string): never {
  throw new ImportError(FORMAT, `expected ${expected}, got "${line.text.trim()}"`, { line: line.no });
}

function numberWithUnit(line: TextLine, value: string, unit: string, field: string): number {
  const trimmed = value.trim();
  const body = unit !== "" && trimmed.endsWith(unit) ? trimmed.slice(0, -unit.length).trim() : trimmed;
  const n = unit !== "" && !trimmed.endsWith(unit) ? undefined : parseDecimal(body);
  if (n === undefined || n === Number.POSITIVE_INFINITY || n === Number.NEGATIVE_INFINITY) {
    throw new ImportError(FORMAT, `"${field}" should be a number${unit}, got "${trimmed}"`, { line: line.no });
  }
  return n;
}
