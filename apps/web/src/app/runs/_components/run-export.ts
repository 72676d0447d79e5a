import type { RouterOutputs } from "@benchboard/api";
import { toCsv } from "@benchboard/core";

type RunItem = RouterOutputs["run"]["list"]["items"][number];

/** At most this many runs go into one download; the file says when the filters selected more. */
export const EXPORT_MAX_RUNS = 10_000;

/** The columns of the runs list's CSV, one run a row, with the figures most lists are read for. */
export const EXPORT_COLUMNS = [
  "id",
  "number",
  "status",
  "reading",
  "excluded",
  "project",
  "scenario",
  "target",
  "instance_config",
  "source",
  "branch",
  "commit",
  "tags",
  "label",
  "started_at",
  "ended_at",
  "rate_metric",
  "rate",
  "latency_p50_ms",
  "latency_p99_ms",
  "success_rate",
] as const;

/** One run as the export's record: names instead of ids, times as ISO 8601, figures as numbers. */
export function exportRecord(r: RunItem): Record<(typeof EXPORT_COLUMNS)[number], string | number | boolean | null> {
  const m = (r.result?.metrics ?? {}) as Record<string, number | undefined>;
  const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);
  return {
    id: r.id,
    number: r.number,
    status: r.status,
    reading: r.result?.reading ?? null,
    excluded: r.excluded,
    project: r.project.name,
    scenario: r.scenarioName || null,
    target: r.target?.name ?? null,
    instance_config: r.instanceConfig?.name ?? null,
    source: r.source,
    branch: r.branch ?? null,
    commit: r.commit ?? null,
    tags: r.tags.join(" "),
    label: r.label ?? null,
    started_at: iso(r.startedAt ?? r.createdAt),
    ended_at: iso(r.endedAt),
    rate_metric: r.result?.rate?.metric ?? null,
    rate: r.result?.rate?.value ?? null,
    latency_p50_ms: m.latency_p50 ?? null,
    latency_p99_ms: m.latency_p99 ?? null,
    success_rate: m.success_rate ?? null,
  };
}

export function runsCsv(items: readonly RunItem[]): string {
  return toCsv([EXPORT_COLUMNS, ...items.map((r) => EXPORT_COLUMNS.map((c) => exportRecord(r)[c]))]);
}
