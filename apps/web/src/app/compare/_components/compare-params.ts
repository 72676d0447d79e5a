/** Runs a comparison holds at most. */
export const MAX_RUNS = 10;

/** Reads one search parameter, from the browser's URLSearchParams or a page's searchParams. */
export type ParamReader = (name: string) => string | null;

/** `?runs=a,b,c&baseline=b`: the runs in order (no repeats, at most MAX_RUNS) and the baseline. */
export function compareSelection(get: ParamReader) {
  const runIds = [
    ...new Set(
      (get("runs") ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ].slice(0, MAX_RUNS);
  const wanted = get("baseline");
  const baseline = wanted && runIds.includes(wanted) ? wanted : (runIds[0] ?? null);
  return { runIds, baseline };
}

/** The run picker's list: finished runs, newest first, of one project or all. */
export function pickerRunsInput(projectId: string, search = "") {
  return {
    search: search.trim() || undefined,
    status: "succeeded" as const,
    limit: 25,
    sort: "newest" as const,
    ...(projectId ? { projectId } : {}),
  };
}
