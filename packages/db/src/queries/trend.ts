import { createHash } from "node:crypto";
import {
  DERIVED_KEYS,
  derivedContext,
  detectChangePoints,
  instanceConfigLabel,
  isKnownMetric,
  metricOrder,
  snapshotLoadLabel,
  type TThreshold,
  withDerivedMetrics,
  ZThreshold,
} from "@benchboard/core";
import { z } from "zod";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { Prisma } from "../generated/prisma/client";
import { numericMetrics, runHistoryPointSelect, toRunHistoryPoint } from "./run-facts";

const ZThresholdList = z.array(ZThreshold).catch([]);

/** Most runs a trend reads: its metric comes from the indexed RunMetric rows, one per run. */
export const TREND_MAX_POINTS = 10_000;
/** Most runs a scenario's history (statistical gates) reads with all their metrics. */
export const HISTORY_MAX_RUNS = 500;
/** The newest runs of a line whose metrics list the keys a trend can switch to. */
const METRIC_KEYS_SAMPLE = 200;

/** Projects with the scenarios (by name) and branches their finished runs have, for the pickers. */
export async function trendOptions(db: Db, orgId: string) {
  const [projects, combos] = await Promise.all([
    db.project.findMany({ where: { orgId }, orderBy: { createdAt: "asc" }, select: { id: true, name: true } }),
    db.run.groupBy({
      by: ["projectId", "scenarioName", "branch"],
      where: { orgId, status: "succeeded" },
      _count: { _all: true },
    }),
  ]);
  return projects.map((p) => {
    const mine = combos.filter((c) => c.projectId === p.id);
    return {
      ...p,
      scenarios: [...new Set(mine.map((c) => c.scenarioName))].sort(),
      branches: [...new Set(mine.flatMap((c) => (c.branch ? [c.branch] : [])))].sort(),
      runs: mine.reduce((n, c) => n + c._count._all, 0),
    };
  });
}

export interface TrendInput {
  projectId: string;
  scenarioName: string;
  metric: string;
  /** Only this branch; all branches (each its own line) when absent. */
  branch?: string | null;
  /** Only runs on this config (its label: instance type or name, CPU limit), e.g. "t3.xlarge". */
  config?: string | null;
  /** Only runs of this load (its label: rate or connections, duration), e.g. "5,000 req/s · 60 s". */
  load?: string | null;
  /** Only runs split into this many shards (filtered in the query, on the run's own column). */
  shards?: number | null;
}

interface TrendRow {
  id: string;
  number: number;
  branch: string | null;
  commit: string | null;
  createdAt: Date;
  startedAt: Date | null;
  excluded: boolean;
  excludedReason: string | null;
  scenarioId: string | null;
  value: number | null;
  config: string | null;
  load: string | null;
  /** The run's result says it is not a sound measurement. */
  invalid: boolean;
  shards: number;
}

/** Epoch milliseconds from the query (times travel as numbers: cheaper to write and to read). */
const epoch = (value: number | null): Date | null => (value === null ? null : new Date(value));

/** The label fields of a run without a snapshot (the query sends null rather than an object of nulls). */
const NO_CONFIG = { instanceType: null, name: null, cpuLimit: null };
const NO_LOAD = {
  engine: null,
  spec: {
    rate: null,
    durationS: null,
    stream: null,
    concurrency: null,
    requests: null,
    users: null,
    rooms: null,
    messagesPerUser: null,
  },
};

/**
 * Labels are computed once per distinct snapshot text: a line of 10,000 runs usually has a
 * handful of configs and loads, and parsing every run's fields took longer than the query.
 */
function labeller(label: (fields: unknown) => string | undefined, none: unknown) {
  const seen = new Map<string | null, string | null>();
  return (text: string | null): string | null => {
    let out = seen.get(text);
    if (out === undefined) {
      out = label(text === null ? none : JSON.parse(text)) ?? null;
      seen.set(text, out);
    }
    return out;
  };
}

