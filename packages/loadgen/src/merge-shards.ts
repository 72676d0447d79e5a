import { mergeResults } from "./merge";
import { peakMetrics } from "./monitors/index";
import type { EngineResult } from "./types";

type StoredShardResult = Omit<EngineResult, "startedAt" | "endedAt"> & { startedAt: string; endedAt: string };

/**
 * Merge the stored results of a run's shards (JSON, histograms encoded) exactly: histograms
 * add and percentiles are re-read. Shards that stored nothing are left out; null when none did.
 */
export function mergeShardResults(stored: unknown[]): EngineResult | null {
  const results = stored
    .filter((r): r is StoredShardResult => Boolean(r && typeof r === "object" && "metrics" in r))
    .map((r) => ({ ...r, startedAt: new Date(r.startedAt), endedAt: new Date(r.endedAt), canceled: !!r.canceled }));
  if (!results.length) return null;
  const merged = mergeResults(results);
  Object.assign(merged.metrics, peakMetrics(merged.series));
  return merged;
}
