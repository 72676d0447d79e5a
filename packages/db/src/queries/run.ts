import { randomBytes } from "node:crypto";
import {
  achievedRate,
  derivedContext,
  evaluateThresholds,
  metricDef,
  parseLiveProgress,
  resolveOrgCaps,
  runLabel,
  runReading,
  runTitle,
  saturationHeadline,
  sweepValueLabel,
  type ThresholdVerdict,
  type TLiveProgress,
  type TRunResultData,
  type TThreshold,
  withDerivedMetrics,
  ZThreshold,
} from "@benchboard/core";
import { z } from "zod";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { Prisma, type RunStatus } from "../generated/prisma/client";
import { agentLabelPresence, agentWaitMessage } from "./agent";
import { LOCAL_ORG_SLUG } from "./org";
import { numericMetrics } from "./run-facts";
import { agentNameOf, runPlacement } from "./run-placement";

const ZThresholdList = z.array(ZThreshold).catch([]);

/**
 * Launch keys are stored with a prefix an upload's key cannot have (keys are visible ASCII, no
 * spaces), so a launch never answers with an uploaded run or the other way round.
 */
export const launchKey = (key: string) => `launch ${key}`;

/** The runs of an earlier launch with this key (its group in order), or null. */
export async function findLaunchByIdempotencyKey(db: Db, orgId: string, idempotencyKey: string) {
  const first = await db.run.findUnique({
    where: { orgId_idempotencyKey: { orgId, idempotencyKey: launchKey(idempotencyKey) } },
    select: { id: true, groupId: true },
  });
  if (!first) return null;
  if (!first.groupId) return { runId: first.id, groupRunIds: [first.id] };
  const group = await db.run.findMany({
    where: { orgId, groupId: first.groupId },
    orderBy: { groupIndex: "asc" },
    select: { id: true },
  });
  return { runId: first.id, groupRunIds: group.map((r) => r.id) };
}

/** Runs queued or running, counting a group of repetitions (which runs back to back) once. */
export async function countActiveRunChains(db: Db | Prisma.TransactionClient, orgId: string): Promise<number> {
  const rows = await db.$queryRaw<{ n: bigint }[]>`
    SELECT count(DISTINCT coalesce("groupId", id)) AS n FROM "Run"
    WHERE "orgId" = ${orgId} AND status IN ('queued', 'running')`;
  return Number(rows[0]?.n ?? 0);
}

/**
 * What the organization holds now: runs queued or running (a group of repetitions or a sweep,
 * which runs back to back, once) and the worker slots they take (one per shard).
 */
export async function countActiveLoad(
  db: Db | Prisma.TransactionClient,
  orgId: string,
): Promise<{ runs: number; workerSlots: number }> {
  const rows = await db.$queryRaw<{ runs: bigint; slots: bigint | null }[]>`
    SELECT count(*) AS runs, sum(shards) AS slots FROM (
      SELECT coalesce("groupId", id) AS chain, max("shardCount") AS shards FROM "Run"
      WHERE "orgId" = ${orgId} AND status IN ('queued', 'running')
      GROUP BY 1
    ) chains`;
  return { runs: Number(rows[0]?.runs ?? 0), workerSlots: Number(rows[0]?.slots ?? 0) };
}

/**
 * A run with its result and project, and how many runs its group (repetitions, sweep values) has;
 * the ids of the workers that ran it only for the install's own organization.
 */