function trendRows(text: string): TrendRow[] {
  const tuples = JSON.parse(text) as [
    string,
    number,
    string | null,
    string | null,
    number,
    number | null,
    boolean,
    string | null,
    string | null,
    number | null,
    string | null,
    string | null,
    boolean,
    number,
  ][];
  // Instance configs by name: two configs on one instance type are two lines, not one.
  const config = labeller(instanceConfigLabel, NO_CONFIG);
  const load = labeller(snapshotLoadLabel, NO_LOAD);
  return tuples.map(
    ([
      id,
      number,
      branch,
      commit,
      createdAt,
      startedAt,
      excluded,
      excludedReason,
      scenarioId,
      value,
      configFields,
      loadFields,
      invalid,
      shards,
    ]) => ({
      id,
      number,
      branch,
      commit,
      createdAt: epoch(createdAt)!,
      startedAt: epoch(startedAt),
      excluded,
      excludedReason,
      scenarioId,
      value,
      // Labels read from the few snapshot fields they need (see the query), not whole snapshots.
      config: config(configFields),
      load: load(loadFields),
      invalid,
      shards,
    }),
  );
}

/** Stored and derived metrics of the given runs, by run id. */
async function derivedMetricsOf(db: Db, ids: string[]) {
  const rows = await db.run.findMany({
    where: { id: { in: ids } },
    select: { id: true, configSnapshot: true, scenarioSnapshot: true, result: { select: { metrics: true } } },
  });
  return new Map(
    rows.map((r) => [
      r.id,
      withDerivedMetrics(numericMetrics(r.result?.metrics), derivedContext(r.configSnapshot, r.scenarioSnapshot)),
    ]),
  );
}

/**
 * One metric over the finished runs of a scenario, oldest first, one line per branch. Excluded
 * runs come back marked, so the chart can grey them out and leave them off the line.
 *
 * A stored metric is read from RunMetric (one indexed row per run), so a line of 10,000 runs
 * costs one narrow read; a derived metric (req/s per vCPU, overhead, …) needs each run's
 * snapshots and is computed from them.
 */
