import {
  alignSeries,
  capacitySearchOf,
  checkPublishedFigures,
  contradictions,
  DERIVED_KEYS,
  type GeneratorSample,
  histogramBuckets,
  planShards,
  publishedText,
  runReading,
  saturationHeadline,
  type TErrorEntry,
  type TScenarioSpec,
  type TStageStat,
  targetOverheadStages,
  workerCapacity,
  ZScenarioSpec,
} from "@benchboard/core";
import { decodeHistogramBounded } from "@benchboard/core/histogram-input";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { LOCAL_ORG_SLUG } from "./org";
import { numericMetrics, runFactsSelect, storedVerdicts, toRunFacts } from "./run-facts";

/** Percentiles listed beside the latency histogram. */
const PERCENTILES = [50, 75, 90, 95, 99, 99.9, 99.99, 100];

function decodeLatency(encoded: string | null) {
  if (!encoded) return null;
  try {
    // Bounded even though uploads store canonical histograms: rows older than that check remain.
    const h = decodeHistogramBounded(encoded);
    if (h.totalCount === 0) return null;
    return {
      count: h.totalCount,
      buckets: histogramBuckets(h, 40),
      percentiles: PERCENTILES.map((p) => ({ percentile: p, ms: h.getValueAtPercentile(p) / 1000 })),
    };
  } catch {
    // A histogram that does not decode is reported as absent rather than failing the page.
    return null;
  }
}

function launchOverridesOf(snapshot: unknown): Record<string, number> | null {
  const overrides = (snapshot as { overrides?: unknown } | null)?.overrides;
  if (!overrides || typeof overrides !== "object") return null;
  const out = Object.fromEntries(Object.entries(overrides).filter(([, v]) => typeof v === "number"));
  return Object.keys(out).length ? (out as Record<string, number>) : null;
}

/**
 * Each shard of a split run: its worker and its share of the load. Where workers run (their
 * ids name hosts) is shown to the install's own organization only; others (and share links) see
 * "worker 1", …. An agent run's shards show the agent's name to its organization ("agent 1" on
 * share links).
 */
function shardRows(
  row: {
    shardCount: number;
    workerLabel: string | null;
    agentLabel: string | null;
    scenarioSnapshot: unknown;
    org: { slug: string };
    shards: { index: number; status: string; workerId: string | null; error: string | null }[];
  },
  revealWorkers: boolean,
) {
  if (row.shardCount <= 1) return null;
  const spec = ZScenarioSpec.safeParse((row.scenarioSnapshot as { spec?: unknown } | null)?.spec);
  let plan: ReturnType<typeof planShards> | null = null;
  try {
    plan = spec.success ? planShards(spec.data, row.shardCount) : null;
  } catch {
    plan = null;
  }
  // Shared views never name workers; the install's own organization sees their ids.
  const operator = revealWorkers && row.org.slug === LOCAL_ORG_SLUG;
  const names = new Map<string, string>();
  return {
    count: row.shardCount,
    workerLabel: row.workerLabel,
    agentLabel: row.agentLabel,
    items: Array.from({ length: row.shardCount }, (_, index) => {
      const shard = row.shards.find((s) => s.index === index);
      const workerId = shard?.workerId ?? null;
      if (workerId && !names.has(workerId)) {
        names.set(workerId, `${agentName(workerId) === null ? "worker" : "agent"} ${names.size + 1}`);
      }
      const share = plan?.[index];
      // An agent is the organization's own: its name is shown to it (never on a shared view).
      const agent = workerId ? agentName(workerId) : null;
      return {
        index,
        status: shard?.status ?? "queued",
        worker: workerId
          ? agent !== null && revealWorkers
            ? agent
            : operator
              ? workerId
              : names.get(workerId)!
          : null,
        error: shard?.error ?? null,
        share: share ? describeShardShare(share) : null,
      };
    }),
  };
}

/** The name of the agent a shard ran on (its worker id is `agent:<name>:<id>`), null for a worker. */
function agentName(workerId: string): string | null {
  const m = /^agent:(.+):[^:]+$/.exec(workerId);
  return m ? m[1]! : null;
}

/** A shard's load in the words of its engine: "50 req/s, 2 connections", "3 users". */
function describeShardShare(spec: TScenarioSpec): string {
  const n = (v: number) => v.toLocaleString("en-US", { maximumFractionDigits: 1 });
  switch (spec.engine) {
    case "http-open":
    case "llm":
      return `${n(spec.rate)} req/s, up to ${n(spec.maxConnections)} connections`;
    case "http-closed":
      return `${n(spec.concurrency)} users${spec.requests !== undefined ? `, ${n(spec.requests)} requests` : ""}`;
    case "ws-chat":
      return `${n(spec.users)} users in ${n(spec.rooms)} rooms`;
    case "capacity-search":
      return `${n(spec.minRate)}–${n(spec.maxRate)} req/s searched, up to ${n(spec.maxConnections)} connections`;
  }
}