export async function getRun(db: Db, orgId: string, id: string) {
  const run = await db.run.findFirst({
    where: { orgId, id },
    include: {
      result: true,
      project: { select: { id: true, name: true, slug: true } },
      org: { select: { slug: true } },
      sweep: { select: { parameter: true, values: true, repetitions: true } },
    },
  });
  if (!run) return null;
  const { org, sweep, ...rest } = run;
  const groupSize = run.groupId ? await db.run.count({ where: { orgId, groupId: run.groupId } }) : 1;
  const title = runTitle({ ...run, sweep, groupSize });
  // A queued agent run says which agents it waits for and whether any is online.
  const presence =
    run.status === "queued" && run.agentLabel ? await agentLabelPresence(db, orgId, run.agentLabel) : null;
  const waitingFor = presence
    ? {
        agentLabel: presence.agentLabel,
        agentsOnline: presence.agentsOnline,
        lastSeenAt: presence.lastSeenAt?.toISOString() ?? null,
        message: agentWaitMessage(presence),
      }
    : null;
  // Only launched runs went anywhere; uploads, imports and client-driven runs ran elsewhere.
  const placement = run.source === "launched" ? await runPlacement(db, run, org.slug === LOCAL_ORG_SLUG) : null;
  return {
    ...rest,
    workerIds: org.slug === LOCAL_ORG_SLUG ? rest.workerIds : [],
    groupSize,
    title,
    waitingFor,
    placement,
  };
}

export const RUN_LIST_SORTS = ["newest", "oldest", "rps", "p99", "metric"] as const;
export type RunListSort = (typeof RUN_LIST_SORTS)[number];

/** Runs whose metric lies within [min, max] (either end optional); runs without it are left out. */
export interface RunMetricFilter {
  key: string;
  min?: number;
  max?: number;
}

export interface ListRunsParams {
  projectId?: string;
  targetId?: string;
  scenarioId?: string;
  instanceConfigId?: string;
  status?: RunStatus | RunStatus[];
  branch?: string;
  tag?: string;
  /** Created at or after. */
  from?: Date;
  /** Created before. */
  to?: Date;
  /** Case-insensitive substring of the scenario name, the notes or a tag. */
  search?: string;
  /**
   * newest / oldest by creation; rps highest first; p99 lowest first; `metric` by `sortMetric`
   * in `order` (by default the metric's better end first). Runs without the metric come last.
   */
  sort?: RunListSort;
  sortMetric?: string;
  order?: "asc" | "desc";
  metrics?: RunMetricFilter[];
  limit?: number;
  cursor?: string;
}

/** Position after the last row of a page: the sort value and the id that breaks ties. */
// Only what encodeCursor writes: a creation time, a finite metric value or null, and a row id —
// anything else (`"1e999"`, NUL) would reach SQL as a value it cannot take.
const ZRunCursor = z.object({
  v: z.union([z.iso.datetime(), z.number().finite(), z.null()]),
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
});

function encodeCursor(v: string | number | null, id: string): string {
  return Buffer.from(JSON.stringify({ v, id })).toString("base64url");
}

