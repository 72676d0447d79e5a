import type { TErrorEntry } from "../run-result";
import { buildRun } from "./build";
import { ImportError } from "./import-error";
import type { TNormalizedRun } from "./normalized-run";
import { percentileLabel, percentileMetrics } from "./percentiles";
import { lastLineNo, parseDecimal, splitLines, type TextLine } from "./text";
import { roundTo } from "./units";

const FORMAT = "ab";

interface ConnectionTimes {
  min: number;
  mean: number;
  sd: number;
  median: number;
  max: number;
}

/** `Key:   value` lines of ab's report, by key. */
const FIELD_LINE = /^([A-Za-z][A-Za-z0-9 /.-]*?):\s*(.*)$/;
const TIMES_ROW = /^(Connect|Processing|Waiting|Total):\s+(\d+)\s+(\d+)\s+(\d+(?:\.\d+)?)\s+(\d+)\s+(\d+)$/;
const PERCENT_ROW = /^(\d+(?:\.\d+)?)%\s+(\d+)(?: \(longest request\))?$/;

/**
 * ApacheBench (`ab`) report. ab's "Failed requests" mixes real failures with "Length" mismatches
 * (a body whose length differs from the first response's, normal for dynamic pages), so failed
 * requests here are non-2xx responses plus receive errors and exceptions; the breakdown is kept.
 */
