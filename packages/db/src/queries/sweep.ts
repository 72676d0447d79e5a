import {
  applyParameter,
  checkLaunchFootprint,
  checkPublishedFigures,
  checkScenarioCaps,
  compareSweepValues,
  parseParameterPath,
  readParameter,
  resolveOrgCaps,
  type SweepValue,
  summarizeSweep,
  type TThreshold,
  ZScenarioSpec,
  ZThreshold,
} from "@benchboard/core";
import { z } from "zod";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { parsePublished } from "./comparison";
import { countActiveLoad } from "./run";
import { runFactsSelect, toRunFacts } from "./run-facts";
import { publicTargetSelect } from "./target";
import { assertLoadMayReach } from "./verification";

const ZThresholdList = z.array(ZThreshold).catch([]);

export const SWEEP_MAX_VALUES = 20;
export const SWEEP_MAX_RUNS = 60;

export interface CreateSweepInput {
  name: string;
  targetId: string;
  scenarioId: string;
  instanceConfigId?: string | null;
  parameter: string;
  values: SweepValue[];
  metric: string;
  repetitions?: number;
  createdById?: string | null;
}

function json(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}

/**
 * Create a sweep and its runs: one per value (times repetitions), each with snapshots that carry
 * the value (a knob reaches the target through its config-apply URL when the worker applies the
 * config snapshot). The runs form one group, so the worker runs them back to back and two values
 * never share the target at once; only the first run is to be enqueued.
 */