function decodeCursor(cursor: string) {
  try {
    return ZRunCursor.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw new ConflictError("cursor", "this page link is no longer valid; start from the first page");
  }
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The metric a sort reads and which end comes first. */
function metricSort(params: ListRunsParams): { key: string; descending: boolean } | null {
  const sort = params.sort ?? "newest";
  if (sort === "rps") return { key: "rps", descending: true };
  if (sort === "p99") return { key: "latency_p99", descending: false };
  if (sort !== "metric") return null;
  const key = params.sortMetric?.trim();
  if (!key) throw new ConflictError("sortMetric", "name the metric to sort by");
  const descending = params.order ? params.order === "desc" : metricDef(key).direction === "higher";
  return { key, descending };
}

/**
 * One page's query without parallel workers: a page stops after a few dozen index entries, and
 * starting workers costs more than it saves (at a million runs a metric-sorted page took 33 ms
 * with two workers and 6 ms without).
 */
async function serialPage(db: Db, query: Prisma.Sql) {
  const [, rows] = await db.$transaction([
    db.$executeRaw`SET LOCAL max_parallel_workers_per_gather = 0`,
    db.$queryRaw<{ id: string; v: Date | number | null }[]>(query),
  ]);
  return rows;
}

/**
 * A page of runs, filtered and sorted, with keyset pagination: each page continues after the
 * previous page's last (sort value, id), so page 100 costs what page 1 does.
 *
 * Metric sorts and filters read `RunMetric` (one indexed row per run and metric) instead of each
 * result's JSON: a metric-sorted page walks the (orgId, key, value) index from the cursor and
 * stops after a page of matching runs. Runs without the metric follow, newest id first.
 */
export async function listRuns(db: Db, orgId: string, params: ListRunsParams = {}) {
  const limit = Math.min(Math.max(params.limit ?? 50, 1), 200);
  const sort: RunListSort = params.sort ?? "newest";
  const where: Prisma.Sql[] = [Prisma.sql`r."orgId" = ${orgId}`];
  if (params.projectId) where.push(Prisma.sql`r."projectId" = ${params.projectId}`);
  if (params.targetId) where.push(Prisma.sql`r."targetId" = ${params.targetId}`);
  if (params.scenarioId) where.push(Prisma.sql`r."scenarioId" = ${params.scenarioId}`);
  if (params.instanceConfigId) where.push(Prisma.sql`r."instanceConfigId" = ${params.instanceConfigId}`);
  const statuses = params.status === undefined ? [] : [params.status].flat();
  // Compared as the enum (not as text), so the planner knows how many runs each status has.
  if (statuses.length > 0) where.push(Prisma.sql`r.status = ANY (${statuses}::"RunStatus"[])`);
  if (params.branch) where.push(Prisma.sql`r.branch = ${params.branch}`);
  if (params.tag) where.push(Prisma.sql`r.tags @> ARRAY[${params.tag}]::text[]`);
  if (params.from) where.push(Prisma.sql`r."createdAt" >= ${params.from.toISOString()}::timestamp`);
  if (params.to) where.push(Prisma.sql`r."createdAt" < ${params.to.toISOString()}::timestamp`);
  const search = params.search?.trim();
  if (search) {
    const like = `%${escapeLike(search)}%`;
    where.push(
      Prisma.sql`(r."scenarioName" ILIKE ${like} OR r.notes ILIKE ${like} OR array_to_string(r.tags, ' ') ILIKE ${like})`,
    );
  }
  const byMetric = metricSort(params);
  const dateDriver = byMetric ? undefined : params.metrics?.[0];
  (params.metrics ?? []).forEach((f, i) => {
    if (f.min !== undefined && f.max !== undefined && f.min > f.max) {
      throw new ConflictError(`metrics.${i}.max`, `the upper bound ${f.max} is below the lower bound ${f.min}`);
    }
    // A filter on the sorted metric bounds the index walk itself (below), and so does the first
    // metric filter under a date sort.
    if (byMetric ? f.key === byMetric.key : f === dateDriver) return;
    const bounds = [
      f.min !== undefined ? Prisma.sql` AND f.value >= ${f.min}` : Prisma.empty,
      f.max !== undefined ? Prisma.sql` AND f.value <= ${f.max}` : Prisma.empty,
    ];
    where.push(
      Prisma.sql`EXISTS (SELECT 1 FROM "RunMetric" f WHERE f."runId" = r.id AND f.key = ${f.key}${Prisma.join(bounds, "")})`,
    );
  });
  const after = params.cursor ? decodeCursor(params.cursor) : null;
  // A cursor's value is a time for the date sorts and a finite number (or null) for metric sorts.
  const badCursor = () => new ConflictError("cursor", "this page link is no longer valid; start from the first page");
  if (after && !byMetric && (typeof after.v !== "string" || Number.isNaN(Date.parse(after.v)))) throw badCursor();
  if (after && byMetric && after.v !== null && !Number.isFinite(Number(after.v))) throw badCursor();
  const take = limit + 1;

  let page: { id: string; v: Date | number | null }[];
  if (!byMetric) {
    // With a metric filter the page walks that metric's rows in creation order, checking each
    // value in the index, instead of walking the runs and probing each one's metric: a range that
    // one run in a hundred meets costs a hundred index entries per run shown, not a hundred
    // lookups. The run's creation time is copied into its metric rows for this.
    const [created, id] = dateDriver
      ? [Prisma.raw(`d."runCreatedAt"`), Prisma.raw(`d."runId"`)]
      : [Prisma.raw(`r."createdAt"`), Prisma.raw("r.id")];
    if (after) {
      const op = Prisma.raw(sort === "oldest" ? ">" : "<");
      const at = Prisma.sql`${String(after.v)}::timestamp`;
      where.push(Prisma.sql`(${created} ${op} ${at} OR (${created} = ${at} AND ${id} ${op} ${after.id}))`);
    }
    const order = sort === "oldest" ? Prisma.sql`${created} ASC, ${id} ASC` : Prisma.sql`${created} DESC, ${id} DESC`;
    if (dateDriver) {
      where.push(Prisma.sql`d."orgId" = ${orgId}`, Prisma.sql`d.key = ${dateDriver.key}`);
      if (dateDriver.min !== undefined) where.push(Prisma.sql`d.value >= ${dateDriver.min}`);
      if (dateDriver.max !== undefined) where.push(Prisma.sql`d.value <= ${dateDriver.max}`);
    }
    page = await serialPage(
      db,
      Prisma.sql`
      SELECT r.id, r."createdAt" AS v FROM "Run" r
      ${dateDriver ? Prisma.sql`JOIN "RunMetric" d ON d."runId" = r.id` : Prisma.empty}
      WHERE ${Prisma.join(where, " AND ")}
      ORDER BY ${order}
      LIMIT ${take}`,
    );
  } else {
    const { key, descending } = byMetric;
    const sortedFilters = (params.metrics ?? []).filter((f) => f.key === key);
    const valued: Prisma.Sql[] = [...where, Prisma.sql`m."orgId" = ${orgId}`, Prisma.sql`m.key = ${key}`];
    for (const f of sortedFilters) {
      if (f.min !== undefined) valued.push(Prisma.sql`m.value >= ${f.min}`);
      if (f.max !== undefined) valued.push(Prisma.sql`m.value <= ${f.max}`);
    }
    if (after && after.v !== null) {
      const v = Number(after.v);
      // Ties on the value continue by id (newest id first), as the ORDER BY below.
      valued.push(
        descending
          ? Prisma.sql`(m.value < ${v} OR (m.value = ${v} AND m."runId" < ${after.id}))`
          : Prisma.sql`(m.value > ${v} OR (m.value = ${v} AND m."runId" < ${after.id}))`,
      );
      // The value itself bounds the index walk.
      valued.push(descending ? Prisma.sql`m.value <= ${v}` : Prisma.sql`m.value >= ${v}`);
    }
    const valueOrder = descending ? Prisma.sql`m.value DESC, m."runId" DESC` : Prisma.sql`m.value ASC, m."runId" DESC`;
    // Runs without the metric come after every run with it; a filter on the sorted metric
    // leaves them out altogether.
    const missing: Prisma.Sql[] = [
      ...where,
      Prisma.sql`NOT EXISTS (SELECT 1 FROM "RunMetric" x WHERE x."runId" = r.id AND x.key = ${key})`,
    ];
    if (after && after.v === null) missing.push(Prisma.sql`r.id < ${after.id}`);
    page =
      after && after.v === null
        ? []
        : await serialPage(
            db,
            Prisma.sql`
              SELECT r.id, m.value AS v FROM "RunMetric" m JOIN "Run" r ON r.id = m."runId"
              WHERE ${Prisma.join(valued, " AND ")}
              ORDER BY ${valueOrder}
              LIMIT ${take}`,
          );
    // Only the page where the runs with the metric run out reads the runs without it.
    if (page.length < take && sortedFilters.length === 0) {
      const rest = await db.$queryRaw<{ id: string; v: null }[]>`
        SELECT r.id, NULL::float8 AS v FROM "Run" r
        WHERE ${Prisma.join(missing, " AND ")}
        ORDER BY r.id DESC
        LIMIT ${take - page.length}`;
      page = [...page, ...rest];
    }
  }

  const hasMore = page.length > limit;
  const ids = page.slice(0, limit).map((p) => p.id);
  const rows = await db.run.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      number: true,
      status: true,
      source: true,
      scenarioName: true,
      projectId: true,
      targetId: true,
      scenarioId: true,
      instanceConfigId: true,
      groupId: true,
      groupIndex: true,
      tags: true,
      notes: true,
      branch: true,
      commit: true,
      excluded: true,
      error: true,
      createdAt: true,
      startedAt: true,
      endedAt: true,
      progress: true,
      project: { select: { name: true } },
      target: { select: { name: true } },
      instanceConfig: { select: { name: true } },
      result: { select: { metrics: true, valid: true, saturationReasons: true } },
      scenarioSnapshot: true,
      configSnapshot: true,
      sweepValue: true,
      sweep: { select: { parameter: true, values: true, repetitions: true } },
    },
  });
  // Repetitions launched without a sweep: how many each group has, for "repetition 2 of 3".
  const plainGroups = [...new Set(rows.flatMap((r) => (r.groupId && !r.sweep ? [r.groupId] : [])))];
  const groupSizes = new Map(
    plainGroups.length
      ? (
          await db.run.groupBy({ by: ["groupId"], where: { groupId: { in: plainGroups } }, _count: { _all: true } })
        ).map((g) => [g.groupId, g._count._all])
      : [],
  );
  // Labels from what each run really ran; the snapshots themselves stay out of the list.
  const byId = new Map(
    rows.map(({ scenarioSnapshot, configSnapshot, sweepValue, sweep, result, ...r }) => {
      // Derived figures too: a chat run's rate is its messages over its runtime.
      const metrics = withDerivedMetrics(
        numericMetrics(result?.metrics),
        derivedContext(configSnapshot, scenarioSnapshot),
      );
      return [
        r.id,
        {
          ...r,
          result: result && {
            ...result,
            metrics,
            /** The achieved rate the list shows: req/s, else messages/s; null when neither was measured. */
            rate: achievedRate(metrics),
            /** valid, saturated (the target was the limit) or invalid (the generator distorted it). */
            reading: runReading(result),
            saturation: runReading(result) === "saturated" ? saturationHeadline(numericMetrics(result.metrics)) : null,
          },
          label: runLabel({ scenarioSnapshot, configSnapshot }) ?? null,
          sweepLabel: sweepValueLabel(sweep?.parameter, sweepValue) ?? null,
          /** "Run #24 · 400 req/s · 20 s · rate = 400 (value 3 of 4)": the one title of a run. */
          title: runTitle({
            number: r.number,
            scenarioName: r.scenarioName,
            scenarioSnapshot,
            configSnapshot,
            sweep,
            sweepValue,
            groupIndex: r.groupIndex,
            groupSize: r.groupId ? (groupSizes.get(r.groupId) ?? null) : null,
          }),
        },
      ] as const;
    }),
  );
  const items = ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [row] : [];
  });
  const last = page[limit - 1];
  const nextCursor =
    hasMore && last ? encodeCursor(last.v instanceof Date ? last.v.toISOString() : last.v, last.id) : undefined;
  return { items, nextCursor };
}

