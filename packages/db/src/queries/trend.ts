import {
  derivedContext,
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
      result: { select: { metrics: true } },
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
    };
  });
  const thresholds = ZThresholdList.parse(project.thresholds).filter((t) => t.metric === input.metric);
  return {
    project: { id: project.id, name: project.name },
    metric: input.metric,
    metrics: [...metricKeys].sort(metricOrder),
    branches: [...new Set(points.map((p) => p.branch ?? ""))],
    points,
    thresholds,
  };
}

export type TrendView = Awaited<ReturnType<typeof getTrend>>;

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
