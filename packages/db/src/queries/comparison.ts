import {
  buildCompareTable,
  type ChartPoint,
  type CompareColumn,
  checkPublishedFigures,
  decodeSeriesRollup,
  derivedContext,
  diffSnapshots,
  type OverlayInput,
  overlayGeometry,
  overlaySeries,
  rollupFineEnough,
  runReading,
  saturationHeadline,
  type TPublishedReference,
  withDerivedMetrics,
  ZPublishedReference,
} from "@benchboard/core";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { numericMetrics, type RunFacts, runFactsSelect, toRunFacts } from "./run-facts";

export const COMPARE_MIN_RUNS = 2;
export const COMPARE_MAX_RUNS = 10;

/** Series overlaid on the compare page, one chart each. */
export const COMPARE_CHART_METRICS = ["latency_p50", "latency_p99", "rps", "mem_bytes", "queue_depth"] as const;

export interface ComparisonViewInput {
  runIds: readonly string[];
  baselineRunId?: string | null;
  published?: TPublishedReference | null;
}

/** Repetitions of a run: its group's succeeded runs with the same sweep value, itself included. */
function repetitionKey(run: { groupId: string | null; sweepValue: unknown }): string | null {
  return run.groupId ? `${run.groupId}|${JSON.stringify(run.sweepValue ?? null)}` : null;
}

/**
 * Everything a comparison shows, in four queries however many runs: the runs with their
 * results, the sizes of groups repeated without a sweep, the repetitions of any that were
 * repeated, and the overlaid series.
 */
export async function getComparisonView(db: Db, orgId: string, input: ComparisonViewInput) {
  const ids = [...new Set(input.runIds)];
  const rows = await db.run.findMany({ where: { orgId, id: { in: ids } }, select: runFactsSelect });
  // Repetitions launched without a sweep: how many each group has, for "repetition 2 of 3".
  const plainGroups = [...new Set(rows.flatMap((r) => (r.groupId && !r.sweep ? [r.groupId] : [])))];
  const groupSizes = new Map(
    plainGroups.length
      ? (
          await db.run.groupBy({
            by: ["groupId"],
            where: { orgId, groupId: { in: plainGroups } },
            _count: { _all: true },
          })
        ).map((g) => [g.groupId, g._count._all])
      : [],
  );
  const byId = new Map(
    rows.map((r) => [r.id, toRunFacts(r, r.groupId && !r.sweep ? (groupSizes.get(r.groupId) ?? null) : null)]),
  );
  const runs = ids.flatMap((id) => {
    const run = byId.get(id);
    return run ? [run] : [];
  });
  const missing = ids.filter((id) => !byId.has(id));
  // The baseline is the one chosen, else the oldest run: deltas read forward in time.
  const oldest = [...runs].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.number - b.number)[0];
  const baselineRunId =
    input.baselineRunId && byId.has(input.baselineRunId) ? input.baselineRunId : (oldest?.id ?? null);
  const baselineIndex = Math.max(
    0,
    runs.findIndex((r) => r.id === baselineRunId),
  );

  const { values: repetitions, members } = await loadRepetitions(db, orgId, runs);
  const columns: CompareColumn[] = runs.map((run) => ({
    runId: run.id,
    metrics: run.facts.metrics,
    ...(repetitions.get(run.id) ? { repetitions: repetitions.get(run.id) } : {}),
  }));
  const table = buildCompareTable(columns, baselineIndex);

  // A repeated run is charted as its group, as the table shows it: every member's series on one
  // axis, then their mean at each point under the compared run's key.
  const charted = [...new Set(runs.flatMap((run) => members.get(run.id) ?? [run.id]))];
  const series = charted.length ? await loadChartSeries(db, charted) : new Map<string, OverlayInput>();
  const charts: Record<string, ChartPoint[]> = {};
  for (const metric of COMPARE_CHART_METRICS) {
    const points = overlaySeries(
      metric,
      charted.map((id) => ({ runId: id, series: series.get(`${id}|${metric}`) ?? null })),
    );
    if (points.length) charts[metric] = groupMeanPoints(points, runs, members);
  }

  const published = input.published
    ? {
        reference: input.published,
        checks: checkPublishedFigures(input.published.figures, new Map(runs.map((r) => [r.id, r.facts]))),
      }
    : null;
  // Each run's own document, checked against the run alone: a live comparison carries the same
  // ⚠ beside a printed figure as the run's page and a saved comparison do.
  const runChecks = runs.flatMap((r) =>
    r.published
      ? checkPublishedFigures(
          r.published.figures.filter((f) => f.kind === "value" && f.runId === r.id),
          new Map([[r.id, r.facts]]),
        )
      : [],
  );

  // Stages along a request's path, not A–Z: as a write-up printed them, then the overhead's stages
  // in the order the scenario names them, then any others by name (stored JSON keeps no order).
  const baselineRun = runs[baselineIndex];
  const allStages = new Set(runs.flatMap((r) => Object.keys(r.storedMetrics).filter((k) => k.startsWith("stage."))));
  const printedOrder = runs.flatMap((r) =>
    (r.published?.figures ?? []).flatMap((f) =>
      f.kind === "value" && f.metric.startsWith("stage.") ? [f.metric] : [],
    ),
  );
  const overheadOrder = (baselineRun?.facts.context.overheadStages ?? []).map((s) => `stage.${s}`);
  const stageKeys = [...new Set([...printedOrder, ...overheadOrder, ...[...allStages].sort()])].filter((k) =>
    allStages.has(k),
  );
  return {
    runs: runs.map(publicRun),
    missing,
    baselineRunId,
    table,
    stageKeys,
    /** Stages summed into the gateway overhead (from the baseline's scenario), when it names them. */
    overheadStages: baselineRun?.facts.context.overheadStages ?? null,
    configDiff: diffSnapshots(runs.map((r) => ({ target: r.target, config: r.config, scenario: r.scenario }))),
    charts,
    published,
    runChecks,
  };
}

