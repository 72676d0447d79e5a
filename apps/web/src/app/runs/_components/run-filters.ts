import type { RouterInputs } from "@benchboard/api";

type ListInput = Extract<RouterInputs["run"]["list"], object>;

/** Runs per page of the list. */
export const RUN_PAGE_SIZE = 50;

/** Filter keys as they appear in the URL, so a filtered list can be linked and reloaded. */
export const FILTER_KEYS = [
  "projectId",
  "targetId",
  "scenarioId",
  "configId",
  "status",
  "branch",
  "tag",
  "from",
  "to",
  "q",
  "sort",
  /** With sort=metric: the metric and its order (asc/desc; default its better end first). */
  "metric",
  "order",
  /** A range filter on one metric: key, lower and upper bound. */
  "mkey",
  "mmin",
  "mmax",
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string>>;

export const STATUSES = ["queued", "running", "succeeded", "failed", "canceled"] as const;
export const SORTS = [
  { value: "newest", label: "Newest first" },
  { value: "oldest", label: "Oldest first" },
  { value: "rps", label: "Highest req/s" },
  { value: "p99", label: "Lowest p99" },
  { value: "metric", label: "By metric…" },
] as const;

/** A bound typed in the URL as a finite number, or nothing. */
function bound(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

export function readFilters(params: URLSearchParams): Filters {
  const out: Filters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value) out[key] = value;
  }
  return out;
}

export function filtersToSearch(filters: Filters): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key];
    if (value && !(key === "sort" && value === "newest")) params.set(key, value);
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A `YYYY-MM-DD` date input as the start of that day, in the viewer's time zone. */
function startOfDay(date: string, addDays = 0): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return undefined;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + addDays);
}

/** The procedure's input for the URL's filters; `to` includes the whole day. */
export function listInput(filters: Filters, limit: number): Omit<ListInput, "cursor"> {
  const status = STATUSES.find((s) => s === filters.status);
  let sort: (typeof SORTS)[number]["value"] = SORTS.find((s) => s.value === filters.sort)?.value ?? "newest";
  // A metric sort without a metric is the default order.
  if (sort === "metric" && !filters.metric) sort = "newest";
  const order = filters.order === "asc" || filters.order === "desc" ? filters.order : undefined;
  const range = { min: bound(filters.mmin), max: bound(filters.mmax) };
  const metrics =
    filters.mkey && (range.min !== undefined || range.max !== undefined)
      ? [{ key: filters.mkey, ...range }]
      : undefined;
  return {
    projectId: filters.projectId,
    targetId: filters.targetId,
    scenarioId: filters.scenarioId,
    instanceConfigId: filters.configId,
    status,
    branch: filters.branch,
    tag: filters.tag,
    from: filters.from ? startOfDay(filters.from) : undefined,
    to: filters.to ? startOfDay(filters.to, 1) : undefined,
    search: filters.q,
    sort,
    ...(sort === "metric" ? { sortMetric: filters.metric, order } : {}),
    ...(metrics ? { metrics } : {}),
    limit,
  };
}