// ---- worker-side transitions (by run id: the worker is trusted and carries no org) ----

/** Move a queued run to running; returns null if it is no longer queued (e.g. canceled). */
/**
 * Who takes a run: an install worker (the default) takes only runs meant for the install's
 * workers; an agent only its own organization's runs for a label it offers.
 */
export interface ClaimScope {
  agent?: { orgId: string; labels: string[] } | null;
}

export function claimableWhere(scope: ClaimScope): Prisma.RunWhereInput {
  return scope.agent ? { orgId: scope.agent.orgId, agentLabel: { in: scope.agent.labels } } : { agentLabel: null };
}

export async function claimRun(db: Db, runId: string, workerId: string, scope: ClaimScope = {}) {
  const now = new Date();
  const { count } = await db.run.updateMany({
    where: { id: runId, status: "queued", ...claimableWhere(scope) },
    data: { status: "running", startedAt: now, heartbeatAt: now, workerIds: { push: workerId } },
  });
  if (count === 0) return null;
  return db.run.findUniqueOrThrow({ where: { id: runId }, include: { target: true } });
}

export async function recordProgress(db: Db, runId: string, progress: TLiveProgress) {
  await db.run.updateMany({
    where: { id: runId, status: "running" },
    data: { progress: progress as unknown as Prisma.InputJsonValue, heartbeatAt: new Date() },
  });
}

