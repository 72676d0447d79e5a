import {
  approximateFromFigures,
  derivedContext,
  type PublishedRunFacts,
  publicConfigSnapshot,
  publicScenarioSnapshot,
  publicTargetSnapshot,
  runIdentity,
  runTitle,
  stepsFromFigures,
  type ThresholdStatus,
  type TPublishedReference,
  thresholdsOutcome,
  verdictStatus,
  withDerivedBounds,
  withDerivedMetrics,
  ZPublishedReference,
} from "@benchboard/core";
import type { Prisma } from "../generated/prisma/client";

/**
 * One shape for a run as the result views (run page, compare, sweep, trend, share) read it:
 * stored and derived metrics, the snapshots as they may be shown, and the figures a document
 * published for it.
 */
export const runFactsSelect = {
  id: true,
  orgId: true,
  number: true,
  status: true,
  source: true,
  scenarioName: true,
  projectId: true,
  excluded: true,
  excludedReason: true,
  groupId: true,
  groupIndex: true,
  sweepId: true,
  sweepValue: true,
  branch: true,
  commit: true,
  tags: true,
  createdAt: true,
  startedAt: true,
  endedAt: true,
  configSnapshot: true,
  scenarioSnapshot: true,
  targetSnapshot: true,
  project: { select: { id: true, name: true } },
  sweep: { select: { parameter: true, values: true, repetitions: true } },
  result: {
    select: {
      metrics: true,
      thresholdResults: true,
      extra: true,
      valid: true,
      invalidReasons: true,
      saturationReasons: true,
    },
  },
} satisfies Prisma.RunSelect;

/** The source of runs transcribed from a published document: their stored figures are the document's own. */
export const PUBLISHED_SOURCE = "import:published";

export type RunFactsRow = Prisma.RunGetPayload<{ select: typeof runFactsSelect }>;

export interface StoredVerdict {
  metric: string;
  op: string;
  value: number;
  actual: number | null;
  status: ThresholdStatus;
  passed: boolean;
  source: string;
  note?: string;
}

/** Stored verdicts with their three-state status (verdicts stored before it get theirs derived). */
export function storedVerdicts(value: unknown): StoredVerdict[] {
  return Array.isArray(value)
    ? value
        .filter(
          (v): v is Omit<StoredVerdict, "status"> & { status?: unknown } =>
            typeof v === "object" && v !== null && "metric" in v && "passed" in v,
        )
        .map((v) => ({ ...v, status: verdictStatus(v) }))
    : [];
}

/** The figures a document published for this run (seeded or imported runs keep them in `extra`). */
export function runPublished(extra: unknown): TPublishedReference | null {
  if (!extra || typeof extra !== "object" || !("published" in extra)) return null;
  const parsed = ZPublishedReference.safeParse((extra as { published: unknown }).published);
  return parsed.success ? parsed.data : null;
}

export function numericMetrics(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

/** What a run is as one point of a history (a branch's baseline, a scenario's trend). */
export const runHistoryPointSelect = {
  id: true,
  number: true,
  createdAt: true,
  configSnapshot: true,
  scenarioSnapshot: true,
  result: { select: { metrics: true } },
} satisfies Prisma.RunSelect;

export interface RunHistoryPoint {
  runId: string;
  number: number;
  createdAt: Date;
  metrics: Record<string, number>;
}

/** A run as a point of history: when, and its stored and derived metrics. */
export function toRunHistoryPoint(
  row: Prisma.RunGetPayload<{ select: typeof runHistoryPointSelect }>,
): RunHistoryPoint {
  return {
    runId: row.id,
    number: row.number,
    createdAt: row.createdAt,
    metrics: withDerivedMetrics(
      numericMetrics(row.result?.metrics),
      derivedContext(row.configSnapshot, row.scenarioSnapshot),
    ),
  };
}

export function runLabel(row: { number: number }): string {
  return `#${row.number}`;
}

/**
 * A run's facts. `groupSize`: how many runs its launch group has, for a group of repetitions
 * launched without a sweep ("repetition 2 of 3" in its title); a sweep's runs know it from the sweep.
 */
export function toRunFacts(row: RunFactsRow, groupSize: number | null = null) {
  const identity = {
    scenarioSnapshot: row.scenarioSnapshot,
    configSnapshot: row.configSnapshot,
    sweep: row.sweep,
    sweepValue: row.sweepValue,
    groupIndex: row.groupIndex,
    groupSize,
  };
  const context = derivedContext(row.configSnapshot, row.scenarioSnapshot);
  const stored = numericMetrics(row.result?.metrics);
  const published = runPublished(row.result?.extra);
  const verdicts = storedVerdicts(row.result?.thresholdResults);
  const config = publicConfigSnapshot(row.configSnapshot);
  const scenario = publicScenarioSnapshot(row.scenarioSnapshot);
  const facts: PublishedRunFacts = {
    runId: row.id,
    label: runLabel(row),
    metrics: withDerivedMetrics(stored, context),
    bounds: withDerivedBounds(stored, published ? stepsFromFigures(published.figures, row.id) : {}, context),
    context,
    snapshots: { config, scenario },
    meetsTargets: verdicts.length ? verdicts.every((v) => v.passed) : null,
    thresholdsOutcome: thresholdsOutcome(verdicts),
    transcribed: row.source === PUBLISHED_SOURCE,
  };
  return {
    id: row.id,
    number: row.number,
    label: facts.label,
    status: row.status,
    source: row.source,
    scenarioName: row.scenarioName,
    project: row.project,
    excluded: row.excluded,
    excludedReason: row.excludedReason,
    groupId: row.groupId,
    sweepId: row.sweepId,
    sweepValue: row.sweepValue,
    branch: row.branch,
    commit: row.commit,
    tags: row.tags,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    /** "Run #24 · 400 req/s · 20 s · rate = 400 (value 3 of 4)": what ran, not the scenario's name. */
    title: runTitle({ ...identity, number: row.number, scenarioName: row.scenarioName }),
    /** The same without the number: "400 req/s · 20 s · rate = 400 (value 3 of 4)". */
    identity: runIdentity(identity) ?? null,
    target: publicTargetSnapshot(row.targetSnapshot),
    config,
    scenario,
    storedMetrics: stored,
    approximate: published ? approximateFromFigures(published.figures, row.id) : {},
    valid: row.result?.valid ?? true,
    invalidReasons: row.result?.invalidReasons ?? [],
    saturationReasons: row.result?.saturationReasons ?? [],
    verdicts,
    published,
    facts,
  };
}

export type RunFacts = ReturnType<typeof toRunFacts>;
