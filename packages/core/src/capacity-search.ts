import { z } from "zod";
import { type RunReading, runReading } from "./run-state";
import {
  CAPACITY_SEARCH_FIELDS,
  capacitySearchBounds,
  checkCapacityRange,
  type TCapacitySearchSpec,
  type TCapacitySlo,
  type TScenarioSpec,
  ZCapacitySlo,
} from "./scenario";

/**
 * Capacity search: one launch that finds the highest rate a target sustains within an SLO.
 * Plateaus of the open model run at rates stepped up by `stepFactor` from `minRate` until one
 * fails, then bisected between the last good and the first bad rate until the bracket is narrower
 * than `resolutionPct`. A plateau passes when its figures are the target's (not distorted by the
 * generator), its p99 and error rate meet the SLO, the target was not saturated, and it achieved
 * the rate offered within 2 %. Everything here is pure: the engine runs the plateaus.
 */

/** A plateau's achieved rate must be within this share of the rate offered to count as sustained. */
export const CAPACITY_ACHIEVED_WITHIN = 0.02;

export type PlateauVerdict = "pass" | "fail" | "invalid";

export const ZCapacityPlateau = z.object({
  /** 1-based, in the order run. */
  index: z.number().int().positive(),
  phase: z.enum(["step", "bisect"]),
  offeredRps: z.number().nonnegative(),
  achievedRps: z.number().nonnegative().nullable(),
  p50Ms: z.number().nonnegative().nullable(),
  p99Ms: z.number().nonnegative().nullable(),
  errorRatePct: z.number().min(0).max(100).nullable(),
  requests: z.number().int().nonnegative(),
  reading: z.enum(["valid", "saturated", "invalid"]),
  verdict: z.enum(["pass", "fail", "invalid"]),
  /** Why it failed: the SLO (p99 or errors), or the target saturating (short of the rate, or its own signals). */
  failure: z.enum(["slo", "saturated"]).nullable(),
  /** What broke, in words (empty for a pass). */
  reasons: z.array(z.string().max(500)).max(20),
  /** Epoch ms when the plateau's measured part began. */
  startedAt: z.number(),
  durationMs: z.number().nonnegative(),
});
export type TCapacityPlateau = z.infer<typeof ZCapacityPlateau>;

export const CAPACITY_STOP_KINDS = [
  "slo-broken",
  "saturated",
  "range-max",
  "generator-limit",
  "below-range",
  "canceled",
] as const;
export type CapacityStopKind = (typeof CAPACITY_STOP_KINDS)[number];

export const ZCapacitySearchSummary = z.object({
  slo: ZCapacitySlo,
  range: z.object({ minRate: z.number(), maxRate: z.number() }),
  resolutionPct: z.number(),
  /** The sustainable rate (req/s offered and achieved within 2 %), or null when none was. */
  sustainableRps: z.number().nullable(),
  /** The plateau that measured it (its figures are the run's metrics). */
  sustainablePlateau: z.number().int().positive().nullable(),
  /** The knee lies between these: the highest passing and the lowest failing rate. */
  bracket: z.object({ lastGoodRps: z.number().nullable(), firstBadRps: z.number().nullable() }),
  confidence: z.object({
    /** Width of the bracket as a share of the good rate, %; null without both ends. */
    bracketPct: z.number().nullable(),
    /** Plateaus whose verdict agrees with the knee: passes at or below it, failures above it. */
    agreeing: z.number().int().nonnegative(),
    judged: z.number().int().nonnegative(),
  }),
  stop: z.object({ kind: z.enum(CAPACITY_STOP_KINDS), rateRps: z.number().nullable(), message: z.string() }),
  /** The answer in one sentence. */
  statement: z.string(),
  plateaus: z.array(ZCapacityPlateau).max(200),
});
export type TCapacitySearchSummary = z.infer<typeof ZCapacitySearchSummary>;

