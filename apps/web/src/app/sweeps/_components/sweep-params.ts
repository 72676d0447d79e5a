import { isKnownMetric } from "@benchboard/core";

/** Reads one search parameter, from the browser's URLSearchParams or a page's searchParams. */
export type ParamReader = (name: string) => string | null;

/**
 * The capacity question from the URL (`?capacity=latency_p99&below=50`): a known metric and a
 * bound above 0, else none (a link with a mistyped question shows the sweep's own answer).
 */
export function capacityFromUrl(get: ParamReader): { metric: string; below: number } | null {
  const metric = get("capacity");
  const below = Number(get("below"));
  if (!metric || !isKnownMetric(metric) || !Number.isFinite(below) || below <= 0) return null;
  return { metric, below };
}

/** The `sweep.byId` input a sweep page at this URL asks for (the server render and the browser alike). */
export function sweepQueryInput(id: string, get: ParamReader) {
  return { id, capacity: capacityFromUrl(get) };
}
