import {
  derivedContext,
  detectChangePoints,
  isKnownMetric,
  metricOrder,
  type TThreshold,
  withDerivedMetrics,
  ZThreshold,
} from "@benchboard/core";
import { z } from "zod";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { numericMetrics } from "./run-facts";

const ZThresholdList = z.array(ZThreshold).catch([]);

export const TREND_MAX_POINTS = 500;

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
}

/**
 * One metric over the finished runs of a scenario, oldest first, one line per branch. Excluded
 * runs come back marked, so the chart can grey them out and leave them off the line.
 */
export async function getTrend(db: Db, orgId: string, input: TrendInput) {
  const project = await db.project.findFirst({
    where: { orgId, id: input.projectId },
    select: { id: true, name: true, thresholds: true },
  });
  if (!project) throw new NotFoundError("projectId", "project not found");
  const rows = await db.run.findMany({
    where: {
      orgId,
      projectId: project.id,
      scenarioName: input.scenarioName,
      status: "succeeded",
      // A sweep varies the scenario (200, 500, 800 req/s): its runs are not this scenario's history.
      sweepId: null,
      ...(input.branch ? { branch: input.branch } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { number: "desc" }],
    take: TREND_MAX_POINTS,
    select: {
      id: true,
      number: true,
      branch: true,
      commit: true,
      createdAt: true,
      startedAt: true,
      excluded: true,
      excludedReason: true,
      configSnapshot: true,
      scenarioSnapshot: true,
      scenario: { select: { thresholds: true } },
      result: { select: { metrics: true, valid: true } },
    },
  });
  rows.reverse();
  const metricKeys = new Set<string>();
  const points = rows.map((r) => {
    const metrics = withDerivedMetrics(
      numericMetrics(r.result?.metrics),
      derivedContext(r.configSnapshot, r.scenarioSnapshot),
    );
    for (const k of Object.keys(metrics)) if (isKnownMetric(k)) metricKeys.add(k);
    return {
      runId: r.id,
      number: r.number,
      branch: r.branch,
      commit: r.commit,
      at: r.startedAt ?? r.createdAt,
      value: metrics[input.metric] ?? null,
      excluded: r.excluded,
      excludedReason: r.excludedReason,
      // Not a sound measurement: drawn marked, off the lines, and left out of change points.
      invalid: r.result?.valid === false,
    };
  });
  // The project's thresholds and those of the stored scenario the runs came from, drawn on the chart.
  const scenarioThresholds = rows.flatMap((r) => ZThresholdList.parse(r.scenario?.thresholds ?? []));
  const seen = new Set<string>();
  const thresholds = [...ZThresholdList.parse(project.thresholds), ...scenarioThresholds].filter((t) => {
    const key = `${t.metric}${t.op}${t.value}`;
    if (t.metric !== input.metric || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const changePoints = changePointsByBranch(points);
  const marked = new Map(changePoints.map((c) => [c.runId, c]));
  return {
    project: { id: project.id, name: project.name },
    metric: input.metric,
    metrics: [...metricKeys].sort(metricOrder),
    branches: [...new Set(points.map((p) => p.branch ?? ""))],
    points: points.map((p) => ({ ...p, changePoint: marked.get(p.runId) ?? null })),
    thresholds,
    changePoints,
  };
}

export type TrendView = Awaited<ReturnType<typeof getTrend>>;

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
  const branches = new Map<string, typeof points>();
  for (const p of points) {
    if (p.excluded || p.invalid || p.value === null || !Number.isFinite(p.value)) continue;
    const key = p.branch ?? "";
    branches.set(key, [...(branches.get(key) ?? []), p]);
  }
  for (const line of branches.values()) {
    for (const c of detectChangePoints(line.map((p) => p.value!))) {
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
    take: Math.min(input.take ?? TREND_MAX_POINTS, TREND_MAX_POINTS),
    select: {
      id: true,
      number: true,
      createdAt: true,
      configSnapshot: true,
      scenarioSnapshot: true,
      result: { select: { metrics: true } },
    },
  });
  return rows.reverse().map((r) => ({
    runId: r.id,
    number: r.number,
    createdAt: r.createdAt,
    metrics: withDerivedMetrics(
      numericMetrics(r.result?.metrics),
      derivedContext(r.configSnapshot, r.scenarioSnapshot),
    ),
  }));
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