interface StoredChartSeries {
  runId: string;
  metric: string;
  start: Date;
  intervalMs: number;
  rollup: Uint8Array | null;
  values: string | null;
}

/**
 * The charted series of the compared runs, by `runId|metric`. A long series is read as its stored
 * reduced copy (at most 600 points of min/max/mean/count), not its samples: ten one-hour runs are
 * 180,000 samples per request. Samples are read for short series, and for a reduced copy coarser
 * than the chart's points (a short run beside a much longer one at a finer interval), in a second
 * query for those only. Samples come as the JSON text PostgreSQL stores and are parsed once.
 */
async function loadChartSeries(db: Db, runIds: string[]): Promise<Map<string, OverlayInput>> {
  const rows = await db.$queryRaw<StoredChartSeries[]>`
    SELECT "runId", metric, start, "intervalMs", rollup,
      CASE WHEN rollup IS NULL THEN "values"::text END AS "values"
    FROM "Series"
    WHERE "runId" = ANY (${runIds}) AND metric = ANY (${[...COMPARE_CHART_METRICS]})`;
  const out = new Map<string, OverlayInput>();
  const samples = (text: string | null) => {
    const parsed: unknown = text === null ? [] : JSON.parse(text);
    return (Array.isArray(parsed) ? parsed : []) as (number | null)[];
  };
  for (const r of rows) {
    const rollup = r.rollup ? decodeSeriesRollup(r.rollup) : null;
    const base = { start: r.start, intervalMs: r.intervalMs };
    out.set(`${r.runId}|${r.metric}`, rollup ? { ...base, rollup } : { ...base, values: samples(r.values) });
  }
  // Reduced copies too coarse for their chart's axis: read those series' samples.
  const coarse: { runId: string; metric: string }[] = [];
  for (const metric of COMPARE_CHART_METRICS) {
    const mine = rows.filter((r) => r.metric === metric);
    const geometry = overlayGeometry(mine.map((r) => out.get(`${r.runId}|${metric}`) ?? null));
    if (!geometry) continue;
    for (const r of mine) {
      const s = out.get(`${r.runId}|${metric}`);
      if (s?.rollup && !rollupFineEnough(s.rollup, s.intervalMs, geometry)) coarse.push({ runId: r.runId, metric });
    }
  }
  if (coarse.length) {
    const full = await db.$queryRaw<{ runId: string; metric: string; values: string }[]>`
      SELECT "runId", metric, "values"::text AS "values" FROM "Series"
      WHERE ("runId", metric) IN (SELECT * FROM unnest(${coarse.map((c) => c.runId)}::text[], ${coarse.map((c) => c.metric)}::text[]))`;
    for (const r of full) {
      const s = out.get(`${r.runId}|${r.metric}`);
      if (s) out.set(`${r.runId}|${r.metric}`, { start: s.start, intervalMs: s.intervalMs, values: samples(r.values) });
    }
  }
  return out;
}

