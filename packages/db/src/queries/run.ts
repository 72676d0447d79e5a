import {
  type EngineProgress,
  evaluateThresholds,
  type ThresholdVerdict,
  type TRunResultData,
  type TThreshold,
  ZThreshold,
} from "@benchboard/core";
import { z } from "zod";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import type { Prisma, RunStatus } from "../generated/prisma/client";
import { publicTargetSelect } from "./target";

const ZThresholdList = z.array(ZThreshold).catch([]);

export interface LaunchInput {
  targetId: string;
  scenarioId: string;
  instanceConfigId?: string | null;
  tags?: string[];
  notes?: string;
  sweepId?: string | null;
  sweepValue?: Prisma.InputJsonValue | null;
  createdById?: string | null;
}

/**
 * Create a queued run with immutable snapshots of its target, scenario and instance config.
 * Everything referenced must belong to the organization and to one project.
 */
export async function createLaunchedRun(db: Db, orgId: string, input: LaunchInput) {
  return db.$transaction(async (tx) => {
    const target = await tx.target.findFirst({ where: { orgId, id: input.targetId }, select: publicTargetSelect });
    if (!target) throw new NotFoundError("targetId", "target not found");
    const scenario = await tx.scenario.findFirst({ where: { orgId, id: input.scenarioId } });
    if (!scenario) throw new NotFoundError("scenarioId", "scenario not found");
    if (scenario.projectId !== target.projectId) {
      throw new NotFoundError("scenarioId", "scenario belongs to another project than the target");
    }
    const config = input.instanceConfigId
      ? await tx.instanceConfig.findFirst({ where: { orgId, id: input.instanceConfigId } })
      : null;
    if (input.instanceConfigId && !config) throw new NotFoundError("instanceConfigId", "instance config not found");
    const project = await tx.project.update({
      where: { id: target.projectId },
      data: { runCounter: { increment: 1 } },
    });
    return tx.run.create({
      data: {
        orgId,
        projectId: project.id,
        number: project.runCounter,
        targetId: target.id,
        scenarioId: scenario.id,
        instanceConfigId: config?.id ?? null,
        sweepId: input.sweepId ?? null,
        sweepValue: input.sweepValue ?? undefined,
        status: "queued",
        source: "launched",
        targetSnapshot: jsonSnapshot(target),
        scenarioSnapshot: jsonSnapshot({
          id: scenario.id,
          name: scenario.name,
          engine: scenario.engine,
          spec: scenario.spec,
          thresholds: scenario.thresholds,
        }),
        configSnapshot: config ? jsonSnapshot(config) : undefined,
        scenarioName: scenario.name,
        tags: input.tags ?? [],
        notes: input.notes ?? "",
        createdById: input.createdById ?? null,
      },
    });
  });
}

function jsonSnapshot(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}

export async function getRun(db: Db, orgId: string, id: string) {
  return db.run.findFirst({
    where: { orgId, id },
    include: {
      result: true,
      project: { select: { id: true, name: true, slug: true } },
    },
  });
}

export async function getRunSeries(db: Db, orgId: string, runId: string) {
  return db.series.findMany({ where: { runId, run: { orgId } }, orderBy: { metric: "asc" } });
}

export interface ListRunsParams {
  projectId?: string;
  status?: RunStatus;
  limit?: number;
  cursor?: string;
}