/**
 * Everything the run page shows below the live progress: summary with derived metrics, latency
 * histogram decoded server-side, stage and error breakdowns, verdicts, snapshots and the figures
 * a document published for the run. Also what a share link shows, so it is loaded by org id.
 */
export async function getRunView(db: Db, orgId: string, runId: string, options: { revealWorkers?: boolean } = {}) {
  const row = await db.run.findFirst({
    where: { orgId, id: runId },
    select: {
      ...runFactsSelect,
      notes: true,
      error: true,
      ciUrl: true,
      serverConfig: true,
      shardCount: true,
      workerLabel: true,
      agentLabel: true,
      org: { select: { slug: true } },
      shards: {
        orderBy: { index: "asc" },
        select: { index: true, status: true, workerId: true, error: true, startedAt: true, endedAt: true },
      },
      sweep: { select: { id: true, name: true, ...runFactsSelect.sweep.select } },
      result: {
        select: {
          ...runFactsSelect.result.select,
          histogram: true,
          statusCounts: true,
          errors: true,
          stages: true,
        },
      },
    },
  });
  if (!row) return null;
  // Repetitions launched without a sweep: the title says which of how many this one is.
  const groupSize = row.groupId && !row.sweep ? await db.run.count({ where: { orgId, groupId: row.groupId } }) : null;
  const facts = toRunFacts(row, groupSize);
  const result = row.result;
  const published = facts.published
    ? {
        reference: facts.published,
        checks: checkPublishedFigures(facts.published.figures, new Map([[row.id, facts.facts]])),
      }
    : null;
  return {
    run: {
      id: row.id,
      number: row.number,
      status: row.status,
      source: row.source,
      scenarioName: row.scenarioName,
      project: row.project,
      branch: row.branch,
      commit: row.commit,
      ciUrl: row.ciUrl,
      tags: row.tags,
      notes: row.notes,
      excluded: row.excluded,
      excludedReason: row.excludedReason,
      error: row.error,
      groupId: row.groupId,
      sweep: row.sweep && { id: row.sweep.id, name: row.sweep.name, parameter: row.sweep.parameter },
      sweepValue: row.sweepValue,
      /** "Run #24 · 400 req/s · 20 s · rate = 400 (value 3 of 4)": what ran, not the scenario's name. */
      title: facts.title,
      createdAt: row.createdAt,
      startedAt: row.startedAt,
      endedAt: row.endedAt,
    },
    target: facts.target,
    config: facts.config,
    scenario: facts.scenario,
    /** What the target's config hook reported right before load: the config in effect. */
    serverConfig:
      row.serverConfig && typeof row.serverConfig === "object" && !Array.isArray(row.serverConfig)
        ? (row.serverConfig as Record<string, unknown>)
        : null,
    overrides: launchOverridesOf(row.scenarioSnapshot),
    shards: shardRows(row, options.revealWorkers ?? false),
    /** Stages ticked by default: the scenario snapshot's list, else what the target declared. */
    overheadStages: facts.facts.context.overheadStages ?? targetOverheadStages(row.targetSnapshot),
    result: result
      ? {
          metrics: facts.facts.metrics,
          derivedKeys: DERIVED_KEYS.filter((k) => k in facts.facts.metrics),
          valid: result.valid,
          invalidReasons: result.invalidReasons,
          /** valid, saturated (the target was the limit; still valid) or invalid (the generator's doing). */
          reading: runReading(result),
          /** The target's own reasons for being the limit (a growing queue, a slowing stage, …). */
          saturationReasons: result.saturationReasons,
          /** "saturated at ~N req/s achieved of M offered" for a saturated run, else null. */
          saturation: runReading(result) === "saturated" ? saturationHeadline(facts.facts.metrics) : null,
          /** How the generator's threads were scheduled, when real-time was asked for (else null). */
          scheduling: schedulingOf(result.extra),
          helperThreads: helperThreadsOf(result.extra),
          loopSlice: loopSliceOf(result.extra),
          pacingThread: pacingThreadOf(result.extra),
          /** When the generator stalled and what each stall dropped (open model), else []. */
          stalls: stallsOf(result.extra),
          statusCounts: numericMetrics(result.statusCounts),
          errors: (Array.isArray(result.errors) ? result.errors : []) as TErrorEntry[],
          stages: (result.stages && typeof result.stages === "object" ? result.stages : {}) as Record<
            string,
            TStageStat
          >,
          verdicts: storedVerdicts(result.thresholdResults),
          /** Figures that cannot all be true, in words (a chat run with 0 failed yet deliveries missing). */
          contradictions: contradictions(facts.facts.metrics),
          /** The text a document printed for each metric, kept as the source gave it ("47.13 µs", "~35–40"). */
          publishedText: facts.published
            ? Object.fromEntries(
                Object.keys(facts.facts.metrics).flatMap((k) => {
                  const text = publishedText(facts.published!.figures, row.id, k);
                  return text === null ? [] : [[k, text]];
                }),
              )
            : {},
          latency: decodeLatency(result.histogram),
          tokenCount: tokenCountOf(result.extra),
          /** A capacity search's answer, bracket, plateaus and why it stopped, else null. */
          capacitySearch: capacitySearchOf(result.extra),
        }
      : null,
    published,
  };
}

