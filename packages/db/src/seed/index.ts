import {
  derivedContext,
  evaluateThresholds,
  type Interval,
  type ThresholdVerdict,
  type TPublishedFigure,
  type TPublishedReference,
  type TThreshold,
  withDerivedMetrics,
  ZThreshold,
} from "@benchboard/core";
import { z } from "zod";
import type { Db } from "../client";
import type { Prisma } from "../generated/prisma/client";
import { PUBLISHED_SOURCE } from "../queries/run-facts";
import {
  approximateOf,
  configSnapshot,
  PUBLISHED_PROJECTS,
  PUBLISHED_RUNS,
  PUBLISHED_TABLES,
  runFigures,
  type SeedRun,
  type SeedTable,
  scenarioSnapshot,
  storedMetrics,
} from "./published";
import { BIFROST_OVERHEAD_STAGES } from "./published/bifrost";

export const DEMO_ORG_SLUG = "demo";
export const DEMO_ORG_NAME = "Published benchmarks";
export { PUBLISHED_SOURCE } from "../queries/run-facts";

const TARGET_KIND = { gateway: "llm", examples: "http", chat: "ws-chat" } as const;
const TARGET_NAME = { gateway: "Bifrost gateway", examples: "Shuttle example apps", chat: "Chat server" } as const;
/** What each published target declares as its own overhead (ticked by default on its runs). */
const TARGET_OVERHEAD_STAGES: Partial<Record<keyof typeof TARGET_NAME, readonly string[]>> = {
  gateway: BIFROST_OVERHEAD_STAGES,
};

function json(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}

const ZThresholdList = z.array(ZThreshold).catch([]);

/**
 * Verdicts for an imported run, as a launched run gets them, judged on stored and derived metrics
 * alike (the chat log's runs have throughput only as messages over runtime).
 */
export function verdictsFor(
  metrics: Record<string, number>,
  snapshots: { config?: unknown; scenario?: unknown },
  projectThresholds: unknown,
  approximate: Readonly<Record<string, Interval>> = {},
): ThresholdVerdict[] {
  const scenario = ZThresholdList.parse((snapshots.scenario as { thresholds?: unknown } | null)?.thresholds ?? []);
  return evaluateThresholds(
    withDerivedMetrics(metrics, derivedContext(snapshots.config, snapshots.scenario)),
    [
      ...ZThresholdList.parse(projectThresholds).map((threshold: TThreshold) => ({
        threshold,
        source: "project" as const,
      })),
      ...scenario.map((threshold: TThreshold) => ({ threshold, source: "scenario" as const })),
    ],
    approximate,
  );
}

function withIds(figures: readonly TPublishedFigure[], ids: ReadonlyMap<string, string>): TPublishedFigure[] {
  const id = (key: string) => {
    const found = ids.get(key);
    if (!found) throw new Error(`figure names unknown run ${key}`);
    return found;
  };
  return figures.map((f) =>
    "baseRunId" in f ? { ...f, runId: id(f.runId), baseRunId: id(f.baseRunId) } : { ...f, runId: id(f.runId) },
  );
}

function reference(table: SeedTable, ids: ReadonlyMap<string, string>): TPublishedReference {
  return {
    source: table.cite.title,
    ...(table.cite.url ? { url: table.cite.url } : {}),
    table: table.cite.table,
    ...(table.cite.date ? { date: table.cite.date } : {}),
    ...(table.note ? { note: table.note } : {}),
    figures: withIds(table.figures, ids),
  };
}

/**
 * Load the published benchmark documents (shared/seeds) as the demo organization: imported runs
 * with their instance configs, and a saved comparison or sweep for every table. Idempotent: rows
 * are matched by slug, run number and title, so ids (and links to them) survive a re-seed.
 */
