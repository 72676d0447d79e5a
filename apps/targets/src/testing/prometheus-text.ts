/**
 * A strict reader of Prometheus text format 0.0.4, used by the tests to prove that `/metrics`
 * output is valid and not merely "contains the right words". It throws on anything a Prometheus
 * server would reject or silently mis-read: samples before their TYPE, a family split by another
 * family, bad escapes, duplicate series, histograms whose buckets are not cumulative or lack
 * `+Inf`, or whose `+Inf` bucket disagrees with `_count`.
 */

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped";

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedFamily {
  name: string;
  type: MetricType;
  help?: string;
  samples: ParsedSample[];
}

export class PrometheusTextError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = "PrometheusTextError";
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(["counter", "gauge", "histogram", "summary", "untyped"]);

export function parsePrometheusText(text: string): Map<string, ParsedFamily> {
  const families = new Map<string, ParsedFamily>();
  const closed = new Set<string>();
  let current: ParsedFamily | undefined;
  const seriesSeen = new Set<string>();
  const typed = new Set<string>();

  const lines = text.split("\n");
  if (text.length > 0 && !text.endsWith("\n")) throw new PrometheusTextError(lines.length, "missing final newline");

  const enter = (name: string, lineNo: number): ParsedFamily => {
    if (current?.name === name) return current;
    if (current) closed.add(current.name);
    if (closed.has(name)) throw new PrometheusTextError(lineNo, `family ${name} is split by another family`);
    let family = families.get(name);
    if (!family) {
      family = { name, type: "untyped", samples: [] };
      families.set(name, family);
    }
    current = family;
    return family;
  };

  lines.forEach((raw, index) => {
    const lineNo = index + 1;
    const line = raw.trim();
    if (line === "") return;
    if (line.startsWith("#")) {
      const match = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!match) return; // plain comment
      const [, keyword, name, rest = ""] = match;
      if (!METRIC_NAME.test(name!)) throw new PrometheusTextError(lineNo, `invalid metric name ${name}`);
      const family = enter(name!, lineNo);
      if (keyword === "HELP") {
        if (family.help !== undefined) throw new PrometheusTextError(lineNo, `second HELP for ${name}`);
        family.help = unescapeHelp(rest, lineNo);
      } else {
        if (family.samples.length > 0) throw new PrometheusTextError(lineNo, `TYPE for ${name} after its samples`);
        if (typed.has(family.name)) throw new PrometheusTextError(lineNo, `second TYPE for ${name}`);
        const type = rest.trim() as MetricType;
        if (!TYPES.has(type)) throw new PrometheusTextError(lineNo, `unknown type ${rest}`);
        family.type = type;
        typed.add(family.name);
      }
      return;
    }

    const sample = parseSampleLine(line, lineNo);
    const familyName = familyOf(sample.name, current);
    const family = enter(familyName, lineNo);
    checkSampleName(family, sample, lineNo);
    const seriesKey = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seriesSeen.has(seriesKey)) throw new PrometheusTextError(lineNo, `duplicate series ${seriesKey}`);
    seriesSeen.add(seriesKey);
    if (family.type === "counter" && !(sample.value >= 0)) {
      throw new PrometheusTextError(lineNo, `counter ${sample.name} is ${sample.value}`);
    }
    family.samples.push(sample);
  });

  for (const family of families.values()) {
    if (family.type === "histogram") checkHistogram(family);
  }
  return families;
}

/** A sample belongs to the family being read when its name is that family's `_bucket`/`_sum`/`_count`. */
function familyOf(sampleName: string, current: ParsedFamily | undefined): string {
  if (current && (current.type === "histogram" || current.type === "summary")) {
    for (const suffix of ["_bucket", "_sum", "_count"]) {
      if (sampleName === `${current.name}${suffix}`) return current.name;
    }
  }
  return sampleName;
}

function checkSampleName(family: ParsedFamily, sample: ParsedSample, lineNo: number): void {
  if (family.type === "histogram") {
    if (sample.name === `${family.name}_bucket`) {
      if (sample.labels.le === undefined) throw new PrometheusTextError(lineNo, `${sample.name} without le`);
      if (Number.isNaN(parseValue(sample.labels.le)))
        throw new PrometheusTextError(lineNo, `bad le ${sample.labels.le}`);
      return;
    }
    if (sample.name === `${family.name}_sum` || sample.name === `${family.name}_count`) {
      if (sample.labels.le !== undefined) throw new PrometheusTextError(lineNo, `${sample.name} must not carry le`);
      return;
    }
    throw new PrometheusTextError(lineNo, `${sample.name} is not a sample of histogram ${family.name}`);
  }
  if (family.type !== "summary" && sample.name !== family.name) {
    throw new PrometheusTextError(lineNo, `${sample.name} inside family ${family.name}`);
  }
}