export async function getTrend(db: Db, orgId: string, input: TrendInput) {
  const project = await db.project.findFirst({
    where: { orgId, id: input.projectId },
    select: { id: true, name: true, thresholds: true },
  });
  if (!project) throw new NotFoundError("projectId", "project not found");
  // A sweep varies the scenario (200, 500, 800 req/s): its runs are not this scenario's history.
  // Up to 10,000 rows come back as one JSON text, parsed once: decoding them row by row through
  // the ORM took longer than the query. Times go as epoch milliseconds and the snapshots' label
  // fields as JSON text built only where a run has a snapshot: formatting timestamps and nesting
  // objects for 10,000 rows cost more than reading them.
  const branchOnly = input.branch ? Prisma.sql`AND r.branch = ${input.branch}` : Prisma.empty;
  // The shard counts the line has, for the picker: read beside the line, whatever is picked.
  const shardCountsQuery = db.$queryRaw<{ shardCount: number }[]>`
    SELECT DISTINCT r."shardCount" FROM "Run" r
    WHERE r."orgId" = ${orgId} AND r."projectId" = ${project.id} AND r."scenarioName" = ${input.scenarioName}
      AND r.status = 'succeeded' AND r."sweepId" IS NULL ${branchOnly}
    ORDER BY r."shardCount"`;
  const lineQuery = db.$queryRaw<{ rows: string }[]>`
    SELECT coalesce(json_agg(json_build_array(t.id, t.number, t.branch, t.commit, t."createdAtMs", t."startedAtMs",
      t.excluded, t."excludedReason", t."scenarioId", t.value, t.config, t.load, t.invalid, t."shardCount")
      ORDER BY t."createdAt" DESC, t.number DESC), '[]')::text AS rows
    FROM (
      SELECT r.id, r.number, r.branch, r.commit, r."createdAt", r.excluded, r."excludedReason",
        (extract(epoch FROM r."createdAt") * 1000)::float8 AS "createdAtMs",
        (extract(epoch FROM r."startedAt") * 1000)::float8 AS "startedAtMs",
        r."scenarioId", m.value, coalesce(rr.valid = false, false) AS invalid, r."shardCount",
        CASE WHEN r."configSnapshot" IS NOT NULL THEN jsonb_build_object('instanceType', r."configSnapshot"->'instanceType',
          'name', r."configSnapshot"->'name', 'cpuLimit', r."configSnapshot"->'cpuLimit')::text END AS config,
        CASE WHEN r."scenarioSnapshot" IS NOT NULL THEN jsonb_build_object('engine', r."scenarioSnapshot"->'engine', 'spec', jsonb_build_object(
          'rate', r."scenarioSnapshot"->'spec'->'rate', 'durationS', r."scenarioSnapshot"->'spec'->'durationS',
          'stream', r."scenarioSnapshot"->'spec'->'stream', 'concurrency', r."scenarioSnapshot"->'spec'->'concurrency',
          'requests', r."scenarioSnapshot"->'spec'->'requests', 'users', r."scenarioSnapshot"->'spec'->'users',
          'rooms', r."scenarioSnapshot"->'spec'->'rooms',
          'messagesPerUser', r."scenarioSnapshot"->'spec'->'messagesPerUser'))::text END AS load
      FROM "Run" r LEFT JOIN "RunMetric" m ON m."runId" = r.id AND m.key = ${input.metric}
        LEFT JOIN "RunResult" rr ON rr."runId" = r.id
      WHERE r."orgId" = ${orgId} AND r."projectId" = ${project.id} AND r."scenarioName" = ${input.scenarioName}
        AND r.status = 'succeeded' AND r."sweepId" IS NULL ${branchOnly}
        ${input.shards ? Prisma.sql`AND r."shardCount" = ${input.shards}` : Prisma.empty}
      ORDER BY r."createdAt" DESC, r.number DESC
      LIMIT ${TREND_MAX_POINTS}
    ) t`;
  const [[line], shardCounts] = await Promise.all([lineQuery, shardCountsQuery]);
  const all = trendRows(line?.rows ?? "[]");
  // Runs of one scenario may differ in config and load (a launch's overrides): each run says
  // which, the trend can keep to one of each, and a change point where either changed says so.
  const configs = [...new Set(all.flatMap((r) => (r.config ? [r.config] : [])))].sort();
  const loads = [...new Set(all.flatMap((r) => (r.load ? [r.load] : [])))].sort();
  const rows = all.filter(
    (r) => (!input.config || r.config === input.config) && (!input.load || r.load === input.load),
  );
  // The keys the picker offers, from the line's newest runs.
  const sample = await derivedMetricsOf(
    db,
    rows.slice(0, METRIC_KEYS_SAMPLE).map((r) => r.id),
  );
  const metricKeys = new Set<string>();
  for (const metrics of sample.values()) for (const k of Object.keys(metrics)) if (isKnownMetric(k)) metricKeys.add(k);
  const derived = (DERIVED_KEYS as readonly string[]).includes(input.metric);
  const derivedValues = derived
    ? await derivedMetricsOf(
        db,
        rows.map((r) => r.id),
      )
    : null;
  rows.reverse();
  const points = rows.map((r) => {
    const value = derivedValues ? (derivedValues.get(r.id)?.[input.metric] ?? null) : r.value;
    return {
      runId: r.id,
      number: r.number,
      branch: r.branch,
      commit: r.commit,
      at: r.startedAt ?? r.createdAt,
      value,
      excluded: r.excluded,
      excludedReason: r.excludedReason,
      config: r.config,
      load: r.load,
      shards: r.shards,
      // Not a sound measurement: drawn marked, off the lines, and left out of change points.
      invalid: r.invalid,
    };
  });
  // The project's thresholds and those of the stored scenarios the runs came from, drawn on the chart.
  const scenarioIds = [...new Set(rows.flatMap((r) => (r.scenarioId ? [r.scenarioId] : [])))];
  const scenarios = scenarioIds.length
    ? await db.scenario.findMany({ where: { orgId, id: { in: scenarioIds } }, select: { id: true, thresholds: true } })
    : [];
  const byScenario = new Map(scenarios.map((sc) => [sc.id, ZThresholdList.parse(sc.thresholds ?? [])]));
  const scenarioThresholds = scenarioIds.flatMap((id) => byScenario.get(id) ?? []);
  const seen = new Set<string>();
  const thresholds = [...ZThresholdList.parse(project.thresholds), ...scenarioThresholds].filter((t) => {
    const key = `${t.metric}${t.op}${t.value}`;
    if (t.metric !== input.metric || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const changePoints = changePointsByBranch(points).map((c) => ({ ...c, ...whatChanged(points, c) }));
  const marked = new Map(changePoints.map((c) => [c.runId, c]));
  return {
    project: { id: project.id, name: project.name },
    metric: input.metric,
    metrics: [...metricKeys].sort(metricOrder),
    branches: [...new Set(points.map((p) => p.branch ?? ""))],
    configs,
    loads,
    shardCounts: shardCounts.map((r) => r.shardCount),
    points: points.map((p) => ({ ...p, changePoint: marked.get(p.runId) ?? null })),
    thresholds,
    changePoints,
  };
}

export type TrendView = Awaited<ReturnType<typeof getTrend>>;

interface LabelledPoint {
  runId: string;
  branch: string | null;
  value: number | null;
  excluded: boolean;
  config: string | null;
  load: string | null;
  shards: number;
}

/**
 * Whether the config, the load or the shard count changed at a change point (from the run before it on the same
 * line): a "regression" that is a config switch should say so.
 */
function whatChanged(
  points: LabelledPoint[],
  at: { runId: string; branch: string | null },
): {
  configChange: { from: string | null; to: string | null } | null;
  loadChange: { from: string | null; to: string | null } | null;
  shardsChange: { from: number; to: number } | null;
} {
  const line = points.filter((p) => p.branch === at.branch && !p.excluded && p.value !== null);
  const i = line.findIndex((p) => p.runId === at.runId);
  const here = line[i];
  const before = i > 0 ? line[i - 1] : undefined;
  if (!here || !before) return { configChange: null, loadChange: null, shardsChange: null };
  return {
    configChange: here.config !== before.config ? { from: before.config, to: here.config } : null,
    loadChange: here.load !== before.load ? { from: before.load, to: here.load } : null,
    shardsChange: here.shards !== before.shards ? { from: before.shards, to: here.shards } : null,
  };
}

/** Lines whose change points this process remembers (one entry is a few hundred bytes). */
const CHANGE_POINT_MEMO_SIZE = 256;
const changePointMemo = new Map<string, ReturnType<typeof detectChangePoints>>();

/**
 * Change points of a line's values, remembered by the values themselves: detection is
 * deterministic (seeded permutations), so the same values always give the same answer, and a
 * line viewed again before a new run lands (or switched back to) costs a hash instead of a
 * detection. Any new run, exclusion or changed value changes the key.
 */
function changePointsOf(values: number[]) {
  const key = createHash("sha256")
    .update(new Uint8Array(Float64Array.from(values).buffer))
    .digest("base64");
  const known = changePointMemo.get(key);
  if (known) {
    // Most recently used last, so the oldest entry is the one dropped.
    changePointMemo.delete(key);
    changePointMemo.set(key, known);
    return known;
  }
  const found = detectChangePoints(values);
  changePointMemo.set(key, found);
  if (changePointMemo.size > CHANGE_POINT_MEMO_SIZE) {
    const oldest = changePointMemo.keys().next().value;
    if (oldest !== undefined) changePointMemo.delete(oldest);
  }
  return found;
}

export interface TrendChangePoint {
  runId: string;
  number: number;
  branch: string | null;
  /** Means of the runs before and from this one (up to the neighbouring change points). */
  before: number;
  after: number;
  change: number | null;
  pValue: number;
}

/**
 * Change points of each branch's line: e-divisive means over the runs that are on the line (not
 * excluded, with a value), each reported at the first run of the new level.
 */
export function changePointsByBranch(
  points: readonly {
    runId: string;
    number: number;
    branch: string | null;
    value: number | null;
    excluded: boolean;
    invalid?: boolean;
  }[],
): TrendChangePoint[] {
  const out: TrendChangePoint[] = [];
  const branches = new Map<string, (typeof points)[number][]>();
  for (const p of points) {
    if (p.excluded || p.invalid || p.value === null || !Number.isFinite(p.value)) continue;
    const key = p.branch ?? "";
    const line = branches.get(key);
    if (line) line.push(p);
    else branches.set(key, [p]);
  }
  for (const line of branches.values()) {
    for (const c of changePointsOf(line.map((p) => p.value!))) {
      const at = line[c.index]!;
      out.push({ runId: at.runId, number: at.number, branch: at.branch, ...c });
    }
  }
  return out;
}

export interface ScenarioHistoryInput {
  projectId: string;
  scenarioName: string;
  branch: string | null;
  /** Runs created before this one only (the run itself is left out). */
  beforeRunId?: string;
  through?: Date;
  take?: number;
}

/**
 * A scenario's history on one branch, oldest first: succeeded runs that are neither excluded nor
 * part of a sweep, with stored and derived metrics. What statistical gates and change points read.
 */
export async function scenarioHistory(db: Db, orgId: string, input: ScenarioHistoryInput) {
  const rows = await db.run.findMany({
    where: {
      orgId,
      projectId: input.projectId,
      scenarioName: input.scenarioName,
      branch: input.branch,
      status: "succeeded",
      excluded: false,
      sweepId: null,
      // An invalid measurement is no baseline: its figures may be the load generator's.
      result: { is: { valid: true } },
      ...(input.beforeRunId ? { id: { not: input.beforeRunId } } : {}),
      ...(input.through ? { createdAt: { lte: input.through } } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { number: "desc" }],
    take: Math.min(input.take ?? HISTORY_MAX_RUNS, HISTORY_MAX_RUNS),
    select: runHistoryPointSelect,
  });
  return rows.reverse().map(toRunHistoryPoint);
}

// ---- project thresholds (targets) ----

export async function getProjectThresholds(db: Db, orgId: string, projectId: string): Promise<TThreshold[]> {
  const project = await db.project.findFirst({ where: { orgId, id: projectId }, select: { thresholds: true } });
  if (!project) throw new NotFoundError("projectId", "project not found");
  return ZThresholdList.parse(project.thresholds);
}

/** Replace a project's targets; every later run (launched or imported) is judged against them. */
export async function setProjectThresholds(db: Db, orgId: string, projectId: string, thresholds: TThreshold[]) {
  const project = await db.project.findFirst({ where: { orgId, id: projectId }, select: { id: true } });
  if (!project) throw new NotFoundError("projectId", "project not found");
  thresholds.forEach((t, i) => {
    if (!isKnownMetric(t.metric)) throw new ConflictError(`thresholds.${i}.metric`, `unknown metric "${t.metric}"`);
  });
  const updated = await db.project.update({
    where: { id: project.id },
    data: { thresholds: thresholds.map((t) => ({ metric: t.metric, op: t.op, value: t.value })) },
    select: { thresholds: true },
  });
  return ZThresholdList.parse(updated.thresholds);
}
