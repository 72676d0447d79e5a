import {
  judgePlateau,
  nextCapacityStep,
  summarizeCapacitySearch,
  type TCapacityPlateau,
  type TCapacitySearchSpec,
  type TCapacitySearchSummary,
  type TScenarioSpec,
} from "@benchboard/core";
import { enforceLimits } from "../limits";
import type { EngineContext, EngineResult } from "../types";
import { runHttpOpen } from "./http-open";

type HttpOpenSpec = Extract<TScenarioSpec, { engine: "http-open" }>;

/** The open-model run of one plateau. */
export function plateauSpec(spec: TCapacitySearchSpec, rate: number): HttpOpenSpec {
  return {
    engine: "http-open",
    request: spec.request,
    rate,
    durationS: spec.plateauS,
    warmupS: spec.warmupS,
    maxConnections: spec.maxConnections,
    timeoutMs: spec.timeoutMs,
  };
}

/**
 * Capacity search: run plateaus of the open model at the rates `nextCapacityStep` picks (stepped,
 * then bisected) until it stops at the knee, and return one result. The run's figures are the
 * sustainable plateau's (the first plateau's when none was sustained), so every view of the run
 * reads a measurement at one rate; the per-second series cover every plateau on one time axis, and
 * `extra.capacitySearch` holds the answer, the bracket, every plateau and the reason it stopped.
 * Plateaus run one after another in this process: each verdict decides the next rate.
 */
export async function runCapacitySearch(spec: TCapacitySearchSpec, ctx: EngineContext): Promise<EngineResult> {
  enforceLimits(spec, ctx);
  const startedAt = new Date();
  const startPerf = performance.now();
  const plateaus: TCapacityPlateau[] = [];
  const results: EngineResult[] = [];
  // The dead-target watch reads counters that only grow: plateaus' counters are added up.
  const carried: Record<string, number> = {};
  let stop: TCapacitySearchSummary["stop"] | null = null;
  let canceled = false;
  while (stop === null) {
    const next = nextCapacityStep(spec, plateaus);
    if (next.kind === "stop") {
      stop = next.stop;
      break;
    }
    if (ctx.signal?.aborted) {
      canceled = true;
      break;
    }
    // What was judged so far survives the worker's death; never after the last plateau, whose
    // result is the final one.
    if (plateaus.length) {
      ctx.onCheckpoint?.(assemble(spec, plateaus, results, provisionalStop(plateaus), startedAt, false));
    }
    const done = plateaus.length;
    let lastCounters: Readonly<Record<string, number>> = {};
    const result = await runHttpOpen(plateauSpec(spec, next.rateRps), {
      ...ctx,
      onCheckpoint: undefined,
      onProgress: ctx.onProgress
        ? (p) =>
            ctx.onProgress?.({
              ...p,
              elapsedMs: performance.now() - startPerf,
              fraction: Math.min(0.99, (done + (p.fraction ?? 0)) / Math.max(done + 2, 4)),
            })
        : undefined,
      onTick: ctx.onTick
        ? (counters, now) => {
            lastCounters = counters;
            const total: Record<string, number> = { ...carried };
            for (const [k, v] of Object.entries(counters)) total[k] = (total[k] ?? 0) + v;
            ctx.onTick?.(total, now);
          }
        : undefined,
    });
    for (const [k, v] of Object.entries(lastCounters)) carried[k] = (carried[k] ?? 0) + v;
    if (result.canceled) {
      // A plateau cut short answers nothing; what was judged before it stays.
      canceled = true;
      break;
    }
    results.push(result);
    plateaus.push(
      judgePlateau(
        {
          offeredRps: next.rateRps,
          metrics: result.metrics,
          valid: result.valid,
          invalidReasons: result.invalidReasons,
          saturationReasons: result.saturationReasons,
          startedAt: result.startedAt.getTime(),
          durationMs: result.endedAt.getTime() - result.startedAt.getTime(),
        },
        spec.slo,
        { index: plateaus.length + 1, phase: next.phase },
      ),
    );
  }
  return assemble(spec, plateaus, results, stop ?? canceledStop(plateaus), startedAt, canceled);
}

function provisionalStop(plateaus: readonly TCapacityPlateau[]): TCapacitySearchSummary["stop"] {
  return { kind: "canceled", rateRps: null, message: `still searching after ${plateaus.length} plateaus` };
}

function canceledStop(plateaus: readonly TCapacityPlateau[]): TCapacitySearchSummary["stop"] {
  return { kind: "canceled", rateRps: null, message: `canceled after ${plateaus.length} judged plateaus` };
}

function assemble(
  spec: TCapacitySearchSpec,
  plateaus: readonly TCapacityPlateau[],
  results: readonly EngineResult[],
  stop: TCapacitySearchSummary["stop"],
  startedAt: Date,
  canceled: boolean,
): EngineResult {
  const summary = summarizeCapacitySearch(spec, plateaus, stop);
  const chosenIndex = summary.sustainablePlateau !== null ? summary.sustainablePlateau - 1 : 0;
  const chosen = results[chosenIndex];
  const endedAt = new Date();
  const generatorLimit = stop.kind === "generator-limit";
  if (!chosen) {
    return {
      metrics: {},
      statusCounts: {},
      errors: [],
      stages: {},
      valid: true,
      invalidReasons: [],
      saturationReasons: [],
      series: {},
      extra: { capacitySearch: summary },
      startedAt,
      endedAt,
      canceled,
    };
  }
  const metrics = { ...chosen.metrics };
  if (summary.sustainableRps !== null) metrics.capacity_rps = summary.sustainableRps;
  return {
    ...chosen,
    metrics,
    // The plateau's own validity, and the search's: a search the generator cut short answers
    // nothing about the target above the rate it reached.
    valid: chosen.valid && !generatorLimit,
    invalidReasons: generatorLimit ? [...chosen.invalidReasons, stop.message] : chosen.invalidReasons,
    series: joinSeries(results.map((r) => r.series)),
    intervalHistograms: joinIntervals(results.map((r) => r.intervalHistograms)),
    extra: { ...chosen.extra, capacitySearch: summary },
    startedAt,
    endedAt,
    canceled,
  };
}

type Series = EngineResult["series"][string];

/** Plateaus' series on one time axis: each sample at its own second, gaps (warm-ups) empty. */
function joinSeries(all: readonly EngineResult["series"][]): EngineResult["series"] {
  const keys = [...new Set(all.flatMap((s) => Object.keys(s)))];
  const out: EngineResult["series"] = {};
  for (const key of keys) {
    const parts = all.map((s) => s[key]).filter((s): s is Series => !!s);
    const joined = joinTimed(parts);
    if (joined) out[key] = joined;
  }
  return out;
}

function joinIntervals(all: readonly EngineResult["intervalHistograms"][]): EngineResult["intervalHistograms"] {
  const parts = all.filter((s): s is NonNullable<typeof s> => !!s);
  return joinTimed(parts) ?? undefined;
}

function joinTimed<V>(
  parts: readonly { start: number; intervalMs: number; values: V[] }[],
): { start: number; intervalMs: number; values: (V | null)[] } | null {
  const first = parts[0];
  if (!first) return null;
  const intervalMs = first.intervalMs;
  const values: (V | null)[] = [];
  for (const part of parts) {
    const offset = Math.max(values.length, Math.round((part.start - first.start) / intervalMs));
    while (values.length < offset) values.push(null);
    values.push(...part.values);
  }
  return { start: first.start, intervalMs, values };
}
