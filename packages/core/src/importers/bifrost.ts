import type { TErrorEntry } from "../run-result";
import { buildRun, statusError, transportErrorKind } from "./build";
import { ImportError } from "./import-error";
import { fieldPath, isObject, JsonFields, type JsonObject, parseJsonDocument } from "./json";
import type { TNormalizedRun } from "./normalized-run";
import { mibToBytes, roundTo } from "./units";

const FORMAT = "bifrost";
// Typed explicitly so that `fields.fail()` (never) narrows types after it.
const fields: JsonFields = new JsonFields(FORMAT);

export interface BifrostOptions {
  /** Provider key in results.json (`bifrost`, `litellm`, `portkey`, …), case-insensitive. */
  provider?: string;
}

const KNOWN_FIELDS = new Set([
  "requests",
  "rate",
  "success_rate",
  "mean_latency_ms",
  "p50_latency_ms",
  "p99_latency_ms",
  "max_latency_ms",
  "throughput_rps",
  "timestamp",
  "status_code_counts",
  "server_peak_memory_mb",
  "server_avg_memory_mb",
  "drop_reasons",
]);

/**
 * bifrost-benchmarking's results.json: one entry per provider (the latest run of each), so one
 * normalized run per provider, or only the one named in `options.provider`.
 *
 * Its `-users` (closed) mode never computes p50/p99 and writes 0 for both; memory is 0 when the
 * gateway was not on the benchmarking host. Those zeros are read as "not measured".
 */
export function parseBifrost(text: string): TNormalizedRun[];
export function parseBifrost(text: string, options: BifrostOptions & { provider: string }): TNormalizedRun;
export function parseBifrost(text: string, options?: BifrostOptions): TNormalizedRun | TNormalizedRun[];
export function parseBifrost(text: string, options: BifrostOptions = {}): TNormalizedRun | TNormalizedRun[] {
  const doc = fields.object(parseJsonDocument(FORMAT, text), "(document)");
  const providers = Object.keys(doc);
  if (providers.length === 0) throw new ImportError(FORMAT, "has no provider entries", { field: "(document)" });
  if (options.provider === undefined) return providers.map((p) => providerRun(doc, p));
  const wanted = options.provider.toLowerCase();
  const key = providers.find((p) => p.toLowerCase() === wanted);
  if (key === undefined) {
    throw new ImportError(
      FORMAT,
      `has no results for provider "${options.provider}" (it has ${providers.join(", ")})`,
      {
        field: options.provider,
      },
    );
  }
  return providerRun(doc, key);
}

export function bifrostProviders(text: string): string[] {
  return Object.keys(fields.object(parseJsonDocument(FORMAT, text), "(document)"));
}

function providerRun(doc: JsonObject, provider: string): TNormalizedRun {
  const base = fieldPath("", provider);
  const entry = fields.object(doc[provider], base);
  const requests = fields.count(entry, "requests", base);
  const successRate = fields.number(entry, "success_rate", base);
  if (successRate < 0 || successRate > 100)
    fields.fail(fieldPath(base, "success_rate"), `expected a percentage, got ${successRate}`);
  const p50 = fields.optNumber(entry, "p50_latency_ms", base);
  const p99 = fields.optNumber(entry, "p99_latency_ms", base);
  const mean = fields.optNumber(entry, "mean_latency_ms", base);
  const max = fields.optNumber(entry, "max_latency_ms", base);
  const usersMode = p50 === 0 && p99 === 0 && (mean ?? 0) > 0;
  const measured = (v: number | undefined) => (v !== undefined && v > 0 ? v : undefined);
  const success = Math.round((requests * successRate) / 100);

  const statusCounts: Record<string, number> = {};
  const statusObject = fields.optObject(entry, "status_code_counts", base) ?? {};
  for (const code of Object.keys(statusObject)) {
    const field = fieldPath(base, "status_code_counts");
    if (!/^\d+$/.test(code)) fields.fail(fieldPath(field, code), "expected an HTTP status code as the key");
    const count = fields.count(statusObject, code, field);
    // Vegeta's status 0: no response. drop_reasons says why.
    if (code !== "0") statusCounts[code] = count;
  }

  const peakMiB = measured(fields.optNumber(entry, "server_peak_memory_mb", base));
  const avgMiB = measured(fields.optNumber(entry, "server_avg_memory_mb", base));
  const timestamp = fields.optString(entry, "timestamp", base);
  if (timestamp !== undefined && Number.isNaN(Date.parse(timestamp))) {
    fields.fail(fieldPath(base, "timestamp"), `expected a timestamp, got ${JSON.stringify(timestamp)}`);
  }
  const unknown = Object.fromEntries(Object.entries(entry).filter(([k]) => !KNOWN_FIELDS.has(k)));

  return buildRun(FORMAT, {
    tool: { name: "bifrost-benchmarking" },
    // Written when the results were saved, right after this provider's run.
    endedAt: timestamp,
    scenario: {
      name: "bifrost-benchmarking",
      engine: usersMode ? "http-closed" : "http-open",
      spec: { mode: usersMode ? "users" : "rate" },
    },
    target: { name: provider },
    metrics: {
      requests,
      success,
      failed: requests - success,
      success_rate: successRate,
      // Rate mode: vegeta's achieved sending rate. Users mode: requests ÷ the configured duration.
      rps: fields.optNumber(entry, "rate", base),
      latency_mean: requests > 0 ? mean : undefined,
      latency_max: requests > 0 ? max : undefined,
      latency_p50: measured(p50),
      latency_p99: measured(p99),
      mem_peak_bytes: peakMiB !== undefined ? roundTo(mibToBytes(peakMiB), 3) : undefined,
      mem_avg_bytes: avgMiB !== undefined ? roundTo(mibToBytes(avgMiB), 3) : undefined,
    },
    statusCounts,
    errors: dropReasons(entry, base),
    extra: {
      provider,
      mode: usersMode ? "users" : "rate",
      throughputRps: fields.optNumber(entry, "throughput_rps", base),
      unknownFields: Object.keys(unknown).length > 0 ? unknown : undefined,
    },
  });
}

function dropReasons(entry: JsonObject, base: string): TErrorEntry[] {
  const field = fieldPath(base, "drop_reasons");
  const reasons = fields.optObject(entry, "drop_reasons", base) ?? {};
  return Object.keys(reasons).map((reason) => {
    const count = fields.count(reasons, reason, field);
    const status = /^HTTP (\d{3})$/.exec(reason)?.[1] ?? /^(\d{3}) /.exec(reason)?.[1];
    if (status !== undefined) return statusError(Number(status), count, reason);
    if (reason === "context_timeout") return { kind: "timeout", message: reason, count };
    return { kind: transportErrorKind(reason), message: reason, count };
  });
}

export function looksLikeBifrost(doc: JsonObject): boolean {
  const entries = Object.values(doc);
  return (
    entries.length > 0 &&
    entries.every(
      (e) => isObject(e) && "requests" in e && ("mean_latency_ms" in e || "success_rate" in e || "p99_latency_ms" in e),
    )
  );
}