export async function listRuns(db: Db, orgId: string, params: ListRunsParams = {}) {
  const limit = Math.min(params.limit ?? 50, 200);
  const rows = await db.run.findMany({
    where: {
      orgId,
      ...(params.projectId ? { projectId: params.projectId } : {}),
      ...(params.status ? { status: params.status } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    ...(params.cursor ? { cursor: { id: params.cursor }, skip: 1 } : {}),
    select: {
      id: true,
      number: true,
      status: true,
      source: true,
      scenarioName: true,
      projectId: true,
      targetId: true,
      tags: true,
      branch: true,
      excluded: true,
      error: true,
      createdAt: true,
      startedAt: true,
      endedAt: true,
      progress: true,
      project: { select: { name: true } },
      target: { select: { name: true } },
      result: { select: { metrics: true, valid: true } },
    },
  });
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return { items, nextCursor: hasMore ? items[items.length - 1]?.id : undefined };
}

// ---- worker-side transitions (by run id: the worker is trusted and carries no org) ----

/** Move a queued run to running; returns null if it is no longer queued (e.g. canceled). */
export async function claimRun(db: Db, runId: string, workerId: string) {
  const now = new Date();
  const { count } = await db.run.updateMany({
    where: { id: runId, status: "queued" },
    data: { status: "running", startedAt: now, heartbeatAt: now, workerIds: { push: workerId } },
  });
  if (count === 0) return null;
  return db.run.findUniqueOrThrow({ where: { id: runId }, include: { target: true } });
}

export async function recordProgress(db: Db, runId: string, progress: EngineProgress) {
  await db.run.updateMany({
    where: { id: runId, status: "running" },
    data: { progress: progress as unknown as Prisma.InputJsonValue, heartbeatAt: new Date() },
  });
}

export async function isCancelRequested(db: Db, runId: string): Promise<boolean> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { cancelRequested: true, status: true } });
  return !run || run.cancelRequested || run.status === "canceled";
}

/** Thresholds that apply to a run: its project's and its scenario snapshot's. */
export async function thresholdsForRun(db: Db, runId: string) {
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    select: { scenarioSnapshot: true, project: { select: { thresholds: true } } },
  });
  const scenarioThresholds = ZThresholdList.parse(
    (run.scenarioSnapshot as { thresholds?: unknown } | null)?.thresholds ?? [],
  );
  const projectThresholds = ZThresholdList.parse(run.project.thresholds);
  return [
    ...projectThresholds.map((threshold: TThreshold) => ({ threshold, source: "project" as const })),
    ...scenarioThresholds.map((threshold: TThreshold) => ({ threshold, source: "scenario" as const })),
  ];
}

/**
 * Store a result and end the run in one transaction. `status` is succeeded, canceled or failed
 * (failed keeps the partial result with the reason).
 */
export async function finishRun(
  db: Db,
  runId: string,
  outcome: {
    status: Extract<RunStatus, "succeeded" | "failed" | "canceled">;
    error?: string | null;
    result?: TRunResultData | null;
  },
) {
  const verdicts: ThresholdVerdict[] = outcome.result
    ? evaluateThresholds(outcome.result.metrics, await thresholdsForRun(db, runId))
    : [];
  await db.$transaction(async (tx) => {
    const result = outcome.result;
    if (result) {
      const data = {
        metrics: result.metrics,
        histogram: result.histogram ?? null,
        statusCounts: result.statusCounts,
        errors: result.errors as unknown as Prisma.InputJsonValue,
        stages: result.stages as unknown as Prisma.InputJsonValue,
        valid: result.valid,
        invalidReasons: result.invalidReasons,
        thresholdResults: verdicts as unknown as Prisma.InputJsonValue,
        extra: (result.extra as Prisma.InputJsonValue | undefined) ?? undefined,
      };
      await tx.runResult.upsert({ where: { runId }, create: { runId, ...data }, update: data });
      await tx.series.deleteMany({ where: { runId } });
      const series = Object.entries(result.series);
      if (series.length) {
        await tx.series.createMany({
          data: series.map(([metric, s]) => ({
            runId,
            metric,
            start: new Date(s.start),
            intervalMs: s.intervalMs,
            values: s.values,
          })),
        });
      }
    }
    await tx.run.update({
      where: { id: runId },
      data: { status: outcome.status, error: outcome.error ?? null, endedAt: new Date(), heartbeatAt: new Date() },
    });
  });
}

export async function requestCancel(db: Db, orgId: string, runId: string) {
  const run = await db.run.findFirst({ where: { orgId, id: runId }, select: { id: true, status: true } });
  if (!run) throw new NotFoundError("id", "run not found");
  if (run.status === "queued") {
    // Nothing measured yet: end it now; the worker skips canceled runs it dequeues.
    await db.run.updateMany({
      where: { id: runId, status: "queued" },
      data: { status: "canceled", cancelRequested: true, endedAt: new Date(), error: "canceled before it started" },
    });
  } else if (run.status === "running") {
    await db.run.update({ where: { id: runId }, data: { cancelRequested: true } });
  }
  return db.run.findUniqueOrThrow({ where: { id: runId }, select: { id: true, status: true, cancelRequested: true } });
}
