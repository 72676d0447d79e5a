import { buildRun } from "./build";
import { fieldPath, JsonFields, type JsonObject, parseJsonDocument } from "./json";
import type { TNormalizedRun } from "./normalized-run";
import { percentileMetrics } from "./percentiles";
import { roundTo } from "./units";

const FORMAT = "gatling";
const fields: JsonFields = new JsonFields(FORMAT);

/** Gatling's default percentiles (gatling.conf `charting.indicators.percentile1..4`). */
const DEFAULT_PERCENTILES = [50, 75, 95, 99];

/**
 * Gatling's `js/stats.json` from a simulation's report directory: the global group's stats
 * (`numberOfRequests`, response times in ms as `{ total, ok, ko }`, percentiles 1–4, mean
 * requests per second) and one entry per request name under `contents`. Gatling writes "-" for a
 * figure with no data (e.g. `ko` without failures). The percentiles are the ones the report
 * shows: 50, 75, 95 and 99 unless the simulation changed them (`--percentiles 50,75,95,99` tells).
 */
export function parseGatling(text: string, options: { percentiles?: number[] } = {}): TNormalizedRun {
  const doc = fields.object(parseJsonDocument(FORMAT, text), "(document)");
  const stats = fields.optObject(doc, "stats", "");
  if (!stats) fields.fail("stats", "is missing: expected js/stats.json from a Gatling report directory");
  const percentiles = options.percentiles ?? DEFAULT_PERCENTILES;
  const requests = figure(stats, "numberOfRequests", "stats", "total");
  const ok = figure(stats, "numberOfRequests", "stats", "ok");
  const ko = figure(stats, "numberOfRequests", "stats", "ko");
  if (requests === undefined) fields.fail("stats.numberOfRequests.total", "is missing");
  if (ok !== undefined && ko !== undefined && ok + ko !== requests) {
    fields.fail("stats.numberOfRequests", `ok ${ok} and ko ${ko} add up to ${ok + ko}, but total is ${requests}`);
  }
  const percentilesMs: Record<string, number> = {};
  percentiles.forEach((percent, i) => {
    const value = figure(stats, `percentiles${i + 1}`, "stats", "total");
    if (value !== undefined) percentilesMs[String(percent)] = value;
  });
  const perRequest: Record<string, { requests?: number; ko?: number; meanMs?: number }> = {};
  const contents = fields.optObject(doc, "contents", "") ?? {};
  for (const key of Object.keys(contents)) {
    const entry = fields.object(contents[key], fieldPath("contents", key));
    const entryStats = fields.optObject(entry, "stats", fieldPath("contents", key));
    if (!entryStats) continue;
    const base = `${fieldPath("contents", key)}.stats`;
    const name = fields.optString(entry, "name", fieldPath("contents", key)) ?? key;
    perRequest[name] = {
      requests: figure(entryStats, "numberOfRequests", base, "total"),
      ko: figure(entryStats, "numberOfRequests", base, "ko"),
      meanMs: figure(entryStats, "meanResponseTime", base, "total"),
    };
  }
  const failed = ko ?? 0;
  return buildRun(FORMAT, {
    tool: { name: "gatling" },
    scenario: { name: "gatling" },
    metrics: {
      requests,
      success: requests - failed,
      failed,
      rps: figure(stats, "meanNumberOfRequestsPerSecond", "stats", "total"),
      latency_min: figure(stats, "minResponseTime", "stats", "total"),
      latency_max: figure(stats, "maxResponseTime", "stats", "total"),
      latency_mean: figure(stats, "meanResponseTime", "stats", "total"),
      latency_stddev: figure(stats, "standardDeviation", "stats", "total"),
      ...percentileMetrics(percentilesMs),
    },
    errors: failed > 0 ? [{ kind: "assert", message: "requests Gatling counted KO", count: failed }] : [],
    extra: {
      latencyPercentilesMs: percentilesMs,
      responseTimeGroups: groups(stats),
      requestsByName: Object.keys(perRequest).length ? perRequest : undefined,
    },
  });
}

/** `stats[key][part]`: a number, or undefined for Gatling's "-" (no data). */
function figure(stats: JsonObject, key: string, base: string, part: "total" | "ok" | "ko"): number | undefined {
  const holder = fields.optObject(stats, key, base);
  if (!holder) return undefined;
  const value = holder[part];
  const field = `${fieldPath(base, key)}.${part}`;
  if (value === undefined || value === null || value === "-") return undefined;
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n) || n < 0) {
    fields.fail(field, `expected a number of at least 0, got ${JSON.stringify(value)}`);
  }
  return roundTo(n);
}

/** Gatling's response time groups (`t < 800 ms`, …, `failed`) with their counts. */
function groups(stats: JsonObject): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  for (let i = 1; i <= 4; i++) {
    const group = fields.optObject(stats, `group${i}`, "stats");
    if (!group) continue;
    const name = fields.optString(group, "name", `stats.group${i}`) ?? `group${i}`;
    const count = fields.optNumber(group, "count", `stats.group${i}`);
    if (count !== undefined) out[name] = count;
  }
  return Object.keys(out).length ? out : undefined;
}

export function looksLikeGatling(doc: JsonObject): boolean {
  const stats = doc.stats;
  return (
    typeof stats === "object" &&
    stats !== null &&
    "numberOfRequests" in stats &&
    ("contents" in doc || doc.type === "GROUP")
  );
}