export type ComparisonView = Awaited<ReturnType<typeof getComparisonView>>;

/** What a comparison shows about each run (no raw snapshots, no internal bookkeeping). */
function publicRun(run: RunFacts) {
  return {
    id: run.id,
    number: run.number,
    label: run.label,
    title: run.title,
    /** What ran: load, config, sweep value and repetition ("400 req/s · 20 s · t3.xlarge"). */
    identity: run.identity,
    status: run.status,
    source: run.source,
    scenarioName: run.scenarioName,
    project: run.project,
    configName: typeof run.config?.name === "string" ? run.config.name : null,
    instanceType: typeof run.config?.instanceType === "string" ? run.config.instanceType : null,
    target: run.target,
    excluded: run.excluded,
    excludedReason: run.excludedReason,
    branch: run.branch,
    tags: run.tags,
    createdAt: run.createdAt,
    meetsTargets: run.facts.meetsTargets,
    thresholdsOutcome: run.facts.thresholdsOutcome ?? "none",
    /** valid, saturated (the target was the limit) or invalid (the generator distorted it). */
    reading: runReading(run),
    /** "saturated at ~N req/s achieved of M offered" for a saturated run, else null. */
    saturation: runReading(run) === "saturated" ? saturationHeadline(run.facts.metrics) : null,
  };
}

/**
 * Chart points keyed by each compared run: its own value, or for a repeated run the mean of its
 * group's members that have a value at that point (the members' own keys are dropped).
 */
function groupMeanPoints(
  points: readonly ChartPoint[],
  runs: readonly { id: string }[],
  members: ReadonlyMap<string, readonly string[]>,
): ChartPoint[] {
  return points.map((p) => {
    const values = p as Record<string, number | null | undefined>;
    const out: ChartPoint = { t: p.t };
    for (const run of runs) {
      const ids = members.get(run.id) ?? [run.id];
      const present = ids.map((id) => values[id]).filter((v): v is number => typeof v === "number");
      (out as Record<string, number | null>)[run.id] = present.length
        ? present.reduce((a, b) => a + b, 0) / present.length
        : null;
    }
    return out;
  });
}

/**
 * Each repeated run's group: the values of every metric over its members (for the table), and
 * the members' ids (for the charts). A run with fewer than two counted members is not repeated.
 */
async function loadRepetitions(db: Db, orgId: string, runs: readonly RunFacts[]) {
  const out = new Map<string, Record<string, number[]>>();
  const members = new Map<string, string[]>();
  const groupIds = [...new Set(runs.flatMap((r) => (r.groupId ? [r.groupId] : [])))];
  if (groupIds.length === 0) return { values: out, members };
  const siblings = await db.run.findMany({
    where: { orgId, groupId: { in: groupIds }, status: "succeeded", excluded: false },
    select: {
      id: true,
      groupId: true,
      sweepValue: true,
      configSnapshot: true,
      scenarioSnapshot: true,
      result: { select: { metrics: true } },
    },
  });
  const byKey = new Map<string, { id: string; metrics: Record<string, number> }[]>();
  for (const s of siblings) {
    const key = repetitionKey(s);
    if (!key || !s.result) continue;
    const metrics = withDerivedMetrics(
      numericMetrics(s.result.metrics),
      derivedContext(s.configSnapshot, s.scenarioSnapshot),
    );
    byKey.set(key, [...(byKey.get(key) ?? []), { id: s.id, metrics }]);
  }
  for (const run of runs) {
    const group = byKey.get(repetitionKey(run) ?? "");
    if (!group || group.length < 2) continue;
    const values: Record<string, number[]> = {};
    for (const { metrics } of group) {
      for (const [k, v] of Object.entries(metrics)) values[k] = [...(values[k] ?? []), v];
    }
    out.set(run.id, values);
    members.set(
      run.id,
      group.map((m) => m.id),
    );
  }
  return { values: out, members };
}

export function parsePublished(value: unknown): TPublishedReference | null {
  const parsed = ZPublishedReference.safeParse(value);
  return parsed.success ? parsed.data : null;
}

// ---- saved comparisons ----

export interface SaveComparisonInput {
  title: string;
  runIds: string[];
  baselineRunId: string;
  notes?: string;
  createdById?: string | null;
}

