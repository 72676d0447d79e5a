import type { TErrorEntry, TToolThresholdVerdict } from "../run-result";
import { buildRun } from "./build";
import { ImportError } from "./import-error";
import { fieldPath, isObject, JsonFields, type JsonObject, parseJsonDocument } from "./json";
import type { TNormalizedRun } from "./normalized-run";
import { percentileLabel, percentileMetrics } from "./percentiles";
import { roundTo } from "./units";

const FORMAT = "k6";
// Typed explicitly so that `fields.fail()` (never) narrows types after it.
const fields: JsonFields = new JsonFields(FORMAT);

/** Which of k6's summary shapes a document is. */
export type K6SummaryShape = "summary-export" | "handle-summary" | "machine-readable";

/** Statistics of one k6 metric, whatever the shape: trend stats in ms, counter, rate or gauge values. */
interface K6Metric {
  name: string;
  values: JsonObject;
  field: string;
}

interface K6Check {
  name: string;
  path?: string;
  passes: number;
  fails: number;
}

/**
 * k6 end-of-test summaries: `--summary-export` (legacy, the default), the legacy data object a
 * `handleSummary()` receives, and the machine-readable summary of k6 ≥ 1.5
 * (`--new-machine-readable-summary`), used both by the export and by `handleSummary()`.
 *
 * Threshold verdicts are kept: in `--summary-export` a threshold's boolean is `true` when the
 * threshold FAILED; `handleSummary()` writes `{ ok }` instead. The machine-readable summary has
 * no thresholds.
 */