export async function createSweep(db: Db, orgId: string, input: CreateSweepInput) {
  const path = parseParameterPath(input.parameter);
  if (!path) {
    throw new ConflictError(
      "parameter",
      "use knobs.<name>, config.<vcpu|cpuLimit|memoryMb|replicas|instanceType> or scenario.<field>",
    );
  }
  const values = [...new Map(input.values.map((v) => [JSON.stringify(v), v])).values()];
  if (values.length < 2) throw new ConflictError("values", "give at least two different values");
  if (values.length > SWEEP_MAX_VALUES) throw new ConflictError("values", `at most ${SWEEP_MAX_VALUES} values`);
  const repetitions = Math.max(1, Math.floor(input.repetitions ?? 1));
  if (values.length * repetitions > SWEEP_MAX_RUNS) {
    throw new ConflictError("repetitions", `a sweep launches at most ${SWEEP_MAX_RUNS} runs (values × repetitions)`);
  }

  return db.$transaction(async (tx) => {
    const target = await tx.target.findFirst({ where: { orgId, id: input.targetId }, select: publicTargetSelect });
    if (!target) throw new NotFoundError("targetId", "target not found");
    const scenario = await tx.scenario.findFirst({ where: { orgId, id: input.scenarioId } });
    if (!scenario || scenario.projectId !== target.projectId) {
      throw new NotFoundError(
        "scenarioId",
        scenario ? "scenario belongs to another project than the target" : "scenario not found",
      );
    }
    const config = input.instanceConfigId
      ? await tx.instanceConfig.findFirst({ where: { orgId, id: input.instanceConfigId } })
      : null;
    if (input.instanceConfigId && (!config || config.projectId !== target.projectId)) {
      throw new NotFoundError("instanceConfigId", "instance config not found in the target's project");
    }
    if (path.scope === "knobs" && !target.configApplyUrl) {
      throw new ConflictError(
        "parameter",
        `target "${target.name}" has no config-apply URL, so a knob cannot reach it`,
      );
    }

    const base = {
      config: config ? (json(config) as Record<string, unknown>) : null,
      scenario: json({
        id: scenario.id,
        name: scenario.name,
        engine: scenario.engine,
        spec: scenario.spec,
        thresholds: scenario.thresholds,
      }) as Record<string, unknown>,
    };
    const org = await tx.organization.findUniqueOrThrow({ where: { id: orgId }, select: { caps: true } });
    const caps = resolveOrgCaps(org.caps);
    const snapshots = values.map((value, i) => {
      let applied: ReturnType<typeof applyParameter>;
      try {
        applied = applyParameter(base, input.parameter, value);
      } catch (err) {
        throw new ConflictError(`values.${i}`, (err as Error).message);
      }
      // A varied scenario field must still make a valid spec; other specs are left for the worker to judge.
      const spec = ZScenarioSpec.safeParse(applied.scenario?.spec);
      if (!spec.success && path.scope === "scenario") {
        throw new ConflictError(
          `values.${i}`,
          `${input.parameter} = ${String(value)}: ${spec.error.issues[0]?.message ?? "invalid"}`,
        );
      }
      const violation = spec.success ? checkScenarioCaps(spec.data, caps)[0] : undefined;
      if (violation)
        throw new ConflictError(`values.${i}`, `${input.parameter} = ${String(value)}: ${violation.message}`);
      return applied;
    });

    // Every value's spec must be allowed to reach the target (a probe only when unverified).
    for (const [i, snapshot] of snapshots.entries()) {
      const spec = ZScenarioSpec.safeParse(snapshot.scenario?.spec);
      await assertLoadMayReach(
        tx,
        orgId,
        target.baseUrl,
        spec.success ? spec.data : null,
        i === 0 ? "targetId" : `values.${i}`,
      );
    }
    // One sweep is one chain of runs: serialize with other launches and count it once.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`launch:${orgId}`}))`;
    const violation = checkLaunchFootprint(
      await countActiveLoad(tx, orgId),
      { sweepValues: values.length, repetitions },
      caps,
    );
    if (violation) throw new ConflictError(violation.specField, violation.message);

    const sweep = await tx.sweep.create({
      data: {
        orgId,
        projectId: target.projectId,
        name: input.name,
        scenarioId: scenario.id,
        targetId: target.id,
        instanceConfigId: config?.id ?? null,
        parameter: input.parameter,
        values: json(values),
        metric: input.metric,
        repetitions,
        status: "running",
        createdById: input.createdById ?? null,
      },
    });
    const total = values.length * repetitions;
    const project = await tx.project.update({
      where: { id: target.projectId },
      data: { runCounter: { increment: total } },
    });
    const firstNumber = project.runCounter - total + 1;
    const runs: { id: string; number: number; sweepValue: SweepValue }[] = [];
    let groupId: string | null = null;
    for (let v = 0; v < values.length; v++) {
      for (let r = 0; r < repetitions; r++) {
        const index = runs.length;
        const snapshot = snapshots[v]!;
        const run: { id: string; number: number } = await tx.run.create({
          data: {
            orgId,
            projectId: target.projectId,
            number: firstNumber + index,
            targetId: target.id,
            scenarioId: scenario.id,
            instanceConfigId: config?.id ?? null,
            sweepId: sweep.id,
            sweepValue: json(values[v]),
            groupId,
            groupIndex: index,
            status: "queued",
            source: "launched",
            targetSnapshot: json(target),
            scenarioSnapshot: json(snapshot.scenario),
            configSnapshot: snapshot.config ? json(snapshot.config) : undefined,
            scenarioName: scenario.name,
            tags: ["sweep"],
            createdById: input.createdById ?? null,
          },
          select: { id: true, number: true },
        });
        // The group is named after its first run, which only has an id once created.
        if (groupId === null) {
          groupId = run.id;
          await tx.run.update({ where: { id: run.id }, data: { groupId } });
        }
        runs.push({ ...run, sweepValue: values[v]! });
      }
    }
    return { sweep: { id: sweep.id, name: sweep.name }, runs };
  });
}

