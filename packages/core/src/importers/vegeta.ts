import type { TErrorEntry } from "../run-result";
import { buildRun, countsFromStatuses, isFailureStatus, statusError, transportErrorKind } from "./build";
import { fieldPath, JsonFields, type JsonObject, parseJsonDocument } from "./json";
import type { TNormalizedRun } from "./normalized-run";
import { percentileLabel, percentileMetrics } from "./percentiles";
import { nsToMs, roundTo } from "./units";

const FORMAT = "vegeta";
// Typed explicitly so that `fields.fail()` (never) narrows types after it.
const fields: JsonFields = new JsonFields(FORMAT);

const PERCENTILE_FIELDS: [string, number][] = [
  ["50th", 50],
  ["90th", 90],
  ["95th", 95],
  ["99th", 99],
];

/**
 * `vegeta report -type=json`. Durations are integer nanoseconds. Vegeta's latencies include
 * failed requests; when nothing succeeded they only describe failures and are left out.
 * `errors` lists distinct messages without counts: a count is attached where the status codes
 * tell it (an HTTP status text, or the only error behind status 0), the rest go to `extra`.
 */
export function parseVegeta(text: string): TNormalizedRun {
  const doc = fields.object(parseJsonDocument(FORMAT, text), "(document)");
  const latencies = fields.optObject(doc, "latencies", "");
  if (!latencies) fields.fail("latencies", "is missing: expected the output of `vegeta report -type=json`");
  const requests = fields.count(doc, "requests", "");
  const successRatio = fields.number(doc, "success", "");
  if (successRatio < 0 || successRatio > 1)
    fields.fail("success", `expected a ratio between 0 and 1, got ${successRatio}`);
  const statusObject = fields.optObject(doc, "status_codes", "") ?? {};
  const statusCounts: Record<string, number> = {};
  let unsent = 0;
  for (const code of Object.keys(statusObject)) {
    if (!/^\d+$/.test(code)) fields.fail(fieldPath("status_codes", code), "expected an HTTP status code as the key");
    const count = fields.count(statusObject, code, "status_codes");
    // Status 0: the request got no response (failed to send, connect error, timeout).
    if (code === "0") unsent = count;
    else statusCounts[code] = count;
  }
  const counts = countsFromStatuses(statusCounts, unsent);
  const hasStatuses = Object.keys(statusObject).length > 0;
  if (hasStatuses && counts.requests !== requests) {
    fields.fail("status_codes", `counts add up to ${counts.requests}, but requests is ${requests}`);
  }

  const ms = (obj: JsonObject, key: string, base: string) => {
    const ns = fields.optNumber(obj, key, base);
    return ns === undefined ? undefined : roundTo(nsToMs(ns));
  };
  const anySuccess = successRatio > 0;
  const percentilesMs: Record<string, number> = {};
  for (const [key, percent] of PERCENTILE_FIELDS) {
    const v = ms(latencies, key, "latencies");
    if (v !== undefined) percentilesMs[percentileLabel(percent)] = v;
  }
  const bytesIn = fields.optObject(doc, "bytes_in", "");
  const bytesOut = fields.optObject(doc, "bytes_out", "");
  const durationNs = fields.optNumber(doc, "duration", "");
  const { errors, uncounted } = readErrors(doc, statusCounts, unsent);

  return buildRun(FORMAT, {
    tool: { name: "vegeta" },
    startedAt: timestamp(doc, "earliest"),
    endedAt: timestamp(doc, "end") ?? timestamp(doc, "latest"),
    durationS: durationNs !== undefined ? roundTo(durationNs / 1e9) : undefined,
    scenario: { name: "vegeta", engine: "http-open" },
    metrics: {
      requests,
      success: hasStatuses ? counts.success : Math.round(successRatio * requests),
      failed: hasStatuses ? counts.failed : requests - Math.round(successRatio * requests),
      success_rate: roundTo(successRatio * 100),
      // Vegeta's rate is the achieved sending rate: requests over the attack's duration.
      rps: fields.optNumber(doc, "rate", ""),
      ...(anySuccess
        ? {
            latency_min: ms(latencies, "min", "latencies"),
            latency_mean: ms(latencies, "mean", "latencies"),
            latency_max: ms(latencies, "max", "latencies"),
            ...percentileMetrics(percentilesMs),
          }
        : {}),
      res_bytes_avg: bytesIn && requests > 0 ? fields.optNumber(bytesIn, "mean", "bytes_in") : undefined,
      req_bytes_avg: bytesOut && requests > 0 ? fields.optNumber(bytesOut, "mean", "bytes_out") : undefined,
    },
    statusCounts,
    errors,
    extra: {
      latencyPercentilesMs: anySuccess ? percentilesMs : undefined,
      latenciesOfFailedRequestsMs: anySuccess
        ? undefined
        : {
            min: ms(latencies, "min", "latencies"),
            mean: ms(latencies, "mean", "latencies"),
            max: ms(latencies, "max", "latencies"),
            ...percentilesMs,
          },
      latencyTotalMs: ms(latencies, "total", "latencies"),
      // Successful responses per second over duration + wait.
      throughput: fields.optNumber(doc, "throughput", ""),
      waitMs: ms(doc, "wait", ""),
      latestSendAt: timestamp(doc, "latest"),
      bytesInTotal: bytesIn ? fields.optNumber(bytesIn, "total", "bytes_in") : undefined,
      bytesOutTotal: bytesOut ? fields.optNumber(bytesOut, "total", "bytes_out") : undefined,
      buckets: readBuckets(doc),
      uncountedErrors: uncounted.length > 0 ? uncounted : undefined,
      unsentRequests: unsent > 0 ? unsent : undefined,
      ...unknownFields(doc),
    },
  });
}

