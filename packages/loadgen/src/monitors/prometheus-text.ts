/**
 * Parser for the Prometheus text exposition format (0.0.4), also reading the OpenMetrics
 * additions that show up in practice (`# EOF`, `# UNIT`, quoted metric names). It is tolerant:
 * a malformed line is reported in `errors` and skipped, because one bad line from a target's
 * custom collector should not hide its memory and CPU.
 */
export type PrometheusMetricType =
  | "counter"
  | "gauge"
  | "histogram"
  | "summary"
  | "untyped"
  | "info"
  | "stateset"
  | "gaugehistogram"
  | "unknown";

export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  /** May be NaN, +Infinity or -Infinity, as the format allows. */
  value: number;
  timestampMs?: number;
}

export interface PrometheusFamily {
  type: PrometheusMetricType;
  help?: string;
  unit?: string;
}

export interface PrometheusParseResult {
  samples: PrometheusSample[];
  /** Metadata from `# TYPE`, `# HELP` and `# UNIT` lines, by family name. */
  families: Record<string, PrometheusFamily>;
  errors: { line: number; message: string }[];
}

export class PrometheusParseError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = "PrometheusParseError";
  }
}

export function parsePrometheusText(text: string, options: { strict?: boolean } = {}): PrometheusParseResult {
  const result: PrometheusParseResult = { samples: [], families: {}, errors: [] };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = lines[i]!.replace(/\r$/, "");
    if (line.trim() === "") continue;
    try {
      if (line.startsWith("#")) parseComment(line, result);
      else result.samples.push(parseSample(line));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (options.strict) throw new PrometheusParseError(lineNo, message);
      result.errors.push({ line: lineNo, message });
    }
  }
  return result;
}

function parseComment(line: string, result: PrometheusParseResult): void {
  const m = /^#\s+(HELP|TYPE|UNIT)\s+(\S+)(?:\s(.*))?$/.exec(line);
  if (!m) return; // a plain comment, or `# EOF`
  const [, keyword, rawName, rest = ""] = m;
  const name = rawName!.startsWith('"') ? unquoteName(rawName!) : rawName!;
  const family = result.families[name] ?? { type: "untyped" };
  if (keyword === "HELP") family.help = unescapeHelp(rest);
  else if (keyword === "UNIT") family.unit = rest.trim();
  else {
    const type = rest.trim().toLowerCase();
    if (!TYPES.has(type)) throw new Error(`unknown metric type ${JSON.stringify(type)}`);
    family.type = type as PrometheusMetricType;
  }
  result.families[name] = family;
}

const TYPES = new Set([
  "counter",
  "gauge",
  "histogram",
  "summary",
  "untyped",
  "info",
  "stateset",
  "gaugehistogram",
  "unknown",
]);

function unquoteName(raw: string): string {
  return raw.slice(1, raw.endsWith('"') ? -1 : undefined).replace(/\\(["\\])/g, "$1");
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\"));
}

function parseSample(line: string): PrometheusSample {
  let i = 0;
  const len = line.length;
  const skipWs = () => {
    while (i < len && (line[i] === " " || line[i] === "\t")) i++;
  };
  skipWs();
  let name = "";
  const labels: Record<string, string> = {};
  if (line[i] !== "{") {
    const start = i;
    while (i < len && /[a-zA-Z0-9_:]/.test(line[i]!)) i++;
    name = line.slice(start, i);
    if (name === "" || /^[0-9]/.test(name)) throw new Error("expected a metric name");
  }
  skipWs();
  if (line[i] === "{") {
    i++;
    for (;;) {
      skipWs();
      if (line[i] === "}") {
        i++;
        break;
      }
      let labelName: string;
      if (line[i] === '"') {
        const q = readQuoted(line, i);
        i = q.end;
        skipWs();
        // OpenMetrics 2 / UTF-8 names: a quoted string alone in the braces is the metric name.
        if ((line[i] === "," || line[i] === "}") && name === "") {
          name = q.value;
          if (line[i] === ",") i++;
          continue;
        }
        labelName = q.value;
      } else {
        const start = i;
        while (i < len && /[a-zA-Z0-9_]/.test(line[i]!)) i++;
        labelName = line.slice(start, i);
        if (labelName === "") throw new Error(`bad label name at column ${i + 1}`);
      }
      skipWs();
      if (line[i] !== "=") throw new Error(`expected = after label ${labelName}`);
      i++;
      skipWs();
      if (line[i] !== '"') throw new Error(`label ${labelName} value must be quoted`);
      const value = readQuoted(line, i);
      labels[labelName] = value.value;
      i = value.end;
      skipWs();
      if (line[i] === ",") i++;
      else if (line[i] !== "}") throw new Error(`expected , or } after label ${labelName}`);
    }
    if (name === "") throw new Error("expected a metric name");
  }
  skipWs();
  const rest = line
    .slice(i)
    .trim()
    .split(/[ \t]+/);
  if (rest.length === 0 || rest[0] === "") throw new Error(`no value for ${name}`);
  const value = parseValue(rest[0]!);
  if (value === null) throw new Error(`bad value ${JSON.stringify(rest[0])} for ${name}`);
  const sample: PrometheusSample = { name, labels, value };
  if (rest.length > 1 && rest[1] !== "#") {
    const ts = Number(rest[1]);
    if (!Number.isFinite(ts)) throw new Error(`bad timestamp ${JSON.stringify(rest[1])} for ${name}`);
    sample.timestampMs = ts;
  }
  return sample;
}

function readQuoted(line: string, start: number): { value: string; end: number } {
  let value = "";
  let i = start + 1;
  while (i < line.length) {
    const c = line[i]!;
    if (c === "\\") {
      const next = line[i + 1];
      if (next === "n") value += "\n";
      else if (next === "\\" || next === '"') value += next;
      else value += `\\${next ?? ""}`;
      i += 2;
    } else if (c === '"') {
      return { value, end: i + 1 };
    } else {
      value += c;
      i++;
    }
  }
  throw new Error("unterminated quoted string");
}

function parseValue(text: string): number | null {
  switch (text.toLowerCase()) {
    case "nan":
      return Number.NaN;
    case "+inf":
    case "inf":
      return Number.POSITIVE_INFINITY;
    case "-inf":
      return Number.NEGATIVE_INFINITY;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) && !/^[+-]?0[xX][0-9a-fA-F]+$/.test(text)) return null;
  const v = Number(text);
  return Number.isNaN(v) ? null : v;
}

/**
 * Sum of the finite samples named `metric` whose labels include `labels`, or null when none
 * match. Summing lets one gauge cover several label sets (e.g. queue depth per queue).
 */
export function selectPrometheusValue(
  samples: readonly PrometheusSample[],
  metric: string,
  labels?: Record<string, string>,
): number | null {
  let sum = 0;
  let found = false;
  for (const s of samples) {
    if (s.name !== metric || !Number.isFinite(s.value)) continue;
    if (labels && !Object.entries(labels).every(([k, v]) => s.labels[k] === v)) continue;
    sum += s.value;
    found = true;
  }
  return found ? sum : null;
}
