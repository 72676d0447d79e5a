import {
  CONFIG_FIELDS,
  checkPublishedFigures,
  compareSweepValues,
  defaultObjective,
  describeObjective,
  RATE_PARAMETER,
  rateCapacity,
  readParameter,
  type SweepObjective,
  type SweepValue,
  summarizeSweep,
  type TThreshold,
  ZThreshold,
} from "@benchboard/core";
import { z } from "zod";
import type { Db } from "../client";
import { NotFoundError } from "../errors";
import { parsePublished } from "./comparison";
import { runFactsSelect, toRunFacts } from "./run-facts";

const ZThresholdList = z.array(ZThreshold).catch([]);

/** Parameter paths a sweep can vary for a scenario and instance config, with their values now. */
export async function sweepParameters(
  db: Db,
  orgId: string,
  input: { scenarioId?: string | null; instanceConfigId?: string | null },
) {
  const [scenario, config] = await Promise.all([
    input.scenarioId ? db.scenario.findFirst({ where: { orgId, id: input.scenarioId }, select: { spec: true } }) : null,
    input.instanceConfigId
      ? db.instanceConfig.findFirst({ where: { orgId, id: input.instanceConfigId }, select: { knobs: true } })
      : null,
  ]);
  const spec = (scenario?.spec ?? {}) as Record<string, unknown>;
  const knobs = (config?.knobs ?? {}) as Record<string, unknown>;
  return [
    ...Object.keys(knobs).map((k) => ({ path: `knobs.${k}`, current: knobs[k] ?? null })),
    ...Object.entries(spec)
      .filter(([k, v]) => k !== "engine" && (typeof v === "number" || typeof v === "boolean"))
      .map(([k, v]) => ({ path: `scenario.${k}`, current: v as number | boolean })),
    ...CONFIG_FIELDS.map((f) => ({ path: `config.${f}`, current: null })),
  ];
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
export async function getSweepView(
  db: Db,
  orgId: string,
  id: string,
  options: { capacity?: { metric: string; below: number } | null } = {},
) {
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
      valid: run.valid,
      invalidReasons: run.invalidReasons,
      saturationReasons: run.saturationReasons,
      approximate: run.approximate,
    }))
    .sort((a, b) => compareSweepValues(a.value, b.value) || numberOf(runs, a.runId) - numberOf(runs, b.runId));
  // A rate sweep's answer is its capacity; a question asked narrows it to a bound of its own.
  const objective: SweepObjective = options.capacity
    ? { kind: "capacity", metric: options.capacity.metric, below: options.capacity.below }
    : defaultObjective(sweep.parameter, sweep.metric);
  const summary = summarizeSweep(inputs, objective, thresholds, { parameter: sweep.parameter });
  const byId = new Map(runs.map((r) => [r.id, r]));
  const published = parsePublished(sweep.published);
  const meets = new Map(summary.rows.map((r) => [r.runId, r]));
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
    objective: summary.objective,
    objectiveText: describeObjective(summary.objective, sweep.parameter),
    /** A rate sweep's answer: the rate sustained and where the target saturates (null for other sweeps). */
    capacity: sweep.parameter === RATE_PARAMETER ? rateCapacity(summary.rows, summary.objective, thresholds) : null,
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
            new Map(
              runs.map((r) => [
                r.id,
                {
                  ...r.facts,
                  meetsTargets: meets.get(r.id)?.meetsTargets ?? null,
                  thresholdsOutcome: meets.get(r.id)?.thresholdsOutcome ?? "none",
                },
              ]),
            ),
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