export type RunView = NonNullable<Awaited<ReturnType<typeof getRunView>>>;

/** A run's per-second series on one shared time axis, reduced to at most `maxPoints` points. */
export async function getRunChart(db: Db, orgId: string, runId: string, maxPoints = 900) {
  const rows = await db.series.findMany({
    where: { runId, run: { orgId } },
    select: { metric: true, start: true, intervalMs: true, values: true },
  });
  const series = rows.map((r) => ({ ...r, values: (Array.isArray(r.values) ? r.values : []) as (number | null)[] }));
  const { intervalMs, points } = alignSeries(series, maxPoints);
  return { intervalMs, metrics: series.map((s) => s.metric).sort(), points };
}

export interface RunMetaInput {
  notes?: string;
  tags?: string[];
  excluded?: boolean;
  excludedReason?: string | null;
}

/** Notes, tags and exclusion are the only things about a finished run that can be changed. */
export async function updateRunMeta(db: Db, orgId: string, runId: string, input: RunMetaInput) {
  const run = await db.run.findFirst({ where: { orgId, id: runId }, select: { id: true, excludedReason: true } });
  if (!run) throw new NotFoundError("id", "run not found");
  const reason = input.excludedReason?.trim() ?? undefined;
  if (input.excluded === true && !reason && !run.excludedReason) {
    throw new ConflictError("excludedReason", "say why the run is excluded from sweeps and trends");
  }
  return db.run.update({
    where: { id: run.id },
    data: {
      ...(input.notes !== undefined ? { notes: input.notes } : {}),
      ...(input.tags !== undefined ? { tags: [...new Set(input.tags)] } : {}),
      ...(input.excluded !== undefined
        ? { excluded: input.excluded, excludedReason: input.excluded ? (reason ?? run.excludedReason) : null }
        : {}),
    },
    select: { id: true, notes: true, tags: true, excluded: true, excludedReason: true },
  });
}

/** The run with its full result and every series sample, for download. */
export async function getRunExport(db: Db, orgId: string, runId: string) {
  const view = await getRunView(db, orgId, runId);
  if (!view) return null;
  const series = await db.series.findMany({
    where: { runId, run: { orgId } },
    orderBy: { metric: "asc" },
    select: { metric: true, start: true, intervalMs: true, values: true },
  });
  return {
    run: view.run,
    target: view.target,
    config: view.config,
    scenario: view.scenario,
    result: view.result
      ? {
          metrics: view.result.metrics,
          valid: view.result.valid,
          invalidReasons: view.result.invalidReasons,
          reading: view.result.reading,
          saturationReasons: view.result.saturationReasons,
          statusCounts: view.result.statusCounts,
          errors: view.result.errors,
          stages: view.result.stages,
          thresholds: view.result.verdicts,
          latencyPercentiles: view.result.latency?.percentiles ?? [],
        }
      : null,
    series: series.map((s) => ({
      metric: s.metric,
      start: s.start.toISOString(),
      intervalMs: s.intervalMs,
      values: (Array.isArray(s.values) ? s.values : []) as (number | null)[],
    })),
  };
}

/**
 * How an LLM run counted its output tokens: from the provider's usage, from stream events (one
 * per content event, on streams that report no usage), or both across its requests.
 */
function tokenCountOf(extra: unknown): "usage" | "stream events" | "mixed" | null {
  const counters = (extra as { counters?: Record<string, unknown> } | null)?.counters;
  const usage = typeof counters?.tokens_from_usage === "number" ? counters.tokens_from_usage : 0;
  const events = typeof counters?.tokens_from_events === "number" ? counters.tokens_from_events : 0;
  if (usage > 0 && events > 0) return "mixed";
  if (usage > 0) return "usage";
  if (events > 0) return "stream events";
  return null;
}

