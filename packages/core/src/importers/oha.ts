import type { TErrorEntry } from "../run-result";
import { buildRun, countsFromStatuses, isFailureStatus, statusError, transportErrorKind } from "./build";
import { fieldPath, JsonFields, type JsonObject, parseJsonDocument } from "./json";
import type { TNormalizedRun } from "./normalized-run";
import { percentileMetrics } from "./percentiles";
import { roundTo } from "./units";

const FORMAT = "oha";
const fields: JsonFields = new JsonFields(FORMAT);

const sToMs = (s: number) => roundTo(s * 1000);

/**
 * oha's `--output-format json` (formerly `--json`): `summary` in seconds (total, slowest,
 * fastest, average, requestsPerSec, successRate), `latencyPercentiles` (`p50`, `p99.9`, … in
 * seconds), `statusCodeDistribution` and `errorDistribution` (connection errors, requests cut
 * off at the end of a `-z` run). oha's successRate counts every response as a success; here a
 * 4xx or 5xx is a failed request, as in every other format.
 */
export function parseOha(text: string): TNormalizedRun {
  const doc = fields.object(parseJsonDocument(FORMAT, text), "(document)");
  const summary = fields.optObject(doc, "summary", "");
  if (!summary) fields.fail("summary", "is missing: expected the output of `oha --output-format json`");
  const statusObject = fields.optObject(doc, "statusCodeDistribution", "") ?? {};
  const statusCounts: Record<string, number> = {};
  for (const code of Object.keys(statusObject)) {
    if (!/^\d{3}$/.test(code)) {
      fields.fail(fieldPath("statusCodeDistribution", code), "expected an HTTP status code as the key");
    }
    statusCounts[code] = fields.count(statusObject, code, "statusCodeDistribution");
  }
  const errorObject = fields.optObject(doc, "errorDistribution", "") ?? {};
  const errors: TErrorEntry[] = [];
  let transportFailures = 0;
  for (const message of Object.keys(errorObject)) {
    const count = fields.count(errorObject, message, "errorDistribution");
    transportFailures += count;
    errors.push({ kind: transportErrorKind(message), message: message.slice(0, 500), count });
  }
  for (const [code, count] of Object.entries(statusCounts)) {
    if (isFailureStatus(Number(code))) errors.push(statusError(Number(code), count));
  }
  const counts = countsFromStatuses(statusCounts, transportFailures);
  const seconds = (key: string) => {
    const v = fields.optNumber(summary, key, "summary");
    if (v !== undefined && v < 0) fields.fail(`summary.${key}`, `expected seconds of at least 0, got ${v}`);
    return v === undefined ? undefined : sToMs(v);
  };
  const percentilesMs: Record<string, number> = {};
  const latencyPercentiles = fields.optObject(doc, "latencyPercentiles", "") ?? {};
  for (const key of Object.keys(latencyPercentiles)) {
    const percent = /^p(\d+(?:\.\d+)?)$/.exec(key)?.[1];
    if (percent === undefined) fields.fail(fieldPath("latencyPercentiles", key), "expected a key like p50 or p99.9");
    const value = latencyPercentiles[key];
    // oha writes null for a percentile it has no value for (no successful response).
    if (value === null) continue;
    const s = fields.number(latencyPercentiles, key, "latencyPercentiles");
    percentilesMs[String(Number(percent))] = sToMs(s);
  }
  const anyResponse = counts.requests - transportFailures > 0;
  const totalMs = seconds("total");
  return buildRun(FORMAT, {
    tool: { name: "oha" },
    durationS: totalMs === undefined ? undefined : roundTo(totalMs / 1000),
    scenario: { name: "oha" },
    metrics: {
      requests: counts.requests,
      success: counts.success,
      failed: counts.failed,
      rps: fields.optNumber(summary, "requestsPerSec", "summary"),
      ...(anyResponse
        ? {
            latency_min: seconds("fastest"),
            latency_mean: seconds("average"),
            latency_max: seconds("slowest"),
            ...percentileMetrics(percentilesMs),
          }
        : {}),
      res_bytes_avg: fields.optNumber(summary, "sizePerRequest", "summary"),
    },
    statusCounts,
    errors,
    extra: {
      latencyPercentilesMs: Object.keys(percentilesMs).length ? percentilesMs : undefined,
      successRateAsOhaCountsIt: fields.optNumber(summary, "successRate", "summary"),
    },
  });
}

export function looksLikeOha(doc: JsonObject): boolean {
  const summary = doc.summary;
  return (
    typeof summary === "object" &&
    summary !== null &&
    "requestsPerSec" in summary &&
    ("statusCodeDistribution" in doc || "latencyPercentiles" in doc)
  );
}