export async function seedPublishedDemo(db: Db) {
  return db.$transaction(
    async (tx) => {
      const org = await tx.organization.upsert({
        where: { slug: DEMO_ORG_SLUG },
        update: { name: DEMO_ORG_NAME, demo: true },
        create: { slug: DEMO_ORG_SLUG, name: DEMO_ORG_NAME, demo: true },
      });
      // Every signed-in account reads the demo as public data (see callerOrganizations): no
      // memberships are created for it.

      const projectIds = new Map<string, string>();
      for (const p of PUBLISHED_PROJECTS) {
        const runCounter = Math.max(0, ...PUBLISHED_RUNS.filter((r) => r.project === p.key).map((r) => r.number));
        const data = { name: p.name, description: p.description, thresholds: json(p.thresholds), runCounter };
        const project = await tx.project.upsert({
          where: { orgId_slug: { orgId: org.id, slug: p.slug } },
          update: data,
          create: { orgId: org.id, slug: p.slug, ...data },
        });
        projectIds.set(p.key, project.id);
      }

      const runIds = new Map<string, string>();
      for (const run of PUBLISHED_RUNS) {
        runIds.set(run.key, await upsertRun(tx, org.id, projectIds.get(run.project)!, run));
      }

      const sweepIds = new Map<string, string>();
      for (const table of PUBLISHED_TABLES) {
        const projectId = projectIds.get(table.project)!;
        const published = json(reference(table, runIds));
        const notes = `From ${table.cite.title}${table.cite.url ? ` (${table.cite.url})` : ""} — ${table.cite.table}.${table.note ? ` ${table.note}` : ""}`;
        if (table.kind === "sweep" && table.sweep) {
          const owned = new Set(table.sweep.owns);
          const values = table.runs
            .filter((k) => owned.has(k))
            .map((k) => sweepValue(PUBLISHED_RUNS.find((r) => r.key === k)!, table.sweep!.parameter));
          const data = {
            projectId,
            parameter: table.sweep.parameter,
            values: json(values),
            metric: table.sweep.metric,
            status: "succeeded" as const,
            includedRunIds: table.runs.filter((k) => !owned.has(k)).map((k) => runIds.get(k)!),
            published,
          };
          const existing = await tx.sweep.findFirst({
            where: { orgId: org.id, name: table.title },
            select: { id: true },
          });
          const sweep = existing
            ? await tx.sweep.update({ where: { id: existing.id }, data })
            : await tx.sweep.create({ data: { orgId: org.id, name: table.title, ...data } });
          sweepIds.set(table.key, sweep.id);
          for (const key of owned) {
            const run = PUBLISHED_RUNS.find((r) => r.key === key)!;
            await tx.run.update({
              where: { id: runIds.get(key)! },
              data: { sweepId: sweep.id, sweepValue: json(sweepValue(run, table.sweep.parameter)) },
            });
          }
        } else {
          const data = {
            projectId,
            runIds: table.runs.map((k) => runIds.get(k)!),
            baselineRunId: runIds.get(table.baseline ?? table.runs[0]!)!,
            notes,
            published,
          };
          const existing = await tx.comparison.findFirst({
            where: { orgId: org.id, title: table.title },
            select: { id: true },
          });
          if (existing) await tx.comparison.update({ where: { id: existing.id }, data });
          else await tx.comparison.create({ data: { orgId: org.id, title: table.title, ...data } });
        }
      }
      return { orgId: org.id, projects: projectIds.size, runs: runIds.size, tables: PUBLISHED_TABLES.length };
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
}

function sweepValue(run: SeedRun, parameter: string): string | number | boolean {
  const [scope, key] = parameter.split(".") as [string, string];
  const source: Record<string, unknown> =
    scope === "knobs"
      ? run.config.knobs
      : scope === "config"
        ? (run.config as unknown as Record<string, unknown>)
        : run.scenario.spec;
  const value = source[key];
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
    throw new Error(`${run.key} has no ${parameter}`);
  }
  return value;
}

async function upsertRun(
  tx: Prisma.TransactionClient,
  orgId: string,
  projectId: string,
  run: SeedRun,
): Promise<string> {
  const configData = {
    instanceType: run.config.instanceType ?? null,
    vcpu: run.config.vcpu ?? null,
    memoryMb: run.config.memoryMb ?? null,
    cpuLimit: run.config.cpuLimit ?? null,
    replicas: run.config.replicas,
    knobs: json(run.config.knobs),
  };
  const config = await tx.instanceConfig.upsert({
    where: { projectId_name: { projectId, name: run.config.name } },
    update: configData,
    create: { orgId, projectId, name: run.config.name, ...configData },
  });
  const project = await tx.project.findUniqueOrThrow({ where: { id: projectId }, select: { thresholds: true } });
  const snapshots = { config: { ...configSnapshot(run), id: config.id }, scenario: scenarioSnapshot(run) };
  const data = {
    status: "succeeded" as const,
    source: PUBLISHED_SOURCE,
    instanceConfigId: config.id,
    scenarioName: run.scenario.name,
    scenarioSnapshot: json(snapshots.scenario),
    configSnapshot: json(snapshots.config),
    targetSnapshot: json({
      name: TARGET_NAME[run.project],
      kind: TARGET_KIND[run.project],
      ...(TARGET_OVERHEAD_STAGES[run.project] ? { overheadStages: TARGET_OVERHEAD_STAGES[run.project] } : {}),
    }),
    tags: run.tags,
    notes: run.notes,
    excluded: run.excludedReason !== undefined,
    excludedReason: run.excludedReason ?? null,
  };
  const stored = await tx.run.upsert({
    where: { projectId_number: { projectId, number: run.number } },
    update: data,
    create: { orgId, projectId, number: run.number, ...data },
    select: { id: true },
  });
  const metrics = storedMetrics(run);
  const published: TPublishedReference = {
    source: run.cite.title,
    ...(run.cite.url ? { url: run.cite.url } : {}),
    table: run.cite.table,
    ...(run.cite.date ? { date: run.cite.date } : {}),
    figures: runFigures(run, stored.id),
  };
  const columns = {
    metrics,
    histogram: null,
    statusCounts: {},
    errors: [],
    stages: json(Object.fromEntries(Object.entries(run.stages ?? {}).map(([k, f]) => [k, { meanMs: f.value }]))),
    valid: true,
    invalidReasons: [],
    thresholdResults: json(verdictsFor(metrics, snapshots, project.thresholds, approximateOf(run))),
    extra: json({ published, label: run.label }),
  };
  await tx.runResult.upsert({ where: { runId: stored.id }, update: columns, create: { runId: stored.id, ...columns } });
  return stored.id;
}
