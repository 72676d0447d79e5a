import {
  approximateFromFigures,
  checkPublishedFigures,
  derivedContext,
  type Interval,
  metricDef,
  type PublishedCheck,
  type PublishedRunFacts,
  readParameter,
  stepsFromFigures,
  summarizeSweep,
  type TPublishedFigure,
  type TThreshold,
  withDerivedBounds,
  withDerivedMetrics,
} from "@benchboard/core";
import { gatewayProject, gatewayRuns, gatewayTables } from "./bifrost";
import { chatProject, chatRuns, chatTables } from "./chat";
import { valueFigure } from "./figures";
import { examplesProject, examplesRuns, examplesTables } from "./shuttle";
import type { SeedProject, SeedRun, SeedTable } from "./types";

export type { Citation, ProjectKey, SeedConfig, SeedProject, SeedRun, SeedScenario, SeedTable } from "./types";

/** The published benchmark documents, transcribed: projects, runs and the tables built from them. */
export const PUBLISHED_PROJECTS: readonly SeedProject[] = [gatewayProject, examplesProject, chatProject];
export const PUBLISHED_RUNS: readonly SeedRun[] = [...gatewayRuns, ...examplesRuns, ...chatRuns];
export const PUBLISHED_TABLES: readonly SeedTable[] = [...gatewayTables, ...examplesTables, ...chatTables];

/** What a run stores as metrics: its printed measurements plus its stages as `stage.<name>`. */
export function storedMetrics(run: SeedRun): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, f] of Object.entries(run.metrics)) out[k] = f.value;
  for (const [k, f] of Object.entries(run.stages ?? {})) out[`stage.${k}`] = f.value;
  return out;
}

/** The run's own printed figures (measurements, stages and derived figures), naming it by `runId`. */
export function runFigures(run: SeedRun, runId: string): TPublishedFigure[] {
  return [
    ...Object.entries(run.metrics).map(([k, f]) => valueFigure(metricDef(k).label, runId, k, f)),
    ...Object.entries(run.stages ?? {}).map(([k, f]) =>
      valueFigure(metricDef(`stage.${k}`).label, runId, `stage.${k}`, f),
    ),
    ...Object.entries(run.printed ?? {}).map(([k, f]) => valueFigure(metricDef(k).label, runId, k, f)),
  ];
}

export function configSnapshot(run: SeedRun): Record<string, unknown> {
  return { ...run.config };
}

export function scenarioSnapshot(run: SeedRun): Record<string, unknown> {
  return { ...run.scenario };
}

/** The intervals the run's approximate figures (`~20`, `~35–40`) stand for, by metric. */
export function approximateOf(run: SeedRun): Record<string, Interval> {
  return approximateFromFigures(runFigures(run, run.key), run.key);
}

/** Facts about a transcribed run, computed exactly as for stored runs. */
export function seedRunFacts(run: SeedRun, meetsTargets: boolean | null): PublishedRunFacts {
  const ctx = derivedContext(configSnapshot(run), scenarioSnapshot(run));
  const metrics = storedMetrics(run);
  return {
    runId: run.key,
    label: `#${run.number}`,
    metrics: withDerivedMetrics(metrics, ctx),
    bounds: withDerivedBounds(metrics, stepsFromFigures(runFigures(run, run.key), run.key), ctx),
    context: ctx,
    snapshots: { config: configSnapshot(run), scenario: scenarioSnapshot(run) },
    meetsTargets,
    transcribed: true,
  };
}

const RUN_BY_KEY = new Map(PUBLISHED_RUNS.map((r) => [r.key, r]));

export function seedRun(key: string): SeedRun {
  const run = RUN_BY_KEY.get(key);
  if (!run) throw new Error(`no transcribed run ${key}`);
  return run;
}

/** A transcribed table's runs judged as a sweep is: thresholds, best value, why others were passed over. */
export function judgeSeedTable(table: SeedTable) {
  const project = PUBLISHED_PROJECTS.find((p) => p.key === table.project)!;
  const thresholds = project.thresholds as TThreshold[];
  return summarizeSweep(
    table.runs.map(seedRun).map((run) => ({
      runId: run.key,
      value: table.sweep
        ? readParameter({ config: configSnapshot(run), scenario: scenarioSnapshot(run) }, table.sweep.parameter)
        : null,
      status: "succeeded",
      excluded: run.excludedReason !== undefined,
      metrics: seedRunFacts(run, null).metrics,
      approximate: approximateOf(run),
    })),
    table.sweep?.metric ?? "throughput",
    thresholds,
  );
}

/** Check a transcribed table against values computed from its transcribed runs. */
export function checkSeedTable(table: SeedTable): PublishedCheck[] {
  const runs = table.runs.map(seedRun);
  const judged = judgeSeedTable(table);
  const facts = new Map(
    runs.map((run) => {
      const row = judged.rows.find((r) => r.runId === run.key);
      return [
        run.key,
        { ...seedRunFacts(run, row?.meetsTargets ?? null), thresholdsOutcome: row?.thresholdsOutcome ?? "none" },
      ];
    }),
  );
  return checkPublishedFigures(table.figures, facts, table.sweep ? judged.bestRunId : null);
}
