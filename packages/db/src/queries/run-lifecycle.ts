import {
  applyLaunchOverrides,
  applyParameter,
  type CapViolation,
  checkLaunchFootprint,
  checkScenarioCaps,
  FindCapacityError,
  hasOverrides,
  judge,
  LaunchOverrideError,
  parseParameterPath,
  planShards,
  resolveOrgCaps,
  ShardPlanError,
  type SweepValue,
  type TErrorEntry,
  type TFindCapacity,
  type TLaunchOverrides,
  type TOrgCaps,
  type TRunResultData,
  type TScenarioSpec,
  toCapacitySearch,
  ZScenarioSpec,
} from "@benchboard/core";
import type { Db } from "../client";
import { ConflictError, isDatabaseUnavailable, NotFoundError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { agentLabelPresence, assertAgentLabelServed, describeAgentPresence } from "./agent";
import { assertAgentLimitsServe } from "./agent-limits";
import { loadNeedsVerification, resolveRunLocation } from "./agent-trust";
import { countActiveLoad, failStaleRuns, findLaunchByIdempotencyKey, finishRun, launchKey } from "./run";
import { failStaleShards, prepareShards, shardsIfAllEnded } from "./shards";
import { publicTargetSelect } from "./target";
import { assertLoadMayReach } from "./verification";

/**
 * A launched run's life, in one place: creation (single runs, repetitions, sweep values and
 * shards through one path with one caps check), dispatch, continuing a group when a run ends,
 * merging a sharded run, and reaping runs and shards whose worker died. Putting a job on the
 * queue is passed in (`dispatch`), so this package never depends on the queue.
 */

export interface DispatchableRun {
  id: string;
  orgId: string;
  shardCount: number;
  workerLabel: string | null;
  agentLabel: string | null;
}

/**
 * Puts a run's job(s) on the queue its labels name (install workers, a worker label, or the
 * organization's agents with a label): one job, or one per shard (the shard rows exist).
 */
export type Dispatch = (run: DispatchableRun) => Promise<void>;

/** A sharded run's stored shard results merged into one (histograms add), or null if none. */
export type MergeShards = (stored: unknown[]) => MergedShardResult | null;
export type MergedShardResult = TRunResultData & { canceled: boolean; errors: TErrorEntry[] };

export interface LifecycleDeps {
  dispatch: Dispatch;
  mergeShards: MergeShards;
  log?: (line: string) => void;
}

export const SWEEP_MAX_VALUES = 20;
export const SWEEP_MAX_RUNS = 60;
/** A worker that wrote no heartbeat for this long is not offered to a launch. */
const WORKER_ONLINE_MS = 15_000;

export interface CreateSweepSpec {
  name: string;
  parameter: string;
  values: SweepValue[];
  metric: string;
}

export interface CreateRunsInput {
  targetId: string;
  scenarioId: string;
  instanceConfigId?: string | null;
  tags?: string[];
  notes?: string;
  createdById?: string | null;
  /** Runs launched back to back (per sweep value); they share a group. */
  repetitions?: number;
  /** Split each run across this many worker processes. */
  shards?: number;
  /** Only workers offering this label take the runs. */
  workerLabel?: string | null;
  /** The organization's agents offering this label run them instead of the install's workers. */
  agentLabel?: string | null;
  /**
   * Queue the runs even when no online agent serves their label (an agent about to start, e.g. a
   * CI job's `--once` agent); otherwise such a launch is refused. They wait at most the queue's
   * give-up time.
   */
  queueWithoutAgent?: boolean;
  /** Launch-time changes to the scenario's rate, concurrency or duration. */
  overrides?: TLaunchOverrides | null;
  /** Run the scenario as a capacity search with this SLO and rate range (an open-model scenario). */
  findCapacity?: TFindCapacity | null;
  /** One run per value (times repetitions), varying one parameter. */
  sweep?: CreateSweepSpec | null;
  /** Kept on the first run: a launch with a key used before in the organization is refused. */
  idempotencyKey?: string | null;
}

export interface CreatedRun extends DispatchableRun {
  number: number;
  status: "queued" | "running" | "succeeded" | "failed" | "canceled";
  sweepValue: Prisma.JsonValue | null;
}

const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;

/**
 * Create the runs of one launch, queued, in one transaction: every reference belongs to the
 * organization and one project; each run's spec (overrides and sweep value applied) is within
 * the organization's caps and splits into the requested shards; the launch takes one
 * concurrent-run slot (a group runs back to back), checked under a per-organization lock.
 */
export async function createRuns(db: Db, orgId: string, input: CreateRunsInput) {
  const repetitions = Math.max(1, Math.floor(input.repetitions ?? 1));
  const shards = Math.max(1, Math.floor(input.shards ?? 1));
  const sweep = input.sweep ?? null;
  const reused = () => new ConflictError("idempotencyKey", "a run was already launched with this key");
  if (input.idempotencyKey && (await findLaunchByIdempotencyKey(db, orgId, input.idempotencyKey))) throw reused();

  let values: (SweepValue | null)[] = [null];
  if (sweep) {
    if (!parseParameterPath(sweep.parameter)) {
      throw new ConflictError(
        "parameter",
        "use knobs.<name>, config.<vcpu|cpuLimit|memoryMb|replicas|instanceType> or scenario.<field>",
      );
    }
    values = [...new Map(sweep.values.map((v) => [JSON.stringify(v), v])).values()];
    if (values.length < 2) throw new ConflictError("values", "give at least two different values");
    if (values.length > SWEEP_MAX_VALUES) throw new ConflictError("values", `at most ${SWEEP_MAX_VALUES} values`);
    if (values.length * repetitions > SWEEP_MAX_RUNS) {
      throw new ConflictError("repetitions", `a sweep launches at most ${SWEEP_MAX_RUNS} runs (values × repetitions)`);
    }
  }
  // Where the runs go (an agent-only target sends them to its agents), then whether anything
  // serves that now; an agent-only target is refused for install workers before that.
  const located = await db.target.findFirst({
    where: { orgId, id: input.targetId },
    select: { name: true, agentLabel: true },
  });
  // (An unknown target is answered "not found" by the transaction below.)
  const wanted = located ? resolveRunLocation(located, input) : null;
  if (wanted?.agentLabel) {
    // A run nobody would take is refused rather than left queued, unless the caller asks to wait.
    if (!input.queueWithoutAgent) {
      await assertAgentLabelServed(db, orgId, wanted.agentLabel, input.agentLabel ? "agentLabel" : "targetId");
    }
  } else if (input.workerLabel) {
    const offering = await db.worker.count({
      where: { labels: { has: input.workerLabel }, heartbeatAt: { gt: new Date(Date.now() - WORKER_ONLINE_MS) } },
    });
    if (!offering) throw new ConflictError("workerLabel", `no online worker offers the label ${input.workerLabel}`);
  }

  return db
    .$transaction(async (tx) => {
      const { target, scenario, config } = await loadLaunchRefs(tx, orgId, input);
      const location = resolveRunLocation(target, input);
      if (sweep && parseParameterPath(sweep.parameter)?.scope === "knobs" && !target.configApplyUrl) {
        throw new ConflictError(
          "parameter",
          `target "${target.name}" has no config-apply URL, so a knob cannot reach it`,
        );
      }
      const org = await tx.organization.findUniqueOrThrow({ where: { id: orgId }, select: { caps: true } });
      const caps = resolveOrgCaps(org.caps);
      const overrides = hasOverrides(input.overrides) ? input.overrides : null;

      const findCapacity = input.findCapacity ?? null;
      const baseSpec = ZScenarioSpec.safeParse(scenario.spec);
      let spec: unknown = scenario.spec;
      if (findCapacity) {
        if (sweep) throw new ConflictError("findCapacity", "a capacity search is one run; launch it without a sweep");
        if (!baseSpec.success) {
          throw new ConflictError("scenarioId", `scenario "${scenario.name}" is not valid; edit it before searching`);
        }
        try {
          spec = toCapacitySearch(baseSpec.data, findCapacity);
        } catch (err) {
          if (err instanceof FindCapacityError) throw new ConflictError(err.field, err.message);
          throw err;
        }
      }
      if (overrides) {
        if (!baseSpec.success) {
          throw new ConflictError(
            "scenarioId",
            `scenario "${scenario.name}" is not valid; edit it before overriding its load`,
          );
        }
        try {
          spec = applyLaunchOverrides(findCapacity ? (spec as TScenarioSpec) : baseSpec.data, overrides);
        } catch (err) {
          if (err instanceof LaunchOverrideError) throw new ConflictError(err.field, err.message);
          throw err;
        }
      }
      const base = {
        config: config ? (json(config) as Record<string, unknown>) : null,
        scenario: json({
          id: scenario.id,
          name: scenario.name,
          engine: findCapacity ? "capacity-search" : scenario.engine,
          spec,
          thresholds: scenario.thresholds,
          ...(overrides ? { overrides } : {}),
          ...(findCapacity ? { findCapacity } : {}),
        }) as Record<string, unknown>,
      };

      // Each value's snapshots, each judged against the caps and the shard count.
      const snapshots = values.map((value, i) => {
        const at = sweep ? `values.${i}` : "scenarioId";
        const what = sweep ? `${sweep.parameter} = ${String(value)}: ` : `scenario "${scenario.name}" `;
        let applied = base;
        if (sweep && value !== null) {
          try {
            applied = applyParameter(base, sweep.parameter, value) as typeof base;
          } catch (err) {
            throw new ConflictError(at, (err as Error).message);
          }
        }
        const parsed = ZScenarioSpec.safeParse(applied.scenario.spec);
        if (!parsed.success) {
          // A varied scenario field must still make a valid spec; other specs fail in the worker.
          if (sweep && parseParameterPath(sweep.parameter)?.scope === "scenario") {
            throw new ConflictError(at, `${what}${parsed.error.issues[0]?.message ?? "invalid"}`);
          }
          if (shards > 1)
            throw new ConflictError("scenarioId", `scenario "${scenario.name}" is not valid; edit it first`);
          return applied;
        }
        const violation = checkScenarioCaps(parsed.data, caps)[0];
        if (violation)
          throw new ConflictError(capField(violation, overrides, at, findCapacity), `${what}${violation.message}`);
        if (shards > 1) {
          try {
            planShards(parsed.data, shards);
          } catch (err) {
            if (err instanceof ShardPlanError) throw new ConflictError("shards", `${sweep ? what : ""}${err.message}`);
            throw err;
          }
        }
        return applied;
      });

      // Only runs some online agent of the label can take (its --max-rate, --max-connections, --engine).
      if (location.agentLabel && !input.queueWithoutAgent) {
        const specs = snapshots.flatMap((snapshot) => {
          const parsed = ZScenarioSpec.safeParse(snapshot.scenario.spec);
          return parsed.success ? [parsed.data] : [];
        });
        const field = input.agentLabel ? "agentLabel" : "targetId";
        await assertAgentLimitsServe(tx, orgId, location.agentLabel, specs, shards, field);
      }

      // A tenant's load reaches only origins it verified (a probe excepted); every run's spec counts.
      for (const [i, snapshot] of snapshots.entries()) {
        const parsed = ZScenarioSpec.safeParse(snapshot.scenario.spec);
        const at = sweep && i > 0 ? `values.${i}` : "targetId";
        if (loadNeedsVerification(location)) {
          await assertLoadMayReach(tx, orgId, target.baseUrl, parsed.success ? parsed.data : null, at, {
            shards,
            runs: values.length * repetitions,
          });
        }
      }

      await takeLaunchSlot(tx, orgId, caps, shards);

      const sweepRow = sweep
        ? await tx.sweep.create({
            data: {
              orgId,
              projectId: target.projectId,
              name: sweep.name,
              scenarioId: scenario.id,
              targetId: target.id,
              instanceConfigId: config?.id ?? null,
              parameter: sweep.parameter,
              values: json(values),
              metric: sweep.metric,
              repetitions,
              status: "running",
              createdById: input.createdById ?? null,
            },
            select: { id: true, name: true },
          })
        : null;
      const total = values.length * repetitions;
      const project = await tx.project.update({
        where: { id: target.projectId },
        data: { runCounter: { increment: total } },
        select: { id: true, runCounter: true },
      });
      const firstNumber = project.runCounter - total + 1;
      const storedKey = input.idempotencyKey ? launchKey(input.idempotencyKey) : null;
      const runs: CreatedRun[] = [];
      let groupId: string | null = null;
      for (let v = 0; v < values.length; v++) {
        const snapshot = snapshots[v]!;
        for (let r = 0; r < repetitions; r++) {
          const index = runs.length;
          const run: CreatedRun = await tx.run.create({
            data: {
              orgId,
              projectId: project.id,
              number: firstNumber + index,
              targetId: target.id,
              scenarioId: scenario.id,
              instanceConfigId: config?.id ?? null,
              sweepId: sweepRow?.id ?? null,
              sweepValue: values[v] !== null ? json(values[v]) : undefined,
              groupId,
              groupIndex: total > 1 ? index : null,
              status: "queued",
              source: "launched",
              targetSnapshot: json(target),
              scenarioSnapshot: json(snapshot.scenario),
              configSnapshot: snapshot.config ? json(snapshot.config) : undefined,
              scenarioName: scenario.name,
              tags: sweep ? ["sweep", ...(input.tags ?? [])] : (input.tags ?? []),
              notes: input.notes ?? "",
              shardCount: shards,
              workerLabel: location.workerLabel,
              agentLabel: location.agentLabel,
              createdById: input.createdById ?? null,
              idempotencyKey: index === 0 ? storedKey : null,
            },
            select: {
              id: true,
              orgId: true,
              number: true,
              status: true,
              shardCount: true,
              workerLabel: true,
              agentLabel: true,
              sweepValue: true,
            },
          });
          // The group is named after its first run, which only has an id once created.
          if (total > 1 && groupId === null) {
            groupId = run.id;
            await tx.run.update({ where: { id: run.id }, data: { groupId } });
          }
          runs.push(run);
        }
      }
      return { runs, sweep: sweepRow };
    })
    .catch((err: unknown) => {
      // Two retries racing past the check above: the database's unique key decides.
      if (input.idempotencyKey && (err as { code?: string }).code === "P2002") throw reused();
      throw err;
    });
}

/** The field a cap violation names: the override that asked for too much, else the scenario. */
function capField(
  violation: CapViolation,
  overrides: TLaunchOverrides | null,
  fallback: string,
  findCapacity: TFindCapacity | null = null,
): string {
  if (findCapacity && violation.cap === "maxRate") return "findCapacity.maxRate";
  if (findCapacity && violation.cap === "maxDurationS") return "findCapacity.plateauS";
  if (overrides?.rate !== undefined && violation.cap === "maxRate") return "rate";
  if (overrides?.concurrency !== undefined && violation.cap === "maxConnections") return "concurrency";
  if (overrides?.durationS !== undefined && violation.cap === "maxDurationS") return "durationS";
  return fallback;
}

async function loadLaunchRefs(tx: Prisma.TransactionClient, orgId: string, input: CreateRunsInput) {
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
  if (config && config.projectId !== target.projectId) {
    throw new NotFoundError("instanceConfigId", "instance config belongs to another project than the target");
  }
  return { target, scenario, config };
}

/**
 * Serialize launches per organization so two at once cannot both take the last slot. A launch is
 * one run at a time (a group runs back to back) and holds one worker slot per shard.
 */
async function takeLaunchSlot(
  tx: Prisma.TransactionClient,
  orgId: string,
  caps: Pick<TOrgCaps, "maxConcurrentRuns" | "maxWorkerSlots">,
  shards: number,
) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`launch:${orgId}`}))`;
  const violation = checkLaunchFootprint(await countActiveLoad(tx, orgId), { shards }, caps);
  if (violation) throw new ConflictError(violation.specField, violation.message);
}

/**
 * Create and start a launch: its runs are stored `queued` (PostgreSQL holds the intent) and the
 * first is put on the queue (a group's others follow as each ends). A queue that cannot take it
 * now loses nothing: the run stays `queued` with no `dispatchedAt`, and the watchdog dispatches
 * it once the queue answers (see reapStaleRuns). Only a launch that could not be stored fails.
 */
export async function launchRuns(db: Db, orgId: string, input: CreateRunsInput, dispatch: Dispatch, log?: Logger) {
  const created = await createRuns(db, orgId, input);
  const first = created.runs[0]!;
  try {
    await dispatchQueuedRun(db, first, dispatch);
  } catch (err) {
    log?.(`run ${first.id} stays queued until the job queue answers: ${describe(err)}`);
  }
  return created;
}

type Logger = (line: string) => void;

async function dispatchQueuedRun(db: Db, run: DispatchableRun, dispatch: Dispatch): Promise<void> {
  await prepareShards(db, run.id, run.shardCount);
  await dispatch(run);
  await db.run.updateMany({
    where: { id: run.id, status: "queued", dispatchedAt: null },
    data: { dispatchedAt: new Date() },
  });
}

async function failQueued(db: Db, where: Prisma.RunWhereInput, reason: string): Promise<number> {
  const { count } = await db.run.updateMany({
    where: { ...where, status: "queued" },
    data: { status: "failed", error: reason, endedAt: new Date() },
  });
  return count;
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * A run of a group has ended (or was skipped): put the group's next queued run on the queue.
 * If the queue cannot take it, it stays queued (undispatched) for the watchdog. Returns the id
 * of the run started, if any. Safe to call twice: a run already dispatched is not dispatched again.
 */
export async function continueGroup(db: Db, runId: string, deps: Pick<LifecycleDeps, "dispatch" | "log">) {
  const run = await db.run.findUnique({ where: { id: runId }, select: { groupId: true, status: true } });
  // Only an ended run hands over: a duplicate delivery of a running run's job must not start another.
  if (!run?.groupId || run.status === "queued" || run.status === "running") return null;
  return continueGroupById(db, run.groupId, deps);
}

async function continueGroupById(db: Db, groupId: string, deps: Pick<LifecycleDeps, "dispatch" | "log">) {
  const next = await nextOfGroup(db, groupId);
  if (!next) return null;
  try {
    await dispatchQueuedRun(db, next, deps.dispatch);
    deps.log?.(`run ${next.id} queued (next of its group)`);
    return next.id;
  } catch (err) {
    deps.log?.(`run ${next.id} stays queued until the job queue answers: ${describe(err)}`);
    return null;
  }
}

/** The group's next run to start, or null while one of its runs is live or dispatched. */
async function nextOfGroup(db: Db, groupId: string) {
  // One run of a group at a time: another live or dispatched run means the group is moving.
  const moving = await db.run.count({
    where: { groupId, OR: [{ status: "running" }, { status: "queued", dispatchedAt: { not: null } }] },
  });
  if (moving) return null;
  return db.run.findFirst({
    where: { groupId, status: "queued" },
    orderBy: { groupIndex: "asc" },
    select: { id: true, orgId: true, shardCount: true, workerLabel: true, agentLabel: true },
  });
}

/**
 * When every shard of a run has ended, merge their results exactly and end the run: a failed
 * shard fails the run, keeping the merged result of the others. Idempotent: only a run still
 * live is ended, so two processes finishing together agree. The group then continues.
 */
export async function finalizeShardedRun(db: Db, runId: string, deps: LifecycleDeps): Promise<void> {
  const shards = await shardsIfAllEnded(db, runId);
  if (!shards) return;
  const run = await db.run.findUnique({ where: { id: runId }, select: { status: true } });
  if (run?.status !== "running" && run?.status !== "queued") return;
  const merged = deps.mergeShards(shards.map((s) => s.result));
  const failed = shards.filter((s) => s.status === "failed");
  let outcome: { status: "succeeded" | "failed" | "canceled"; error: string | null };
  if (failed.length) {
    outcome = {
      status: "failed",
      error: `${failed.length} of ${shards.length} shards failed: ${failed[0]?.error ?? "unknown"}${merged ? "; what the shards measured (a failed one's until its last checkpoint) is kept" : ""}`,
    };
  } else if (!merged) {
    outcome = { status: "canceled", error: "canceled before any shard measured anything" };
  } else {
    outcome = judge(merged);
    // A shard ended by its worker's shutdown says why, not "canceled by request".
    const stopped = shards.find((s) => s.status === "canceled" && s.error);
    if (outcome.status === "canceled" && stopped?.error) outcome = { status: "canceled", error: stopped.error };
  }
  const { canceled: _c, ...result } = merged ?? { canceled: false };
  await finishRun(db, runId, { ...outcome, result: merged ? (result as TRunResultData) : null });
  deps.log?.(
    `run ${runId} ${outcome.status} (${shards.length} shards merged)${outcome.error ? `: ${outcome.error}` : ""}`,
  );
  await continueGroup(db, runId, deps);
}

export interface ReapOptions extends LifecycleDeps {
  /** A run or shard whose worker wrote no heartbeat for this long is ended. */
  staleAfterMs: number;
  /** A run that could not be put on the queue for this long ends `failed` (default 15 min). */
  queueGiveUpMs?: number;
  /** A dispatched run still waiting after this long has its job put on the queue again (default 10 s). */
  redispatchAfterMs?: number;
  /**
   * Leave running runs alone this pass: PostgreSQL was just unreachable, so a missing heartbeat
   * says nothing about the worker (it could not write either).
   */
  skipStale?: boolean;
  now?: Date;
}

export const DEFAULT_QUEUE_GIVE_UP_MS = 15 * 60_000;
const DEFAULT_REDISPATCH_AFTER_MS = 10_000;
/** A launch dispatches its own first run; the watchdog leaves it this long to do so. */
const LAUNCH_GRACE_MS = 2_000;
/** Re-dispatches per watchdog pass, so a long backlog never makes one pass slow. */
const REDISPATCH_BATCH = 100;

/**
 * End what died with its worker and keep every launch moving. PostgreSQL holds what should run;
 * the queue in Redis is only a cache of that intent, so each pass:
 * - fails stale shards (their run merges when its last shard ended) and stale runs (keeping
 *   their last checkpoint), and continues their groups;
 * - dispatches every run that should be on the queue but never got there (the queue did not
 *   answer at launch, or when the previous run of its group ended);
 * - puts dispatched runs still waiting back on the queue: job ids come from the run, so a job
 *   that is still there is not doubled, and one lost with a Redis that restarted empty is
 *   re-created;
 * - fails runs that could not be queued for `queueGiveUpMs`, with that reason, and agent runs no
 *   agent took for as long after they were put on their label's queue, naming the label;
 * Safe from any number of processes at once (conditional updates, deterministic job ids), so
 * workers and the web app all call it.
 */
export async function reapStaleRuns(db: Db, options: ReapOptions) {
  const now = options.now ?? new Date();
  const shardRuns = options.skipStale ? [] : await failStaleShards(db, options.staleAfterMs, now);
  for (const runId of shardRuns) await finalizeShardedRun(db, runId, options);
  const ended = options.skipStale ? [] : await failStaleRuns(db, now, options.staleAfterMs);
  if (ended.length) options.log?.(`ended ${ended.length} run(s) whose worker stopped responding`);
  for (const runId of ended) await continueGroup(db, runId, options);

  const gaveUp = await failUnqueuable(db, now, options.queueGiveUpMs ?? DEFAULT_QUEUE_GIVE_UP_MS);
  if (gaveUp.length) options.log?.(`gave up on ${gaveUp.length} run(s) the job queue never took`);
  const unclaimed = await failUnclaimed(db, now, options.queueGiveUpMs ?? DEFAULT_QUEUE_GIVE_UP_MS);
  if (unclaimed.length) options.log?.(`gave up on ${unclaimed.length} run(s) no agent took`);

  // Runs that should be on the queue and never got there: single runs and the head of each
  // group with nothing live or dispatched.
  const graceCutoff = new Date(now.getTime() - LAUNCH_GRACE_MS);
  const undispatched = await db.$queryRaw<{ id: string; groupId: string | null }[]>`
    SELECT DISTINCT ON (COALESCE(q."groupId", q.id)) q.id, q."groupId" FROM "Run" q
    WHERE q.status = 'queued' AND q."dispatchedAt" IS NULL AND q."queuedAt" < ${graceCutoff}
      AND NOT EXISTS (
        SELECT 1 FROM "Run" o WHERE o."groupId" = q."groupId"
          AND (o.status = 'running' OR (o.status = 'queued' AND o."dispatchedAt" IS NOT NULL)))
    ORDER BY COALESCE(q."groupId", q.id), q."groupIndex" NULLS FIRST, q."queuedAt"
    LIMIT ${REDISPATCH_BATCH}`;
  const continued: string[] = [];
  for (const run of undispatched) {
    const id = run.groupId
      ? await continueGroupById(db, run.groupId, options)
      : await dispatchById(db, run.id, options);
    // The queue did not answer: the rest waits for the next pass rather than for more timeouts.
    if (!id) break;
    continued.push(id);
  }

  const redispatched = await redispatchWaiting(
    db,
    new Date(now.getTime() - (options.redispatchAfterMs ?? DEFAULT_REDISPATCH_AFTER_MS)),
    options,
  );
  return { endedRuns: ended, shardRuns, continued, redispatched, gaveUp: [...gaveUp, ...unclaimed] };
}

async function dispatchById(db: Db, runId: string, deps: Pick<LifecycleDeps, "dispatch" | "log">) {
  const run = await db.run.findFirst({
    where: { id: runId, status: "queued", dispatchedAt: null },
    select: { id: true, orgId: true, shardCount: true, workerLabel: true, agentLabel: true },
  });
  if (!run) return null;
  try {
    await dispatchQueuedRun(db, run, deps.dispatch);
    deps.log?.(`run ${run.id} queued (the job queue answers again)`);
    return run.id;
  } catch (err) {
    deps.log?.(`run ${run.id} stays queued until the job queue answers: ${describe(err)}`);
    return null;
  }
}

/**
 * Put the jobs of dispatched runs that are still waiting (and of sharded runs with shards not
 * yet taken) on the queue again. Adding a job whose id is already on the queue changes nothing;
 * a job lost with Redis's data is created again. Returns the ids of the runs re-dispatched.
 */
async function redispatchWaiting(db: Db, dispatchedBefore: Date, deps: Pick<LifecycleDeps, "dispatch" | "log">) {
  const waiting = await db.$queryRaw<
    { id: string; orgId: string; shardCount: number; workerLabel: string | null; agentLabel: string | null }[]
  >`
    SELECT r.id, r."orgId", r."shardCount", r."workerLabel", r."agentLabel" FROM "Run" r
    WHERE r."dispatchedAt" IS NOT NULL AND r."dispatchedAt" < ${dispatchedBefore}
      AND (r.status = 'queued'
        OR (r.status = 'running' AND r."shardCount" > 1
            AND EXISTS (SELECT 1 FROM "RunShard" s WHERE s."runId" = r.id AND s.status = 'queued')))
    ORDER BY r."dispatchedAt"
    LIMIT ${REDISPATCH_BATCH}`;
  const done: string[] = [];
  for (const run of waiting) {
    try {
      await deps.dispatch(run);
      done.push(run.id);
    } catch {
      // Redis is still away; the next pass tries again.
      break;
    }
  }
  return done;
}

/**
 * Fail the runs the queue never took for `giveUpMs` (counted from when each could first start:
 * its launch, or the end of the previous run of its group); a group's other queued runs fail
 * with it, since they would wait for the same queue.
 */
async function failUnqueuable(db: Db, now: Date, giveUpMs: number): Promise<string[]> {
  const cutoff = new Date(now.getTime() - giveUpMs);
  const stuck = await db.$queryRaw<{ id: string; groupId: string | null }[]>`
    SELECT q.id, q."groupId" FROM "Run" q
    WHERE q.status = 'queued' AND q."dispatchedAt" IS NULL AND q."queuedAt" < ${cutoff}
      AND NOT EXISTS (
        SELECT 1 FROM "Run" o WHERE o."groupId" = q."groupId"
          AND (o.status = 'running' OR (o.status = 'queued' AND o."dispatchedAt" IS NOT NULL)
               OR (o."endedAt" IS NOT NULL AND o."endedAt" >= ${cutoff})))`;
  if (!stuck.length) return [];
  const minutes = Math.round(giveUpMs / 6_000) / 10;
  const reason = `could not queue the run: the job queue (Redis) did not take it for ${minutes} min`;
  const groups = [...new Set(stuck.map((r) => r.groupId).filter((g): g is string => g !== null))];
  const singles = stuck.filter((r) => r.groupId === null).map((r) => r.id);
  const where: Prisma.RunWhereInput = {
    dispatchedAt: null,
    OR: [{ id: { in: singles } }, { groupId: { in: groups } }],
  };
  const failing = await db.run.findMany({ where: { ...where, status: "queued" }, select: { id: true } });
  await failQueued(db, where, reason);
  return failing.map((r) => r.id);
}

/**
 * Fail the agent runs no agent took for `giveUpMs` after they were put on their label's queue
 * (at launch, or when the previous run of their group ended): waiting for an agent is waiting
 * for the queue, so such a run ends `failed` like one the queue never took, naming the label and
 * whether any agent serves it, and frees its slot. A group's other queued runs fail with it,
 * since they would wait for the same agents. A run claimed meanwhile is `running` and left alone.
 */
async function failUnclaimed(db: Db, now: Date, giveUpMs: number): Promise<string[]> {
  const cutoff = new Date(now.getTime() - giveUpMs);
  const stuck = await db.run.findMany({
    where: { status: "queued", agentLabel: { not: null }, dispatchedAt: { lt: cutoff } },
    orderBy: { dispatchedAt: "asc" },
    select: { id: true, orgId: true, groupId: true, agentLabel: true },
    take: REDISPATCH_BATCH,
  });
  const minutes = Math.round(giveUpMs / 6_000) / 10;
  const failed: string[] = [];
  for (const run of stuck) {
    const label = run.agentLabel!;
    const presence = await agentLabelPresence(db, run.orgId, label, now.getTime());
    const reason = `no agent labelled ${label} took the run within ${minutes} min (${describeAgentPresence(presence)})`;
    // The waiting run first, only if still unclaimed; then the rest of its group.
    if (!(await failQueued(db, { id: run.id, dispatchedAt: { lt: cutoff } }, reason))) continue;
    failed.push(run.id);
    if (run.groupId) {
      const rest = await db.run.findMany({
        where: { groupId: run.groupId, status: "queued", dispatchedAt: null },
        select: { id: true },
      });
      await failQueued(db, { id: { in: rest.map((r) => r.id) }, dispatchedAt: null }, reason);
      failed.push(...rest.map((r) => r.id));
    }
  }
  return failed;
}

/**
 * The watchdog every long-lived process runs (web app and workers): reap every few seconds.
 * Returns a stop function.
 */
export function startRunWatchdog(db: Db, options: ReapOptions & { everyMs?: number }): () => void {
  let busy = false;
  // Since when this process has reached PostgreSQL without a failure: heartbeats missed while it
  // was unreachable are no sign of a dead worker, so stale runs wait a full timeout past it.
  let reachableSince = 0;
  let unreachable = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const skipStale = unreachable || Date.now() - reachableSince < options.staleAfterMs;
    reapStaleRuns(db, { ...options, skipStale })
      .then(() => {
        if (unreachable) {
          unreachable = false;
          reachableSince = Date.now();
        }
      })
      .catch((err: unknown) => {
        if (isDatabaseUnavailable(err)) unreachable = true;
        options.log?.(`watchdog: ${describe(err)}`);
      })
      .finally(() => {
        busy = false;
      });
  }, options.everyMs ?? 5_000);
  timer.unref?.();
  return () => clearInterval(timer);
}