/** Sweeps of the organization, newest first, with how far each got. */
export async function listSweeps(db: Db, orgId: string) {
  const sweeps = await db.sweep.findMany({
    where: { orgId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 200,
    select: {
      id: true,
      name: true,
      parameter: true,
      metric: true,
      values: true,
      createdAt: true,
      published: true,
      project: { select: { id: true, name: true } },
      runs: { select: { status: true } },
    },
  });
  return sweeps.map(({ runs, published, ...s }) => ({
    ...s,
    hasPublishedFigures: published !== null,
    runCount: runs.length,
    status: sweepStatus(runs.map((r) => r.status)),
  }));
}

/**
 * Stop a sweep: its queued runs end `canceled` now, its running run is asked to stop (the worker
 * keeps what it measured), and no further value is started. Finished runs are kept as they are.
 */
export async function cancelSweep(db: Db, orgId: string, id: string) {
  const sweep = await db.sweep.findFirst({ where: { orgId, id }, select: { id: true } });
  if (!sweep) throw new NotFoundError("id", "sweep not found");
  const now = new Date();
  const [queued, running] = await db.$transaction([
    db.run.updateMany({
      where: { orgId, sweepId: id, status: "queued" },
      data: { status: "canceled", cancelRequested: true, endedAt: now, error: "canceled with its sweep" },
    }),
    db.run.updateMany({ where: { orgId, sweepId: id, status: "running" }, data: { cancelRequested: true } }),
  ]);
  return { canceledQueued: queued.count, stoppingRunning: running.count };
}

export function sweepStatus(statuses: readonly string[]): "running" | "succeeded" | "failed" | "canceled" {
  if (statuses.some((s) => s === "queued" || s === "running")) return "running";
  if (statuses.some((s) => s === "succeeded")) return "succeeded";
  if (statuses.length > 0 && statuses.every((s) => s === "canceled")) return "canceled";
  return "failed";
}

/**
 * A sweep's summary: each run's value and metrics, whether it meets the project's and scenario's
 * current targets, the best value, excluded runs kept visible, and published figures checked.
 */
export async function getSweepView(db: Db, orgId: string, id: string) {
  const sweep = await db.sweep.findFirst({
    where: { orgId, id },
    select: {
      id: true,
      name: true,
      parameter: true,
      metric: true,
      values: true,
      repetitions: true,
      includedRunIds: true,
      published: true,
      createdAt: true,
      project: { select: { id: true, name: true, thresholds: true } },
      scenario: { select: { thresholds: true } },
      target: { select: { name: true } },
    },
  });
  if (!sweep) return null;
  const rows = await db.run.findMany({
    where: { orgId, OR: [{ sweepId: sweep.id }, { id: { in: sweep.includedRunIds } }] },
    select: runFactsSelect,
  });
  const runs = rows.map(toRunFacts);
  // How far the value being measured has got (its live progress), for the sweep's progress bar.
  const running = await db.run.findMany({
    where: { orgId, sweepId: sweep.id, status: "running" },
    select: { id: true, progress: true },
  });
  const fractionOf = new Map(
    running.map((r) => {
      const fraction = (r.progress as { fraction?: unknown } | null)?.fraction;
      return [r.id, typeof fraction === "number" ? fraction : null];
    }),
  );
  const thresholds: TThreshold[] = [
    ...ZThresholdList.parse(sweep.project.thresholds),
    ...ZThresholdList.parse(sweep.scenario?.thresholds ?? []),
  ];
  const inputs = runs
    .map((run) => ({
      runId: run.id,
      // An included run carries no value of this sweep: read it from what it ran with.
      value:
        run.sweepId === sweep.id && isSweepValue(run.sweepValue)
          ? run.sweepValue
          : readParameter(run.facts.snapshots, sweep.parameter),
      status: run.status,
      excluded: run.excluded,
      metrics: run.facts.metrics,
    }))
    .sort((a, b) => compareSweepValues(a.value, b.value) || numberOf(runs, a.runId) - numberOf(runs, b.runId));
  const summary = summarizeSweep(inputs, sweep.metric, thresholds);
  const byId = new Map(runs.map((r) => [r.id, r]));
  const published = parsePublished(sweep.published);
  const meets = new Map(summary.rows.map((r) => [r.runId, r.meetsTargets]));
  return {
    sweep: {
      id: sweep.id,
      name: sweep.name,
      parameter: sweep.parameter,
      metric: sweep.metric,
      values: sweep.values,
      repetitions: sweep.repetitions,
      createdAt: sweep.createdAt,
      project: { id: sweep.project.id, name: sweep.project.name },
      targetName: sweep.target?.name ?? null,
      status: sweepStatus(runs.filter((r) => !sweep.includedRunIds.includes(r.id)).map((r) => r.status)),
    },
    thresholds,
    bestRunId: summary.bestRunId,
    rows: summary.rows.map((row) => {
      const run = byId.get(row.runId)!;
      return {
        ...row,
        number: run.number,
        label: run.label,
        included: sweep.includedRunIds.includes(run.id),
        excludedReason: run.excludedReason,
        /** Live progress (0–1) of a running run, when it reports one. */
        fraction: fractionOf.get(run.id) ?? null,
        configName: typeof run.config?.name === "string" ? run.config.name : null,
      };
    }),
    published: published
      ? {
          reference: published,
          checks: checkPublishedFigures(
            published.figures,
            new Map(runs.map((r) => [r.id, { ...r.facts, meetsTargets: meets.get(r.id) ?? null }])),
            summary.bestRunId,
          ),
        }
      : null,
  };
}

export type SweepView = NonNullable<Awaited<ReturnType<typeof getSweepView>>>;

function isSweepValue(v: unknown): v is SweepValue {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

function numberOf(runs: readonly { id: string; number: number }[], id: string): number {
  return runs.find((r) => r.id === id)?.number ?? 0;
}
