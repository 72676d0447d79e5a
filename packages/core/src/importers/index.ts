import { parseAb } from "./ab";
import { looksLikeBifrost, parseBifrost } from "./bifrost";
import { parseDrill } from "./drill";
import { looksLikeGatling, parseGatling } from "./gatling";
import { parseHey } from "./hey";
import { ImportError } from "./import-error";
import { parseJmeter } from "./jmeter";
import { isObject } from "./json";
import { k6SummaryShape, parseK6 } from "./k6";
import type { TNormalizedRun } from "./normalized-run";
import { looksLikeOha, parseOha } from "./oha";
import { parseK6Stream, parseVegetaResults } from "./request-stream";
import { MAX_LINE_CHARS, stripAnsi } from "./text";
import { looksLikeVegeta, parseVegeta } from "./vegeta";
import { parseWrk } from "./wrk";

export { parseAb } from "./ab";
export { type BifrostOptions, bifrostProviders, parseBifrost } from "./bifrost";
export { parseDrill } from "./drill";
export { parseGatling } from "./gatling";
export { parseHey } from "./hey";
export { ImportError, type ImportErrorLocation } from "./import-error";
export { parseJmeter } from "./jmeter";
export {
  jsonTooDeep,
  MAX_JSON_DEPTH,
  parseRequestJson,
  type RequestBodyFailure,
  refuseReservedKey,
} from "./json";
export { type K6SummaryShape, parseK6 } from "./k6";
export { looksLikeNativeRun, parseNativeRun } from "./native";
export * from "./normalized-run";
export { parseOha } from "./oha";
export {
  K6_STREAM_FORMAT,
  LineSplitter,
  type LiveSecond,
  parseK6Stream,
  parseK6StreamLine,
  parseVegetaResultLine,
  parseVegetaResults,
  RequestAggregator,
  type RequestSample,
  type StreamProgress,
  VEGETA_STREAM_FORMAT,
} from "./request-stream";
export { forEachLine, type LineOptions, MAX_LINE_CHARS, splitLines, type TextLine, words } from "./text";
export { parseVegeta } from "./vegeta";
export { parseWrk } from "./wrk";

