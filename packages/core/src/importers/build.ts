import { RESULT_LIMITS, type TErrorEntry, type TToolThresholdVerdict } from "../run-result";
import { ImportError } from "./import-error";
import { NORMALIZED_RUN_SCHEMA_VERSION, type TNormalizedRun, ZNormalizedRun } from "./normalized-run";
import { roundTo } from "./units";

/** What an importer has read, before it is checked and shaped into a normalized run. */
export interface RunDraft {
  tool: { name: string; version?: string };
  startedAt?: string;
  endedAt?: string;
  durationS?: number;
  scenario?: { name: string; engine?: string; spec?: Record<string, unknown> };
  target?: { name?: string; url?: string };
  /** Undefined and non-finite values are dropped: a metric the tool did not report stays absent. */
  metrics: Record<string, number | undefined>;
  statusCounts?: Record<string, number>;
  errors?: TErrorEntry[];
  toolThresholds?: TToolThresholdVerdict[];
  histogram?: string;
  extra?: Record<string, unknown>;
  /** What the tool itself said about its results (e.g. ab's "not reliable" blocks). */
  notes?: string;
}

export function buildRun(format: string, draft: RunDraft): TNormalizedRun {
  const metrics: Record<string, number> = {};
  for (const [key, value] of Object.entries(draft.metrics)) {
    if (value !== undefined && Number.isFinite(value)) metrics[key] = value;
  }
  if (metrics.runtime_ms === undefined && draft.durationS !== undefined) {
    metrics.runtime_ms = roundTo(draft.durationS * 1000);
  }
  const { requests, success } = metrics;
  if (metrics.success_rate === undefined && requests !== undefined && requests > 0 && success !== undefined) {
    metrics.success_rate = roundTo((success / requests) * 100);
  }

  const extra = pruneUndefined(draft.extra ?? {}) as Record<string, unknown>;
  const candidate = {
    schemaVersion: NORMALIZED_RUN_SCHEMA_VERSION,
    tool: pruneUndefined(draft.tool),
    startedAt: draft.startedAt,
    endedAt: draft.endedAt,
    durationS: draft.durationS,
    scenario: draft.scenario && pruneUndefined(draft.scenario),
    notes: draft.notes,
    target:
      draft.target && (draft.target.url !== undefined || draft.target.name !== undefined) ? draft.target : undefined,
    result: {
      metrics,
      histogram: draft.histogram,
      statusCounts: draft.statusCounts ?? {},
      errors: foldErrors(draft.errors ?? []),
      toolThresholds: draft.toolThresholds && draft.toolThresholds.length > 0 ? draft.toolThresholds : undefined,
      extra: Object.keys(extra).length > 0 ? extra : undefined,
    },
  };
  const parsed = ZNormalizedRun.safeParse(pruneUndefined(candidate));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ImportError(format, `gives an invalid value: ${issue?.message ?? "unknown problem"}`, {
      field: issue?.path.join(".") ?? "",
    });
  }
  return parsed.data;
}

/** Kinds of error an importer names; folding keeps one entry per kind for the rest. */
const FOLD_ROOM = 16;

/**
 * A tool's error list within the limit of a result: beyond it, the most frequent entries are
 * kept and the rest counted together, one entry per kind ("(other messages)"), so every failure
 * is still counted. A long run's distinct messages (each naming another port or request) are the
 * tool's real output, not bad input.
 */
export function foldErrors(errors: TErrorEntry[]): TErrorEntry[] {
  if (errors.length <= RESULT_LIMITS.errors) return errors;
  const byCount = [...errors].sort((a, b) => b.count - a.count);
  const kept = byCount.slice(0, RESULT_LIMITS.errors - FOLD_ROOM);
  const others = new Map<string, TErrorEntry>();
  for (const e of byCount.slice(kept.length)) {
    // Past FOLD_ROOM kinds (only a made-up file has that many), the rest share one entry.
    const kind = others.has(e.kind) || others.size < FOLD_ROOM - 1 ? e.kind : "other";
    const other = others.get(kind);
    if (other) other.count += e.count;
    else others.set(kind, { kind, message: "(other messages)", count: e.count });
  }
  return [...kept, ...others.values()];
}

/** Drops undefined members recursively so the JSON shows only what the tool reported. */
export function pruneUndefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => pruneUndefined(v)) as T;
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = pruneUndefined(v);
    return out as T;
  }
  return value;
}

/** An HTTP status the vocabulary counts as a failure: 4xx, 5xx, or no response at all. */
export function isFailureStatus(status: number): boolean {
  return status >= 400 || status < 100;
}

export function statusError(status: number, count: number, message = `HTTP ${status}`): TErrorEntry {
  return { kind: "status", status, message, count };
}

/** The error kind for a tool's transport error text. */
export function transportErrorKind(message: string): string {
  if (/time(d)?[ -]?out|deadline exceeded/i.test(message)) return "timeout";
  if (/connection refused|connect:|dial tcp|no such host|ECONNREFUSED/i.test(message)) return "connect";
  return "transport";
}

/** Status counts plus failures without a response → requests, success, failed. */
export function countsFromStatuses(
  statusCounts: Record<string, number>,
  failuresWithoutStatus: number,
): { requests: number; success: number; failed: number } {
  let success = 0;
  let failed = failuresWithoutStatus;
  for (const [code, count] of Object.entries(statusCounts)) {
    if (isFailureStatus(Number(code))) failed += count;
    else success += count;
  }
  return { requests: success + failed, success, failed };
}