export function parseAb(text: string): TNormalizedRun {
  const lines = splitLines(text, { format: FORMAT });
  const fields = new Map<string, { value: string; line: TextLine }>();
  const timePerRequest: { line: TextLine; value: string }[] = [];
  const connectionTimes: Record<string, ConnectionTimes> = {};
  const percentilesMs: Record<string, number> = {};
  let failedBreakdown: { connect: number; receive: number; length: number; exceptions: number } | undefined;
  let version: string | undefined;
  const transferRates: Record<string, number> = {};
  const warnings: string[] = [];
  const unknown: { line: number; text: string }[] = [];
  let section: "fields" | "times" | "percentiles" = "fields";

  for (const line of lines) {
    const t = line.text.trim();
    if (t === "") continue;
    let m = /^This is ApacheBench, Version (\S+)/.exec(t);
    if (m) {
      version = m[1];
      continue;
    }
    if (
      /^(Copyright|Licensed to|Benchmarking |Completed \d+ requests|Finished \d+ requests|Total of \d+ requests)/.test(
        t,
      )
    ) {
      continue;
    }
    if (t === "Connection Times (ms)") {
      section = "times";
      continue;
    }
    if (t.startsWith("Percentage of the requests served")) {
      section = "percentiles";
      continue;
    }
    // ab's verdict on its own statistics, printed after "Connection Times" for each row whose
    // mean and median are more than one (WARNING) or two (ERROR) standard deviations apart,
    // each over two lines. Kept as one sentence per block, and as the run's notes.
    if (/^(WARNING|ERROR): /.test(t)) {
      warnings.push(t);
      continue;
    }
    const last = warnings.length - 1;
    if (last >= 0 && /^(deviation apart\. )?These results are (probably not that|NOT) reliable\.?$/.test(t)) {
      const previous = warnings[last] ?? "";
      warnings[last] = /^[A-Z]/.test(t) && !/[.!]$/.test(previous) ? `${previous}. ${t}` : `${previous} ${t}`;
      continue;
    }
    if (section === "times") {
      if (/^min\s+mean\[\+\/-sd\]\s+median\s+max$/.test(t)) continue;
      m = TIMES_ROW.exec(t);
      if (!m) fail(line, 'a "Connection Times" row such as "Total: 1 4 2.9 4 21"');
      connectionTimes[(m[1] ?? "").toLowerCase()] = {
        min: Number(m[2]),
        mean: Number(m[3]),
        sd: Number(m[4]),
        median: Number(m[5]),
        max: Number(m[6]),
      };
      continue;
    }
    if (section === "percentiles") {
      m = PERCENT_ROW.exec(t);
      if (!m) fail(line, 'a percentile row such as "99%  12"');
      percentilesMs[percentileLabel(Number(m[1]))] = Number(m[2]);
      continue;
    }
    m = /^\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)$/.exec(t);
    if (m) {
      failedBreakdown = {
        connect: Number(m[1]),
        receive: Number(m[2]),
        length: Number(m[3]),
        exceptions: Number(m[4]),
      };
      continue;
    }
    m = /^(\d+(?:\.\d+)?) kb\/s (sent|total)$/.exec(t);
    if (m) {
      transferRates[m[2] === "sent" ? "sentKBytesPerSec" : "totalKBytesPerSec"] = Number(m[1]);
      continue;
    }
    m = FIELD_LINE.exec(t);
    if (m) {
      const key = m[1] ?? "";
      if (key === "Time per request") timePerRequest.push({ line, value: m[2] ?? "" });
      else fields.set(key, { value: m[2] ?? "", line });
      continue;
    }
    unknown.push({ line: line.no, text: t });
  }

  const end = lastLineNo(lines);
  const required = (key: string): { value: string; line: TextLine } => {
    const f = fields.get(key);
    if (!f) throw new ImportError(FORMAT, `no "${key}:" line (output truncated?)`, { line: end });
    return f;
  };
  const int = (key: string, suffix = ""): number | undefined => {
    const f = fields.get(key);
    return f ? matchNumber(f, key, new RegExp(`^(\\d+)${suffix}$`), `a whole number${suffix}`) : undefined;
  };

  const requests = matchNumber(required("Complete requests"), "Complete requests", /^(\d+)$/, "a whole number");
  const durationS = matchNumber(
    required("Time taken for tests"),
    "Time taken for tests",
    /^(\d+(?:\.\d+)?) seconds$/,
    "seconds",
  );
  const rps = matchNumber(
    required("Requests per second"),
    "Requests per second",
    /^(\d+(?:\.\d+)?) \[#\/sec\] \(mean\)$/,
    "[#/sec] (mean)",
  );
  required("Failed requests");
  if (!connectionTimes.total) {
    throw new ImportError(FORMAT, 'no "Total:" row in "Connection Times (ms)" (output truncated?)', { line: end });
  }
  if (section === "percentiles" && percentilesMs["100"] === undefined) {
    throw new ImportError(FORMAT, 'the percentile table has no "100%" row (output truncated?)', { line: end });
  }
  const non2xx = int("Non-2xx responses") ?? 0;
  const writeErrors = int("Write errors") ?? 0;
  const breakdown = failedBreakdown ?? { connect: 0, receive: 0, length: 0, exceptions: 0 };
  const htmlBytes = int("HTML transferred", " bytes");
  const totalBytes = int("Total transferred", " bytes");
  // ab counts a connection closed before any byte arrived as a complete, successful request.
  const noResponse = requests > 0 && totalBytes === 0;
  const failed = noResponse ? requests : Math.min(requests, non2xx + breakdown.receive + breakdown.exceptions);
  const total = connectionTimes.total;
  const hasLatency = requests > 0 && !noResponse;

  const errors: TErrorEntry[] = [];
  if (non2xx > 0) errors.push({ kind: "status", message: "non-2xx response", count: non2xx });
  if (breakdown.connect > 0) errors.push({ kind: "connect", message: "connect error", count: breakdown.connect });
  if (breakdown.receive > 0) errors.push({ kind: "transport", message: "receive error", count: breakdown.receive });
  if (breakdown.exceptions > 0) errors.push({ kind: "transport", message: "exception", count: breakdown.exceptions });
  if (writeErrors > 0) errors.push({ kind: "transport", message: "write error", count: writeErrors });
  if (noResponse) {
    errors.push({
      kind: "transport",
      message: "connection closed without a response (ab counts it as complete)",
      count: requests,
    });
  }

  const host = fields.get("Server Hostname")?.value;
  const port = fields.get("Server Port")?.value;
  const path = fields.get("Document Path")?.value;
  const scheme = fields.has("SSL/TLS Protocol") ? "https" : "http";
  const url =
    host && port && path ? `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}${path}` : undefined;

  return buildRun(FORMAT, {
    tool: { name: "ab", version },
    notes: warnings.length > 0 ? warnings.map((w) => `ab: ${w}`).join("\n") : undefined,
    durationS,
    scenario: { name: "ab", engine: "http-closed", spec: { concurrency: int("Concurrency Level") } },
    target: url !== undefined && URL.canParse(url) ? { url } : undefined,
    metrics: {
      requests,
      success: requests - failed,
      failed,
      rps,
      failed_connections: breakdown.connect > 0 ? breakdown.connect : undefined,
      latency_min: hasLatency ? total.min : undefined,
      latency_mean: hasLatency ? total.mean : undefined,
      latency_stddev: hasLatency ? total.sd : undefined,
      latency_max: hasLatency ? total.max : undefined,
      ...(hasLatency ? percentileMetrics(percentilesMs) : {}),
      res_bytes_avg: htmlBytes !== undefined && hasLatency ? roundTo(htmlBytes / requests) : undefined,
    },
    errors,
    extra: {
      latencyPercentilesMs: Object.keys(percentilesMs).length > 0 ? percentilesMs : undefined,
      connectionTimesMs: connectionTimes,
      failedRequests: int("Failed requests"),
      failedBreakdown,
      keepAliveRequests: int("Keep-Alive requests"),
      serverSoftware: fields.get("Server Software")?.value,
      documentLength: fields.get("Document Length")?.value,
      totalTransferredBytes: totalBytes,
      totalBodySentBytes: int("Total body sent"),
      htmlTransferredBytes: htmlBytes,
      timePerRequestMs: timePerRequestValues(timePerRequest),
      transferRateKBytesPerSec: optionalNumber(
        fields.get("Transfer rate"),
        /^(\d+(?:\.\d+)?) \[Kbytes\/sec\] received$/,
      ),
      ...transferRates,
      tls: fields.get("SSL/TLS Protocol")?.value,
      warnings: warnings.length > 0 ? warnings : undefined,
      otherFields: otherFields(fields),
      unrecognizedLines: unknown.length > 0 ? unknown : undefined,
    },
  });
}