/** What a plateau's engine result offers for judging. */
export interface PlateauMeasurement {
  offeredRps: number;
  metrics: Readonly<Record<string, number>>;
  valid: boolean;
  invalidReasons: readonly string[];
  saturationReasons: readonly string[];
  startedAt: number;
  durationMs: number;
}

const rateText = (v: number) =>
  v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toLocaleString("en-US", { maximumFractionDigits: 1 });
const msText = (v: number) => v.toLocaleString("en-US", { maximumFractionDigits: v < 10 ? 2 : 1 });

/** Judge one plateau against the SLO. */
export function judgePlateau(
  m: PlateauMeasurement,
  slo: TCapacitySlo,
  at: { index: number; phase: "step" | "bisect" },
): TCapacityPlateau {
  const requests = Math.max(0, Math.round(m.metrics.requests ?? 0));
  const failed = m.metrics.failed ?? 0;
  const achieved = m.metrics.rps ?? null;
  const p99 = m.metrics.latency_p99 ?? null;
  const errorRatePct = requests > 0 ? Math.min(100, (failed / requests) * 100) : null;
  const reading: RunReading = runReading({ valid: m.valid, saturationReasons: m.saturationReasons });
  const base = {
    ...at,
    offeredRps: m.offeredRps,
    achievedRps: achieved,
    p50Ms: m.metrics.latency_p50 ?? null,
    p99Ms: p99,
    errorRatePct,
    requests,
    reading,
    startedAt: m.startedAt,
    durationMs: m.durationMs,
  };
  if (reading === "invalid") {
    return { ...base, verdict: "invalid", failure: null, reasons: m.invalidReasons.slice(0, 20) };
  }
  const slos: string[] = [];
  if (p99 === null) slos.push("no latency measured");
  else if (p99 > slo.p99Ms) slos.push(`p99 ${msText(p99)} ms > ${msText(slo.p99Ms)} ms`);
  if (errorRatePct === null) slos.push("no requests answered");
  else if (errorRatePct > slo.errorRatePct)
    slos.push(`errors ${msText(errorRatePct)} % > ${msText(slo.errorRatePct)} %`);
  const saturation: string[] = [];
  if (achieved === null || achieved < (1 - CAPACITY_ACHIEVED_WITHIN) * m.offeredRps) {
    saturation.push(`achieved ${rateText(achieved ?? 0)} of ${rateText(m.offeredRps)} req/s offered`);
  }
  saturation.push(...m.saturationReasons);
  const reasons = [...saturation, ...slos].slice(0, 20);
  if (!reasons.length) return { ...base, verdict: "pass", failure: null, reasons: [] };
  return { ...base, verdict: "fail", failure: saturation.length ? "saturated" : "slo", reasons };
}

/** Rates are kept to what a person would type: whole req/s from 20 up, tenths below. */
export function roundRate(rate: number): number {
  return rate >= 20 ? Math.round(rate) : Math.round(rate * 10) / 10;
}

export type CapacityStep =
  | { kind: "run"; rateRps: number; phase: "step" | "bisect" }
  | { kind: "stop"; stop: TCapacitySearchSummary["stop"] };

type SearchSettings = Pick<
  TCapacitySearchSpec,
  "minRate" | "maxRate" | "stepFactor" | "resolutionPct" | "plateauS" | "warmupS"
>;

function bracketOf(plateaus: readonly TCapacityPlateau[]) {
  const good = plateaus.filter((p) => p.verdict === "pass").map((p) => p.offeredRps);
  const lastGood = good.length ? Math.max(...good) : null;
  // The first bad rate is the lowest failure above the last good one (a failure below a pass is noise).
  const bad = plateaus
    .filter((p) => p.verdict === "fail" && (lastGood === null || p.offeredRps > lastGood))
    .map((p) => p.offeredRps);
  const firstBad = bad.length ? Math.min(...bad) : null;
  return { lastGood, firstBad };
}