function checkHistogram(family: ParsedFamily): void {
  const groups = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    let group = groups.get(key);
    if (!group) {
      group = { buckets: [] };
      groups.set(key, group);
    }
    if (sample.name.endsWith("_bucket")) group.buckets.push([parseValue(le!), sample.value]);
    else if (sample.name.endsWith("_count")) group.count = sample.value;
    else group.sum = sample.value;
  }
  for (const [key, group] of groups) {
    const where = `histogram ${family.name}${key}`;
    if (group.count === undefined || group.sum === undefined) throw new Error(`${where}: missing _count or _sum`);
    let previousLe = Number.NEGATIVE_INFINITY;
    let previousCount = 0;
    for (const [le, count] of group.buckets) {
      if (!(le > previousLe)) throw new Error(`${where}: buckets out of order at le=${le}`);
      if (count < previousCount) throw new Error(`${where}: bucket counts are not cumulative at le=${le}`);
      previousLe = le;
      previousCount = count;
    }
    if (previousLe !== Number.POSITIVE_INFINITY) throw new Error(`${where}: no +Inf bucket`);
    if (previousCount !== group.count)
      throw new Error(`${where}: +Inf bucket ${previousCount} != _count ${group.count}`);
  }
}

function parseSampleLine(line: string, lineNo: number): ParsedSample {
  const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (!nameMatch) throw new PrometheusTextError(lineNo, `bad sample line: ${line}`);
  const name = nameMatch[0];
  let pos = name.length;
  const labels: Record<string, string> = {};
  if (line[pos] === "{") {
    pos++;
    while (true) {
      while (line[pos] === " ") pos++;
      if (line[pos] === "}") {
        pos++;
        break;
      }
      const labelMatch = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(pos));
      if (!labelMatch || !LABEL_NAME.test(labelMatch[0])) throw new PrometheusTextError(lineNo, "bad label name");
      const labelName = labelMatch[0];
      pos += labelName.length;
      if (line[pos] !== "=" || line[pos + 1] !== '"') throw new PrometheusTextError(lineNo, `bad label ${labelName}`);
      pos += 2;
      let value = "";
      while (true) {
        const ch = line[pos];
        if (ch === undefined) throw new PrometheusTextError(lineNo, `unterminated value for ${labelName}`);
        if (ch === '"') break;
        if (ch === "\\") {
          const next = line[pos + 1];
          if (next === "\\") value += "\\";
          else if (next === '"') value += '"';
          else if (next === "n") value += "\n";
          else throw new PrometheusTextError(lineNo, `bad escape \\${next ?? ""} in ${labelName}`);
          pos += 2;
          continue;
        }
        value += ch;
        pos++;
      }
      pos++;
      if (labelName in labels) throw new PrometheusTextError(lineNo, `label ${labelName} repeated`);
      labels[labelName] = value;
      while (line[pos] === " ") pos++;
      if (line[pos] === ",") pos++;
      else if (line[pos] !== "}") throw new PrometheusTextError(lineNo, `expected , or } after ${labelName}`);
    }
  }
  if (line[pos] !== " " && line[pos] !== "\t")
    throw new PrometheusTextError(lineNo, `expected a space before the value`);
  const fields = line
    .slice(pos)
    .trim()
    .split(/[ \t]+/);
  if (fields.length < 1 || fields.length > 2) throw new PrometheusTextError(lineNo, `bad value field in: ${line}`);
  const value = parseValue(fields[0]!);
  if (Number.isNaN(value) && fields[0] !== "NaN") throw new PrometheusTextError(lineNo, `bad value ${fields[0]}`);
  if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) throw new PrometheusTextError(lineNo, "bad timestamp");
  return { name, labels, value };
}

function parseValue(text: string): number {
  if (text === "+Inf" || text === "Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return Number.NaN;
  return Number(text);
}

function unescapeHelp(text: string, lineNo: number): string {
  return text.replace(/\\(.?)/g, (_, ch: string) => {
    if (ch === "\\") return "\\";
    if (ch === "n") return "\n";
    throw new PrometheusTextError(lineNo, `bad escape \\${ch} in HELP`);
  });
}

/** The value of one series, matching every given label; throws when absent or ambiguous. */
export function sampleValue(
  families: Map<string, ParsedFamily>,
  sampleName: string,
  labels: Record<string, string> = {},
): number {
  const matches: ParsedSample[] = [];
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== sampleName) continue;
      if (Object.entries(labels).every(([k, v]) => sample.labels[k] === v)) matches.push(sample);
    }
  }
  if (matches.length !== 1) {
    throw new Error(`${sampleName}${JSON.stringify(labels)}: expected one series, found ${matches.length}`);
  }
  return matches[0]!.value;
}