/**
 * Whether a worker may go on sending a run's load (or one shard's): the run is still running, no
 * cancel was asked for, and the shard, if any, is still running too. A run the watchdog ended
 * while its worker was frozen is no longer running, whatever the worker still believes.
 */
/** Whether the run (with `shard`, that shard of it) still runs: a final report is taken only then, once. */
export async function stillRunning(db: Db, runId: string, shard: number | null = null): Promise<boolean> {
  if (shard === null) return (await db.run.count({ where: { id: runId, status: "running" } })) > 0;
  return (await db.runShard.count({ where: { runId, index: shard, status: "running" } })) > 0;
}

export async function mayKeepSending(db: Db, runId: string, shard: number | null = null): Promise<boolean> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { cancelRequested: true, status: true } });
  if (!run || run.cancelRequested || run.status !== "running") return false;
  if (shard === null) return true;
  const row = await db.runShard.findUnique({
    where: { runId_index: { runId, index: shard } },
    select: { status: true },
  });
  return row?.status === "running";
}

/** Thresholds that apply to a run: its project's and its scenario snapshot's. */
export async function thresholdsForRun(db: Db | Prisma.TransactionClient, runId: string) {
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

/** A run's metrics with the derived ones (req/s per vCPU, overhead, …) that targets may name. */
export async function withRunDerivedMetrics(
  db: Db | Prisma.TransactionClient,
  runId: string,
  metrics: Record<string, number>,
): Promise<Record<string, number>> {
  const run = await db.run.findUniqueOrThrow({
    where: { id: runId },
    select: { configSnapshot: true, scenarioSnapshot: true },
  });
  return withDerivedMetrics(metrics, derivedContext(run.configSnapshot, run.scenarioSnapshot));
}

export interface RunOutcome {
  status: Extract<RunStatus, "succeeded" | "failed" | "canceled">;
  error?: string | null;
  result?: TRunResultData | null;
  /** When the run ended; now unless the result says otherwise (an uploaded run's own end). */
  endedAt?: Date | null;
}

/**
 * A result's writes: a run of the longest duration stores up to 100 series of ~3,900 points,
 * each reduced to its rollup by a trigger as it is inserted (about a second of PostgreSQL's time
 * for all of them, several on a busy host), past the interactive transaction's default 5 s.
 */
const RESULT_TRANSACTION = { maxWait: 10_000, timeout: 30_000 };

/**
 * Store a result and end the run in one transaction. `status` is succeeded, canceled or failed
 * (failed keeps the partial result with the reason). Only a run still queued or running ends:
 * a run already ended (by the watchdog, a cancel, another delivery of its job) keeps its one
 * end and its result, and this returns false.
 */
export async function finishRun(db: Db, runId: string, outcome: RunOutcome): Promise<boolean> {
  const verdicts: ThresholdVerdict[] = outcome.result
    ? evaluateThresholds(
        await withRunDerivedMetrics(db, runId, outcome.result.metrics),
        await thresholdsForRun(db, runId),
      )
    : [];
  return db.$transaction(async (tx) => {
    // The row lock taken here orders two enders: the second sees the run ended.
    const live = await tx.run.updateMany({
      where: { id: runId, status: { in: ["queued", "running"] } },
      data: { heartbeatAt: new Date() },
    });
    if (live.count === 0) return false;
    await writeRunOutcome(tx, runId, outcome, verdicts);
    return true;
  }, RESULT_TRANSACTION);
}

/**
 * The writes of finishRun inside a caller's transaction, for runs created and ended at once
 * (uploads). The tool's own threshold verdicts are kept in `extra.toolThresholds`.
 */
export async function writeRunOutcome(
  tx: Prisma.TransactionClient,
  runId: string,
  outcome: RunOutcome,
  verdicts: ThresholdVerdict[],
) {
  if (outcome.result) await writeResult(tx, runId, outcome.result, verdicts);
  const now = new Date();
  await tx.run.update({
    where: { id: runId },
    data: { status: outcome.status, error: outcome.error ?? null, endedAt: outcome.endedAt ?? now, heartbeatAt: now },
  });
}

/** Store (or replace) a run's result and its series. */
async function writeResult(
  tx: Prisma.TransactionClient,
  runId: string,
  result: TRunResultData,
  verdicts: ThresholdVerdict[],
) {
  const extra = result.toolThresholds?.length
    ? { ...result.extra, toolThresholds: result.toolThresholds }
    : result.extra;
  const data = {
    metrics: result.metrics,
    histogram: result.histogram ?? null,
    statusCounts: result.statusCounts,
    errors: result.errors as unknown as Prisma.InputJsonValue,
    stages: result.stages as unknown as Prisma.InputJsonValue,
    valid: result.valid,
    invalidReasons: result.invalidReasons,
    saturationReasons: result.saturationReasons ?? [],
    thresholdResults: verdicts as unknown as Prisma.InputJsonValue,
    extra: (extra as Prisma.InputJsonValue | undefined) ?? undefined,
  };
  await tx.runResult.upsert({ where: { runId }, create: { runId, ...data }, update: data });
  await tx.series.deleteMany({ where: { runId } });
  const series = Object.entries(result.series);
  if (series.length) {
    // One JSON text that PostgreSQL expands into rows. Prisma's createMany walks every sample on
    // the thread that answers requests: for a long run's 100 series of 3,900 points that held it
    // 0.4–0.8 s, against ~40 ms for this (bench/agent-checkpoint-route.ts).
    const rows = JSON.stringify(
      series.map(([metric, s]) => ({
        id: `c${randomBytes(12).toString("hex")}`,
        metric,
        start: s.start,
        intervalMs: s.intervalMs,
        values: s.values,
      })),
    );
    await tx.$executeRaw`
      INSERT INTO "Series" ("id", "runId", "metric", "start", "intervalMs", "values")
      SELECT e->>'id', ${runId}, e->>'metric',
        to_timestamp(floor((e->>'start')::float8) / 1000) AT TIME ZONE 'UTC',
        round((e->>'intervalMs')::numeric)::int, e->'values'
      FROM jsonb_array_elements(${rows}::jsonb) AS e`;
  }
}

/**
 * Store the result so far of a running run. If its worker dies, the watchdog ends the run and
 * this partial result (flagged invalid, with the reason) is what stays.
 */
export async function checkpointRun(db: Db, runId: string, partial: TRunResultData): Promise<boolean> {
  return db.$transaction(async (tx) => {
    // Locked as finishRun locks it: a checkpoint that reads "running" holds the row until its
    // result is written, so a final result stored meanwhile is never overwritten by a partial one.
    const [run] = await tx.$queryRaw<{ status: string }[]>`SELECT status FROM "Run" WHERE id = ${runId} FOR UPDATE`;
    if (run?.status !== "running") return false;
    await writeResult(tx, runId, partial, []);
    return true;
  }, RESULT_TRANSACTION);
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

/** A running run whose worker has not written a heartbeat for this long is considered lost. */
export const RUN_HEARTBEAT_TIMEOUT_MS = 20_000;

/**
 * End runs whose worker stopped heartbeating (killed, host lost, Redis gone for good): they end
 * `failed` with the reason, keeping whatever result was checkpointed. Safe to call from any
 * process at any time (conditional updates), so workers and the web app both call it.
 */
export async function failStaleRuns(db: Db, now = new Date(), timeoutMs = RUN_HEARTBEAT_TIMEOUT_MS): Promise<string[]> {
  const cutoff = new Date(now.getTime() - timeoutMs);
  const stale = await db.run.findMany({
    where: {
      status: "running",
      OR: [{ heartbeatAt: { lt: cutoff } }, { heartbeatAt: null, startedAt: { lt: cutoff } }],
    },
    select: { id: true, workerIds: true, heartbeatAt: true },
  });
  const ended: string[] = [];
  for (const run of stale) {
    const seconds = Math.round((now.getTime() - (run.heartbeatAt?.getTime() ?? cutoff.getTime())) / 1000);
    const { count } = await db.run.updateMany({
      where: { id: run.id, status: "running", heartbeatAt: run.heartbeatAt },
      data: {
        status: "failed",
        endedAt: now,
        // A worker is not named (runs are read by tenants, workers belong to the operator); an
        // agent is the organization's own and is.
        error: `${whoRan(run.workerIds.at(-1) ?? null)} stopped responding (no heartbeat for ${seconds} s); results measured until its last checkpoint are kept`,
      },
    });
    if (count) ended.push(run.id);
  }
  return ended;
}

/** "its worker", or "its agent <name>" for a run (or shard) an agent took. */
export function whoRan(workerId: string | null): string {
  const agent = workerId ? agentNameOf(workerId) : null;
  return agent === null ? "its worker" : `its agent ${agent}`;
}

/** Keep a running run's heartbeat fresh while its worker is alive. */
export async function touchRun(db: Db, runId: string): Promise<void> {
  await db.run.updateMany({ where: { id: runId, status: "running" }, data: { heartbeatAt: new Date() } });
}

/**
 * What bounds a run's load: its organization's caps, and whether it is the install's own
 * organization (whose runs may read local processes).
 */
export async function orgLoadPolicy(db: Db, orgId: string) {
  const org = await db.organization.findUnique({ where: { id: orgId }, select: { caps: true, slug: true } });
  return { caps: resolveOrgCaps(org?.caps), installOrg: org?.slug === LOCAL_ORG_SLUG };
}

/**
 * Keep what the target's config hook reported right before load: the config the run ran on.
 * Only while the run is live: an ended run's record is final.
 */
export async function recordServerConfig(db: Db, runId: string, config: Record<string, unknown> | null): Promise<void> {
  if (!config) return;
  await db.run.updateMany({
    where: { id: runId, status: "running" },
    data: { serverConfig: config as Prisma.InputJsonValue },
  });
}

/** A worker process announcing itself (and its heartbeat). */
export async function upsertWorker(
  db: Db,
  w: { id: string; host: string; pid: number; labels: string[]; capacity: number; activeJobs: number },
): Promise<void> {
  await db.worker.upsert({
    where: { id: w.id },
    create: w,
    update: { heartbeatAt: new Date(), activeJobs: w.activeJobs, pid: w.pid, labels: w.labels },
  });
}

export async function removeWorker(db: Db, id: string): Promise<void> {
  await db.worker.delete({ where: { id } }).catch(() => {});
}

/** Labels offered by workers that announced themselves recently, for the launch form. */
export async function onlineWorkerLabels(
  db: Db,
  onlineWithinMs = 15_000,
): Promise<{ label: string; workers: number }[]> {
  const workers = await db.worker.findMany({
    where: { heartbeatAt: { gt: new Date(Date.now() - onlineWithinMs) } },
    select: { labels: true },
  });
  const counts = new Map<string, number>();
  for (const w of workers) for (const label of new Set(w.labels)) counts.set(label, (counts.get(label) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([label, n]) => ({ label, workers: n }));
}

/**
 * What a run's live view needs once a second: its status and live progress only, never its
 * result (histogram and series stay unread), so watching a run costs one narrow row read.
 */
export async function getRunLive(db: Db, orgId: string, runId: string) {
  return readRunLive(db, { orgId, id: runId });
}

/**
 * The same by id alone, for the web process's shared live feed: the caller checked once, when a
 * viewer connected, that the run is in the viewer's organization.
 */
export async function getRunLiveById(db: Db, runId: string) {
  return readRunLive(db, { id: runId });
}

async function readRunLive(db: Db, where: Prisma.RunWhereInput) {
  const run = await db.run.findFirst({
    where,
    select: {
      id: true,
      status: true,
      progress: true,
      error: true,
      cancelRequested: true,
      startedAt: true,
      endedAt: true,
      result: { select: { runId: true } },
    },
  });
  if (!run) return null;
  const { result, progress, ...live } = run;
  return { ...live, progress: parseLiveProgress(progress), hasResult: result !== null };
}