async function checkRuns(db: Db, orgId: string, runIds: string[], baselineRunId: string) {
  const unique = [...new Set(runIds)];
  if (unique.length !== runIds.length) throw new ConflictError("runIds", "a run is listed twice");
  if (unique.length < COMPARE_MIN_RUNS || unique.length > COMPARE_MAX_RUNS) {
    throw new ConflictError("runIds", `pick between ${COMPARE_MIN_RUNS} and ${COMPARE_MAX_RUNS} runs`);
  }
  if (!unique.includes(baselineRunId)) throw new ConflictError("baselineRunId", "the baseline must be one of the runs");
  const found = await db.run.findMany({ where: { orgId, id: { in: unique } }, select: { id: true, projectId: true } });
  if (found.length !== unique.length) throw new NotFoundError("runIds", "run not found");
  const projects = new Set(found.map((r) => r.projectId));
  return projects.size === 1 ? [...projects][0]! : null;
}

export async function createComparison(db: Db, orgId: string, input: SaveComparisonInput) {
  const projectId = await checkRuns(db, orgId, input.runIds, input.baselineRunId);
  return db.comparison.create({
    data: {
      orgId,
      projectId,
      title: input.title,
      runIds: input.runIds,
      baselineRunId: input.baselineRunId,
      notes: input.notes ?? "",
      createdById: input.createdById ?? null,
    },
    select: { id: true, title: true },
  });
}

export async function updateComparison(
  db: Db,
  orgId: string,
  id: string,
  input: Partial<Omit<SaveComparisonInput, "createdById">>,
) {
  const existing = await db.comparison.findFirst({
    where: { orgId, id },
    select: { id: true, runIds: true, baselineRunId: true },
  });
  if (!existing) throw new NotFoundError("id", "comparison not found");
  const data: Prisma.ComparisonUpdateInput = {};
  if (input.title !== undefined) data.title = input.title;
  if (input.notes !== undefined) data.notes = input.notes;
  if (input.runIds !== undefined || input.baselineRunId !== undefined) {
    const runIds = input.runIds ?? existing.runIds;
    const baselineRunId = input.baselineRunId ?? existing.baselineRunId;
    const projectId = await checkRuns(db, orgId, runIds, baselineRunId);
    Object.assign(data, {
      runIds,
      baselineRunId,
      project: projectId ? { connect: { id: projectId } } : { disconnect: true },
    });
  }
  return db.comparison.update({ where: { id: existing.id }, data, select: { id: true, title: true } });
}

export async function deleteComparison(db: Db, orgId: string, id: string) {
  const { count } = await db.comparison.deleteMany({ where: { orgId, id } });
  if (count === 0) throw new NotFoundError("id", "comparison not found");
  return { id };
}

export async function listComparisons(db: Db, orgId: string) {
  const rows = await db.comparison.findMany({
    where: { orgId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 200,
    select: {
      id: true,
      title: true,
      runIds: true,
      createdAt: true,
      published: true,
      project: { select: { id: true, name: true } },
      _count: { select: { shareLinks: { where: { revokedAt: null } } } },
    },
  });
  return rows.map(({ published, _count, ...r }) => ({
    ...r,
    runCount: r.runIds.length,
    hasPublishedFigures: published !== null,
    activeShareLinks: _count.shareLinks,
  }));
}

const savedSelect = {
  id: true,
  orgId: true,
  title: true,
  notes: true,
  runIds: true,
  baselineRunId: true,
  published: true,
  createdAt: true,
  project: { select: { id: true, name: true } },
} satisfies Prisma.ComparisonSelect;

/** A saved comparison with its view. */
export async function getSavedComparison(db: Db, orgId: string, id: string) {
  const saved = await db.comparison.findFirst({ where: { orgId, id }, select: savedSelect });
  if (!saved) return null;
  return withView(db, saved);
}

export async function withView(db: Db, saved: Prisma.ComparisonGetPayload<{ select: typeof savedSelect }>) {
  const view = await getComparisonView(db, saved.orgId, {
    runIds: saved.runIds,
    baselineRunId: saved.baselineRunId,
    published: parsePublished(saved.published),
  });
  return {
    comparison: {
      id: saved.id,
      title: saved.title,
      notes: saved.notes,
      createdAt: saved.createdAt,
      project: saved.project,
    },
    view,
  };
}

export { savedSelect as savedComparisonSelect };