function timestamp(doc: JsonObject, key: string): string | undefined {
  const value = fields.optString(doc, key, "");
  if (value === undefined) return undefined;
  // Go's zero time: vegeta writes it when there were no results.
  if (value.startsWith("0001-01-01")) return undefined;
  if (Number.isNaN(Date.parse(value))) fields.fail(key, `expected a timestamp, got ${JSON.stringify(value)}`);
  return value;
}

function readErrors(
  doc: JsonObject,
  statusCounts: Record<string, number>,
  unsent: number,
): { errors: TErrorEntry[]; uncounted: string[] } {
  const messages = doc.errors === undefined || doc.errors === null ? [] : fields.array(doc.errors, "errors");
  const errors: TErrorEntry[] = [];
  const transport: string[] = [];
  const statusesWithMessage = new Set<string>();
  messages.forEach((message, index) => {
    if (typeof message !== "string") fields.fail(fieldPath("errors", index), "expected an error message string");
    const status = /^(\d{3}) /.exec(message)?.[1];
    const count = status !== undefined ? statusCounts[status] : undefined;
    if (status !== undefined && count !== undefined) {
      errors.push(statusError(Number(status), count, message));
      statusesWithMessage.add(status);
    } else {
      transport.push(message);
    }
  });
  // Failure statuses vegeta did not list as an error message (it lists distinct messages only).
  for (const [code, count] of Object.entries(statusCounts)) {
    if (isFailureStatus(Number(code)) && !statusesWithMessage.has(code)) errors.push(statusError(Number(code), count));
  }
  const [only] = transport;
  if (transport.length === 1 && only !== undefined && unsent > 0) {
    errors.push({ kind: transportErrorKind(only), message: only, count: unsent });
    return { errors, uncounted: [] };
  }
  return { errors, uncounted: transport };
}

function readBuckets(doc: JsonObject): { fromMs: number; count: number }[] | undefined {
  const buckets = fields.optObject(doc, "buckets", "");
  if (!buckets) return undefined;
  return Object.keys(buckets)
    .map((lowerNs) => {
      const from = Number(lowerNs);
      if (!Number.isFinite(from))
        fields.fail(fieldPath("buckets", lowerNs), "expected a lower bound in nanoseconds as the key");
      return { fromMs: roundTo(nsToMs(from)), count: fields.count(buckets, lowerNs, "buckets") };
    })
    .sort((a, b) => a.fromMs - b.fromMs);
}

const KNOWN_FIELDS = new Set([
  "latencies",
  "buckets",
  "bytes_in",
  "bytes_out",
  "earliest",
  "latest",
  "end",
  "duration",
  "wait",
  "requests",
  "rate",
  "throughput",
  "success",
  "status_codes",
  "errors",
]);

function unknownFields(doc: JsonObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) if (!KNOWN_FIELDS.has(key)) out[key] = value;
  return Object.keys(out).length > 0 ? { unknownFields: out } : {};
}

export function looksLikeVegeta(doc: JsonObject): boolean {
  return typeof doc.latencies === "object" && doc.latencies !== null && "requests" in doc && "success" in doc;
}