function fail(line: TextLine, expected: string): never {
  throw new ImportError(FORMAT, `expected ${expected}, got "${line.text.trim()}"`, { line: line.no });
}

function matchNumber(field: { value: string; line: TextLine }, key: string, pattern: RegExp, expected: string): number {
  const m = pattern.exec(field.value.trim());
  const n = m ? parseDecimal(m[1] ?? "") : undefined;
  if (n === undefined || !Number.isFinite(n)) {
    throw new ImportError(FORMAT, `"${key}" should be ${expected}, got "${field.value.trim()}"`, {
      line: field.line.no,
    });
  }
  return n;
}

function optionalNumber(field: { value: string; line: TextLine } | undefined, pattern: RegExp): number | undefined {
  if (!field) return undefined;
  const m = pattern.exec(field.value.trim());
  return m ? Number(m[1]) : undefined;
}

/** ab prints "Time per request" twice: per concurrent batch, then across all concurrent requests. */
function timePerRequestValues(rows: { line: TextLine; value: string }[]): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  for (const { line, value } of rows) {
    const m = /^(\d+(?:\.\d+)?) \[ms\] \(mean(, across all concurrent requests)?\)$/.exec(value.trim());
    if (!m) fail(line, '"Time per request: <ms> [ms] (mean…)"');
    out[m[2] ? "meanAcrossConcurrent" : "mean"] = Number(m[1]);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

const KNOWN_FIELDS = new Set([
  "Server Software",
  "Server Hostname",
  "Server Port",
  "SSL/TLS Protocol",
  "Document Path",
  "Document Length",
  "Concurrency Level",
  "Time taken for tests",
  "Complete requests",
  "Failed requests",
  "Non-2xx responses",
  "Write errors",
  "Keep-Alive requests",
  "Total transferred",
  "Total body sent",
  "HTML transferred",
  "Requests per second",
  "Transfer rate",
]);

function otherFields(fields: Map<string, { value: string }>): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [key, { value }] of fields) if (!KNOWN_FIELDS.has(key)) out[key] = value;
  return Object.keys(out).length > 0 ? out : undefined;
}