export function parseK6(text: string): TNormalizedRun {
  if (/^\s*\{"(type|metric)":/.test(text) && text.includes('"type":"Point"')) {
    throw new ImportError(
      FORMAT,
      "this is the `--out json` stream (one JSON point per line), not a summary: export one with --summary-export",
      { line: 1 },
    );
  }
  const doc = fields.object(parseJsonDocument(FORMAT, text), "(document)");
  const shape = k6SummaryShape(doc);
  if (!shape) {
    throw new ImportError(FORMAT, "expected a k6 summary with `metrics` (and `root_group`) or `results.metrics`", {
      field: "metrics",
    });
  }
  return shape === "machine-readable" ? fromMachineReadable(doc) : fromLegacy(doc, shape);
}

export function k6SummaryShape(doc: JsonObject): K6SummaryShape | undefined {
  if (isObject(doc.results) && Array.isArray(doc.results.metrics)) return "machine-readable";
  if (!isObject(doc.metrics)) return undefined;
  const first = Object.values(doc.metrics)[0];
  if (isObject(first) && isObject(first.values)) return "handle-summary";
  if (isObject(doc.root_group) || first === undefined || isObject(first)) return "summary-export";
  return undefined;
}

function fromLegacy(doc: JsonObject, shape: Exclude<K6SummaryShape, "machine-readable">): TNormalizedRun {
  const metricsObject = fields.object(doc.metrics, "metrics");
  const metrics = new Map<string, K6Metric>();
  const thresholds: TToolThresholdVerdict[] = [];
  const raw: Record<string, unknown> = {};

  for (const [name, value] of Object.entries(metricsObject)) {
    const field = fieldPath("metrics", name);
    const metric = fields.object(value, field);
    const values = shape === "handle-summary" ? fields.object(metric.values, fieldPath(field, "values")) : metric;
    metrics.set(name, { name, values, field: shape === "handle-summary" ? fieldPath(field, "values") : field });
    const { thresholds: metricThresholds, ...rest } = metric;
    raw[name] = rest;
    if (metricThresholds !== undefined) {
      thresholds.push(...readThresholds(name, fields.object(metricThresholds, fieldPath(field, "thresholds")), shape));
    }
  }

  const rootGroup = doc.root_group === undefined ? undefined : fields.object(doc.root_group, "root_group");
  const checks = rootGroup ? readGroupChecks(rootGroup, "root_group") : [];
  const state = isObject(doc.state) ? doc.state : undefined;
  const durationMs = state ? fields.optNumber(state, "testRunDurationMs", "state") : undefined;

  return assemble({
    metrics,
    checks,
    thresholds,
    durationS: durationMs !== undefined ? roundTo(durationMs / 1000) : undefined,
    extra: {
      summaryShape: shape,
      k6Metrics: raw,
      options: doc.options,
      setupData: doc.setup_data,
    },
  });
}

function fromMachineReadable(doc: JsonObject): TNormalizedRun {
  const results = fields.object(doc.results, "results");
  const list = fields.array(results.metrics, "results.metrics");
  const metrics = new Map<string, K6Metric>();
  const raw: Record<string, unknown> = {};
  list.forEach((entry, index) => {
    const field = fieldPath("results.metrics", index);
    const metric = fields.object(entry, field);
    const name = fields.optString(metric, "name", field);
    if (!name) fields.fail(fieldPath(field, "name"), "is missing");
    metrics.set(name, {
      name,
      values: fields.object(metric.values, fieldPath(field, "values")),
      field: fieldPath(field, "values"),
    });
    raw[name] = { type: metric.type, contains: metric.contains, values: metric.values };
  });

  const checks: K6Check[] = [];
  const checksBlock = fields.optObject(results, "checks", "results");
  if (checksBlock?.results !== undefined) {
    fields.array(checksBlock.results, "results.checks.results").forEach((entry, index) => {
      const field = fieldPath("results.checks.results", index);
      const check = fields.object(entry, field);
      checks.push({
        name: fields.optString(check, "name", field) ?? "",
        passes: fields.count(check, "passes", field),
        fails: fields.count(check, "fails", field),
      });
    });
  }

  const config = fields.optObject(doc, "config", "");
  const metadata = fields.optObject(doc, "metadata", "");
  const durationS = config ? fields.optNumber(config, "duration", "config") : undefined;
  const generatedAt = metadata ? fields.optString(metadata, "generated_at", "metadata") : undefined;
  return assemble({
    metrics,
    checks,
    thresholds: [],
    durationS: durationS !== undefined ? roundTo(durationS) : undefined,
    version: metadata ? fields.optString(metadata, "k6_version", "metadata") : undefined,
    endedAt: generatedAt,
    extra: {
      summaryShape: "machine-readable",
      summaryVersion: doc.version,
      execution: config?.execution,
      k6Metrics: raw,
      checkMetrics: checksBlock?.metrics,
    },
  });
}

interface Assembly {
  metrics: Map<string, K6Metric>;
  checks: K6Check[];
  thresholds: TToolThresholdVerdict[];
  durationS?: number;
  version?: string;
  endedAt?: string;
  extra: Record<string, unknown>;
}

function assemble({ metrics, checks, thresholds, durationS, version, endedAt, extra }: Assembly): TNormalizedRun {
  const httpReqs = metrics.get("http_reqs");
  if (!httpReqs) {
    throw new ImportError(FORMAT, "has no http_reqs metric: only HTTP tests can be imported", {
      field: "metrics.http_reqs",
    });
  }
  const requests = fields.count(httpReqs.values, "count", httpReqs.field);
  const reportedRate = fields.optNumber(httpReqs.values, "rate", httpReqs.field);
  const rps = reportedRate ?? (durationS !== undefined && durationS > 0 ? roundTo(requests / durationS) : undefined);

  const failedMetric = metrics.get("http_req_failed");
  // A Rate counts the samples that were `true`: for http_req_failed, the failed requests.
  const failed = failedMetric ? rateMatches(failedMetric) : undefined;

  const duration = metrics.get("http_req_duration");
  const latency = duration ? trendMetrics(duration) : { metrics: {}, percentilesMs: {} };

  const errors: TErrorEntry[] = checks
    .filter((c) => c.fails > 0)
    .map((c) => ({ kind: "assert", message: `check "${c.name}" failed`, count: c.fails }));

  return buildRun(FORMAT, {
    tool: { name: "k6", version },
    durationS,
    endedAt: endedAt && !Number.isNaN(Date.parse(endedAt)) ? endedAt : undefined,
    scenario: { name: "k6" },
    metrics: {
      requests,
      failed,
      success: failed !== undefined ? requests - failed : undefined,
      rps,
      ...latency.metrics,
    },
    errors,
    toolThresholds: thresholds,
    extra: {
      ...extra,
      latencyPercentilesMs: Object.keys(latency.percentilesMs).length > 0 ? latency.percentilesMs : undefined,
      checks: checks.length > 0 ? checks : undefined,
    },
  });
}

function rateMatches(metric: K6Metric): number {
  const { values, field } = metric;
  if (values.matches !== undefined) return fields.count(values, "matches", field);
  return fields.count(values, "passes", field);
}

const TREND_KEYS: Record<string, string> = {
  avg: "latency_mean",
  min: "latency_min",
  max: "latency_max",
  med: "latency_p50",
};

/** Trend stats (ms) → latency metrics; `p(95)` (legacy) and `p95` (machine-readable) alike. */
function trendMetrics(metric: K6Metric): { metrics: Record<string, number>; percentilesMs: Record<string, number> } {
  const out: Record<string, number> = {};
  const percentilesMs: Record<string, number> = {};
  for (const key of Object.keys(metric.values)) {
    const mapped = TREND_KEYS[key];
    const pct = /^p\((\d+(?:\.\d+)?)\)$/.exec(key) ?? /^p(\d+(?:\.\d+)?)$/.exec(key);
    if (!mapped && !pct) continue;
    const value = fields.number(metric.values, key, metric.field);
    if (mapped) out[mapped] = value;
    if (pct) {
      const percent = Number(pct[1]);
      if (percent >= 0 && percent <= 100) percentilesMs[percentileLabel(percent)] = value;
    }
  }
  if (out.latency_p50 !== undefined) percentilesMs["50"] ??= out.latency_p50;
  return { metrics: { ...percentileMetrics(percentilesMs), ...out }, percentilesMs };
}

function readThresholds(
  metric: string,
  thresholds: JsonObject,
  shape: Exclude<K6SummaryShape, "machine-readable">,
): TToolThresholdVerdict[] {
  return Object.entries(thresholds).map(([expression, verdict]) => {
    const field = fieldPath(fieldPath(fieldPath("metrics", metric), "thresholds"), expression);
    if (shape === "summary-export") {
      // k6 writes whether the threshold was crossed, so `true` means FAILED.
      if (typeof verdict !== "boolean")
        fields.fail(field, `expected true (failed) or false (passed), got ${JSON.stringify(verdict)}`);
      return { metric, expression, passed: !verdict };
    }
    const ok = fields.optBoolean(fields.object(verdict, field), "ok", field);
    if (ok === undefined) fields.fail(fieldPath(field, "ok"), "is missing");
    return { metric, expression, passed: ok };
  });
}

/** Checks of a group and its subgroups; `--summary-export` keys them by name, `handleSummary` lists them. */
function readGroupChecks(group: JsonObject, field: string): K6Check[] {
  const out: K6Check[] = [];
  const checks = group.checks;
  const entries: [string, unknown][] = Array.isArray(checks)
    ? checks.map((c, i) => [fieldPath(fieldPath(field, "checks"), i), c])
    : isObject(checks)
      ? Object.entries(checks).map(([name, c]) => [fieldPath(fieldPath(field, "checks"), name), c])
      : [];
  for (const [checkField, value] of entries) {
    const check = fields.object(value, checkField);
    out.push({
      name: fields.optString(check, "name", checkField) ?? "",
      path: fields.optString(check, "path", checkField),
      passes: fields.count(check, "passes", checkField),
      fails: fields.count(check, "fails", checkField),
    });
  }
  const groups = group.groups;
  const subgroups: [string, unknown][] = Array.isArray(groups)
    ? groups.map((g, i) => [fieldPath(fieldPath(field, "groups"), i), g])
    : isObject(groups)
      ? Object.entries(groups).map(([name, g]) => [fieldPath(fieldPath(field, "groups"), name), g])
      : [];
  for (const [groupField, value] of subgroups)
    out.push(...readGroupChecks(fields.object(value, groupField), groupField));
  return out;
}