/** Recent runs that recorded their generator's CPU, per engine: enough for a stable median. */
const CAPACITY_SAMPLE_RUNS = 20;

/**
 * What one worker can drive with `engine`, from this organization's recent valid runs that
 * recorded the generator's CPU (else the benchmark's figure), for the launch form's shard hint.
 */
export async function generatorCapacity(db: Db, orgId: string, engine: string) {
  const rows = await db.run.findMany({
    where: {
      orgId,
      status: "succeeded",
      source: "launched",
      scenarioSnapshot: { path: ["spec", "engine"], equals: engine },
      result: { is: { valid: true } },
    },
    orderBy: { createdAt: "desc" },
    take: CAPACITY_SAMPLE_RUNS * 3,
    select: { shardCount: true, result: { select: { metrics: true } } },
  });
  const samples: GeneratorSample[] = [];
  for (const row of rows) {
    const metrics = numericMetrics(row.result?.metrics);
    if (metrics.generator_cpu === undefined || metrics.rps === undefined) continue;
    samples.push({ rps: metrics.rps, generatorCpu: metrics.generator_cpu, shards: Math.max(1, row.shardCount ?? 1) });
    if (samples.length >= CAPACITY_SAMPLE_RUNS) break;
  }
  return workerCapacity(engine, samples);
}

/**
 * A scheduling choice the open model stores in `extra.schedule`: `field` is `asked` or `other`
 * ("normal" unless said), and `<field>Note` says why (when not `asked`, or anything else worth
 * saying). Null when the run says nothing about it (not asked for), or anything else is stored there.
 */
function scheduleChoice(
  extra: unknown,
  field: "scheduling" | "helperThreads" | "loopSlice" | "pacingThread",
  asked: string,
  other = "normal",
): { got: boolean; note: string | null } | null {
  const schedule = (extra as { schedule?: Record<string, unknown> } | null)?.schedule;
  const value = schedule?.[field];
  if (value !== asked && value !== other) return null;
  const note = schedule?.[`${field}Note`];
  return { got: value === asked, note: typeof note === "string" ? note.slice(0, 300) : null };
}

/** `extra.schedule.scheduling` (and why it is not real-time). */
function schedulingOf(extra: unknown): { realtime: boolean; note: string | null } | null {
  const choice = scheduleChoice(extra, "scheduling", "realtime");
  return choice && { realtime: choice.got, note: choice.note };
}

/** `extra.schedule.helperThreads` (and why they were left at normal priority). */
function helperThreadsOf(extra: unknown): { idle: boolean; note: string | null } | null {
  const choice = scheduleChoice(extra, "helperThreads", "idle");
  return choice && { idle: choice.got, note: choice.note };
}

/** `extra.schedule.loopSlice` (and why the loop kept the kernel's default slice). */
function loopSliceOf(extra: unknown): { short: boolean; note: string | null } | null {
  const choice = scheduleChoice(extra, "loopSlice", "short", "default");
  return choice && { short: choice.got, note: choice.note };
}

/** At most this many stalls are shown, the rest summed by the `stall_dropped` metric. */
const MAX_STALLS_SHOWN = 20;

/** `extra.schedule.stalls`: the stored records that are well formed, as numbers. */
function stallsOf(
  extra: unknown,
): { atS: number; gapMs: number; dropped: number; confirmMs: number; shard: number | null }[] {
  const stalls = (extra as { schedule?: { stalls?: unknown } } | null)?.schedule?.stalls;
  if (!Array.isArray(stalls)) return [];
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
  const out: ReturnType<typeof stallsOf> = [];
  for (const s of stalls.slice(0, MAX_STALLS_SHOWN)) {
    const r = (s ?? {}) as Record<string, unknown>;
    const atS = num(r.atS);
    const gapMs = num(r.gapMs);
    const dropped = num(r.dropped);
    if (atS === null || gapMs === null || dropped === null) continue;
    out.push({ atS, gapMs, dropped, confirmMs: num(r.confirmMs) ?? 0, shard: num(r.shard) });
  }
  return out;
}

/** `extra.schedule.pacingThread` (and why the pacing thread kept its normal policy). */
function pacingThreadOf(extra: unknown): { batch: boolean; note: string | null } | null {
  const choice = scheduleChoice(extra, "pacingThread", "batch");
  return choice && { batch: choice.got, note: choice.note };
}