/** Formats the importers read. wrk2 output is read by the `wrk` importer. */
export const IMPORT_FORMATS = [
  "k6",
  "drill",
  "wrk",
  "hey",
  "ab",
  "vegeta",
  "bifrost",
  "k6-json",
  "vegeta-results",
  "oha",
  "gatling",
  "jmeter",
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Other names people use for a format. */
const FORMAT_ALIASES: Record<string, ImportFormat> = {
  wrk2: "wrk",
  apachebench: "ab",
  "bifrost-benchmarking": "bifrost",
  "k6-stream": "k6-json",
  "vegeta-encode": "vegeta-results",
  jtl: "jmeter",
};

export function resolveImportFormat(name: string): ImportFormat | undefined {
  const lower = name.toLowerCase();
  return (IMPORT_FORMATS as readonly string[]).includes(lower) ? (lower as ImportFormat) : FORMAT_ALIASES[lower];
}

export interface ImportOptions {
  /** bifrost-benchmarking: which provider's run to take from results.json. */
  provider?: string;
}

/** Every run in the input: one, except for a bifrost-benchmarking file with several providers. */
export function importRuns(format: ImportFormat | "auto", text: string, options: ImportOptions = {}): TNormalizedRun[] {
  const resolved = format === "auto" ? detectOrFail(text) : format;
  switch (resolved) {
    case "k6":
      return [parseK6(text)];
    case "drill":
      return [parseDrill(text)];
    case "wrk":
      return [parseWrk(text)];
    case "hey":
      return [parseHey(text)];
    case "ab":
      return [parseAb(text)];
    case "vegeta":
      return [parseVegeta(text)];
    case "k6-json":
      return [parseK6Stream(text)];
    case "vegeta-results":
      return [parseVegetaResults(text)];
    case "oha":
      return [parseOha(text)];
    case "gatling":
      return [parseGatling(text)];
    case "jmeter":
      return [parseJmeter(text)];
    case "bifrost":
      return options.provider !== undefined ? [parseBifrost(text, { provider: options.provider })] : parseBifrost(text);
  }
}

/** The one run in the input; a bifrost-benchmarking file with several providers needs `options.provider`. */
export function importRun(format: ImportFormat | "auto", text: string, options: ImportOptions = {}): TNormalizedRun {
  const runs = importRuns(format, text, options);
  const [first] = runs;
  if (runs.length === 1 && first) return first;
  const providers = runs.map((r) => r.target?.name ?? "?").join(", ");
  throw new ImportError("bifrost", `holds results for ${runs.length} providers (${providers}): choose one`, {
    field: "(document)",
  });
}

/** Recognises a format from the content alone; undefined when nothing fits. Linear time. */
export function detectFormat(text: string): ImportFormat | undefined {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const trimmed = source.trimStart();
  if (trimmed.startsWith("{")) return detectJson(trimmed);
  // JMeter's CSV results start with their header line.
  if (/^timeStamp,elapsed,/.test(trimmed)) return "jmeter";
  const seen = new Set<string>();
  // Each line is tested on its own with patterns anchored at its start: a multi-line pattern
  // such as /^\s*…/m backtracks over every blank line after each line start.
  let start = 0;
  while (start <= source.length) {
    const end = source.indexOf("\n", start);
    const stop = end === -1 ? source.length : end;
    if (stop - start <= MAX_LINE_CHARS) {
      const line = stripAnsi(source.slice(start, stop)).trim();
      for (const [key, pattern] of DETECT_LINES) if (pattern.test(line)) seen.add(key);
    }
    if (end === -1) break;
    start = end + 1;
  }
  if (seen.has("abBanner") || (seen.has("abConcurrency") && seen.has("abTime"))) return "ab";
  if (seen.has("wrkRunning") || seen.has("wrkRequests")) return "wrk";
  if (seen.has("heySummary") && seen.has("heyRps")) return "hey";
  if (seen.has("drillTotal") && seen.has("drillRps")) return "drill";
  return undefined;
}

const DETECT_LINES: [string, RegExp][] = [
  ["abBanner", /^This is ApacheBench/],
  ["abConcurrency", /^Concurrency Level:/],
  ["abTime", /^Time taken for tests:/],
  ["wrkRunning", /^Running \S+ test @ /],
  ["wrkRequests", /^\d+ requests in \S+, \S+ read$/],
  ["heySummary", /^Summary:$/],
  ["heyRps", /^Requests\/sec:\s/],
  ["drillTotal", /^Total requests\s+\d+$/],
  ["drillRps", /^Requests per second\s+[\d.]+ \[#\/sec\]$/],
];

function detectJson(text: string): ImportFormat | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // k6's `--out json` and `vegeta encode` write one JSON object per line.
    const firstLine = text.slice(0, Math.max(0, text.indexOf("\n")) || text.length);
    try {
      const first = JSON.parse(firstLine) as unknown;
      if (isObject(first) && (first.type === "Metric" || first.type === "Point")) return "k6-json";
      if (isObject(first) && "seq" in first && "code" in first && "latency" in first) return "vegeta-results";
    } catch {
      // fall through: not JSON we know
    }
    return undefined;
  }
  if (!isObject(doc)) return undefined;
  if (
    k6SummaryShape(doc) !== undefined &&
    ("root_group" in doc || "results" in doc || "state" in doc || isK6Metrics(doc))
  ) {
    return "k6";
  }
  if (looksLikeVegeta(doc)) return "vegeta";
  if (looksLikeOha(doc)) return "oha";
  if (looksLikeGatling(doc)) return "gatling";
  if (looksLikeBifrost(doc)) return "bifrost";
  return undefined;
}

function isK6Metrics(doc: Record<string, unknown>): boolean {
  return isObject(doc.metrics) && ("http_reqs" in doc.metrics || "iterations" in doc.metrics);
}

function detectOrFail(text: string): ImportFormat {
  const format = detectFormat(text);
  if (format) return format;
  throw new ImportError(
    "input",
    "could not tell the format: expected a k6 summary or --out json stream, vegeta, oha, Gatling or bifrost-benchmarking JSON, vegeta encode results, a JMeter CSV results file, or wrk, hey, ab or drill text output (name the format explicitly)",
  );
}