function failureStop(plateaus: readonly TCapacityPlateau[], firstBad: number, noneGood: boolean) {
  const bad = plateaus.find((p) => p.verdict === "fail" && p.offeredRps === firstBad)!;
  const what = bad.reasons.join("; ");
  if (bad.failure === "saturated") {
    const achieved = bad.achievedRps ?? 0;
    return {
      kind: noneGood ? ("below-range" as const) : ("saturated" as const),
      rateRps: achieved,
      message: `target saturated at ~${rateText(achieved)} req/s (${what})${noneGood ? "; already at the range's minimum: lower minRate" : ""}`,
    };
  }
  return {
    kind: noneGood ? ("below-range" as const) : ("slo-broken" as const),
    rateRps: bad.offeredRps,
    message: `SLO broken at ${rateText(bad.offeredRps)} req/s (${what})${noneGood ? "; already at the range's minimum: lower minRate" : ""}`,
  };
}

/** The next plateau to run, or why the search stops. */
export function nextCapacityStep(spec: SearchSettings, plateaus: readonly TCapacityPlateau[]): CapacityStep {
  // A plateau the generator distorted is run once more (a busy moment on a shared host is not the
  // generator's limit); distorted again, the search stops there.
  const invalid = plateaus.filter((p) => p.verdict === "invalid");
  const last = plateaus.at(-1);
  if (invalid.length === 1 && last?.verdict === "invalid") {
    return { kind: "run", rateRps: last.offeredRps, phase: last.phase };
  }
  if (invalid.length > 1) {
    const at = invalid.at(-1)!;
    return {
      kind: "stop",
      stop: {
        kind: "generator-limit",
        rateRps: at.offeredRps,
        message: `the load generator could not offer ${rateText(at.offeredRps)} req/s on time (${at.reasons.join("; ") || "its figures are distorted"}); the search stopped there — add shards or agents (a stronger generator) to search higher`,
      },
    };
  }
  if (!plateaus.length) return { kind: "run", rateRps: roundRate(spec.minRate), phase: "step" };
  const { lastGood, firstBad } = bracketOf(plateaus);
  if (firstBad !== null && lastGood === null) return { kind: "stop", stop: failureStop(plateaus, firstBad, true) };
  const good = lastGood!;
  if (firstBad === null) {
    if (good >= spec.maxRate) {
      return {
        kind: "stop",
        stop: {
          kind: "range-max",
          rateRps: good,
          message: `reached the range's maximum: ${rateText(good)} req/s meets the SLO; raise maxRate to search higher`,
        },
      };
    }
    return { kind: "run", rateRps: roundRate(Math.min(good * spec.stepFactor, spec.maxRate)), phase: "step" };
  }
  const mid = roundRate((good + firstBad) / 2);
  const narrow = (firstBad - good) / good < spec.resolutionPct / 100;
  const limit = plateaus.length >= capacitySearchBounds(spec).plateaus;
  if (narrow || limit || mid <= good || mid >= firstBad) {
    return { kind: "stop", stop: failureStop(plateaus, firstBad, false) };
  }
  return { kind: "run", rateRps: mid, phase: "bisect" };
}

/** The search's result from its plateaus and the reason it stopped. */
export function summarizeCapacitySearch(
  spec: Pick<TCapacitySearchSpec, "slo" | "minRate" | "maxRate" | "resolutionPct">,
  plateaus: readonly TCapacityPlateau[],
  stop: TCapacitySearchSummary["stop"],
): TCapacitySearchSummary {
  const { lastGood, firstBad } = bracketOf(plateaus);
  const best = lastGood === null ? null : plateaus.find((p) => p.verdict === "pass" && p.offeredRps === lastGood)!;
  const judged = plateaus.filter((p) => p.verdict !== "invalid");
  const agreeing =
    lastGood === null
      ? judged.filter((p) => p.verdict === "fail").length
      : judged.filter((p) => p.offeredRps <= lastGood === (p.verdict === "pass")).length;
  const bracketPct = lastGood !== null && firstBad !== null ? ((firstBad - lastGood) / lastGood) * 100 : null;
  const slo = `p99 ≤ ${msText(spec.slo.p99Ms)} ms and errors ≤ ${msText(spec.slo.errorRatePct)} %`;
  const statement = best
    ? `Sustains ${rateText(best.offeredRps)} req/s with ${slo} (measured p99 ${best.p99Ms === null ? "–" : `${msText(best.p99Ms)} ms`}, achieved ${rateText(best.achievedRps ?? 0)} req/s)${firstBad !== null ? `; fails at ${rateText(firstBad)} req/s` : ""}. Stopped: ${stop.message}.`
    : `No rate in ${rateText(spec.minRate)}–${rateText(spec.maxRate)} req/s is sustained with ${slo}. Stopped: ${stop.message}.`;
  return {
    slo: spec.slo,
    range: { minRate: spec.minRate, maxRate: spec.maxRate },
    resolutionPct: spec.resolutionPct,
    sustainableRps: best?.offeredRps ?? null,
    sustainablePlateau: best?.index ?? null,
    bracket: { lastGoodRps: lastGood, firstBadRps: firstBad },
    confidence: { bracketPct, agreeing, judged: judged.length },
    stop,
    statement,
    plateaus: [...plateaus],
  };
}

/** A stored result's capacity search, when it has one that reads as one; else null. */
export function capacitySearchOf(extra: unknown): TCapacitySearchSummary | null {
  if (!extra || typeof extra !== "object") return null;
  const parsed = ZCapacitySearchSummary.safeParse((extra as Record<string, unknown>).capacitySearch);
  return parsed.success ? parsed.data : null;
}

/**
 * A launch's `findCapacity`: turn an open-model scenario into a capacity search for this launch
 * (its request, connections and timeout kept), with the SLO and range given here.
 */
export const ZFindCapacity = z
  .object(
    {
      ...CAPACITY_SEARCH_FIELDS,
      stepFactor: CAPACITY_SEARCH_FIELDS.stepFactor.optional(),
      resolutionPct: CAPACITY_SEARCH_FIELDS.resolutionPct.optional(),
      plateauS: CAPACITY_SEARCH_FIELDS.plateauS.optional(),
      warmupS: CAPACITY_SEARCH_FIELDS.warmupS.optional(),
    },
    { error: "findCapacity must be an object: { slo: { p99Ms, errorRatePct }, minRate, maxRate }" },
  )
  .superRefine((s, ctx) => checkCapacityRange(s, ctx));
export type TFindCapacity = z.infer<typeof ZFindCapacity>;

export class FindCapacityError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = "FindCapacityError";
  }
}

/** The capacity-search spec a launch with `findCapacity` runs instead of the scenario's own. */
export function toCapacitySearch(spec: TScenarioSpec, find: TFindCapacity): TCapacitySearchSpec {
  const defaults = { stepFactor: 2, resolutionPct: 5, plateauS: 10, warmupS: 2 };
  const pick = <K extends keyof typeof defaults>(k: K, from?: Partial<Record<K, number>>) =>
    find[k] ?? from?.[k] ?? defaults[k];
  switch (spec.engine) {
    case "http-open":
      return {
        engine: "capacity-search",
        request: spec.request,
        slo: find.slo,
        minRate: find.minRate,
        maxRate: find.maxRate,
        stepFactor: pick("stepFactor"),
        resolutionPct: pick("resolutionPct"),
        plateauS: pick("plateauS"),
        warmupS: pick("warmupS"),
        maxConnections: spec.maxConnections,
        timeoutMs: Math.min(spec.timeoutMs, 60_000),
      };
    case "capacity-search":
      return {
        ...spec,
        slo: find.slo,
        minRate: find.minRate,
        maxRate: find.maxRate,
        stepFactor: pick("stepFactor", spec),
        resolutionPct: pick("resolutionPct", spec),
        plateauS: pick("plateauS", spec),
        warmupS: pick("warmupS", spec),
      };
    default:
      throw new FindCapacityError(
        "findCapacity",
        `a capacity search runs the open model (http-open); this scenario's engine is ${spec.engine}`,
      );
  }
}
