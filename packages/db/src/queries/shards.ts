import type { EngineProgress } from "@benchboard/core";
import type { Db } from "../client";
import type { Prisma } from "../generated/prisma/client";
import { type ClaimScope, claimableWhere, whoRan } from "./run";

/**
 * Sharded runs: a run split across N worker processes. Each shard is a row (and a job); the
 * worker that finishes the last shard merges the shards' results into the run's result.
 */

/** Create the shard rows of a run (idempotent). */
export async function prepareShards(db: Db, runId: string, count: number): Promise<void> {
  if (count <= 1) return;
  await db.runShard.createMany({
    data: Array.from({ length: count }, (_, index) => ({ runId, index })),
    skipDuplicates: true,
  });
}

/**
 * Claim a queued shard for a worker, moving the run to running with its first shard. Returns
 * null when the shard is no longer queued or its run has ended (e.g. canceled).
 */
export async function claimShard(db: Db, runId: string, index: number, workerId: string, scope: ClaimScope = {}) {
  const now = new Date();
  const run = await db.run.findFirst({ where: { id: runId, ...claimableWhere(scope) }, select: { status: true } });
  // A run this process may not take is left alone (it is not ended here).
  if (!run) return null;
  if (run.status !== "queued" && run.status !== "running") {
    await db.runShard.updateMany({
      where: { runId, index, status: "queued" },
      data: { status: "canceled", endedAt: now, error: "the run ended before this shard started" },
    });
    return null;
  }
  const { count } = await db.runShard.updateMany({
    where: { runId, index, status: "queued" },
    data: { status: "running", workerId, startedAt: now, heartbeatAt: now },
  });
  if (count === 0) return null;
  await db.run.updateMany({
    where: { id: runId, status: "queued" },
    data: { status: "running", startedAt: now, heartbeatAt: now },
  });
  await db.run.update({ where: { id: runId }, data: { workerIds: { push: workerId }, heartbeatAt: now } });
  return db.run.findUniqueOrThrow({ where: { id: runId }, include: { target: true } });
}

/** Heartbeat of a shard and of its run. */
export async function touchShard(db: Db, runId: string, index: number): Promise<void> {
  const now = new Date();
  await db.runShard.updateMany({ where: { runId, index, status: "running" }, data: { heartbeatAt: now } });
  await db.run.updateMany({ where: { id: runId, status: "running" }, data: { heartbeatAt: now } });
}

/** Record that a shard's worker has prepared its load and is ready to start. */
export async function markShardReady(db: Db, runId: string, index: number, at = new Date()): Promise<void> {
  await db.runShard.updateMany({ where: { runId, index, status: "running" }, data: { readyAt: at } });
}

/**
 * Where the shards of a run stand before they start: the shards still being waited for (queued,
 * or picked but not yet ready) and the latest time a shard became ready. Shards that already
 * ended are not waited for.
 */
export async function shardReadiness(
  db: Db,
  runId: string,
): Promise<{ waitingFor: number[]; lastReadyAt: Date | null }> {
  const shards = await db.runShard.findMany({ where: { runId }, select: { index: true, status: true, readyAt: true } });
  let lastReadyAt: Date | null = null;
  const waitingFor: number[] = [];
  for (const s of shards) {
    if (s.readyAt) {
      if (!lastReadyAt || s.readyAt > lastReadyAt) lastReadyAt = s.readyAt;
    } else if (s.status === "queued" || s.status === "running") {
      waitingFor.push(s.index);
    }
  }
  return { waitingFor: waitingFor.sort((a, b) => a - b), lastReadyAt };
}

/**
 * Keep a shard's latest live progress under `live` in its result column, beside its latest
 * checkpoint (which it leaves as it is).
 */
export async function storeShardProgress(
  db: Db,
  runId: string,
  index: number,
  progress: EngineProgress,
): Promise<void> {
  await db.$executeRaw`
    UPDATE "RunShard"
    SET "result" = COALESCE("result", '{}'::jsonb) || jsonb_build_object('live', ${JSON.stringify(progress)}::jsonb)
    WHERE "runId" = ${runId} AND "index" = ${index} AND "status" = 'running'`;
}

/**
 * Store a running shard's partial result (an engine checkpoint, histograms encoded) so that, if
 * its worker dies, the run keeps what the shard measured until then. Its live progress stays.
 */
export async function checkpointShard(db: Db, runId: string, index: number, partial: object): Promise<void> {
  await db.$executeRaw`
    UPDATE "RunShard"
    SET "result" = ${JSON.stringify(partial)}::jsonb
      || jsonb_build_object('live', COALESCE("result"->'live', 'null'::jsonb))
    WHERE "runId" = ${runId} AND "index" = ${index} AND "status" = 'running'`;
}

/**
 * The shard that watches a run's monitors now: the lead (shard 0) while it lives. A shard lost
 * with its worker (failed) hands them to the next shard still running, so a run keeps sampling
 * its target after its lead died; a lead that ended otherwise stopped them with the load (null).
 */
export async function monitorShard(db: Db, runId: string): Promise<number | null> {
  const shards = await db.runShard.findMany({
    where: { runId },
    select: { index: true, status: true },
    orderBy: { index: "asc" },
  });
  for (const shard of shards) {
    if (shard.status === "running" || shard.status === "queued") return shard.index;
    if (shard.status !== "failed") return null;
  }
  return null;
}

/** Latest progress of every running shard of a run. */
export async function shardProgress(db: Db, runId: string): Promise<EngineProgress[]> {
  const shards = await db.runShard.findMany({ where: { runId }, select: { result: true, status: true } });
  return shards
    .filter((s) => s.status === "running")
    .map((s) => (s.result as { live?: EngineProgress } | null)?.live)
    .filter((p): p is EngineProgress => Boolean(p));
}

/**
 * Store a shard's end state and result (the engine result, histograms encoded). Without a result
 * (the shard failed) its last checkpoint stays, so the run keeps what it measured.
 */
export async function finishShard(
  db: Db,
  runId: string,
  index: number,
  outcome: { status: "succeeded" | "failed" | "canceled"; error?: string | null; result?: unknown },
): Promise<void> {
  await db.runShard.updateMany({
    where: { runId, index },
    data: {
      status: outcome.status,
      error: outcome.error ?? null,
      endedAt: new Date(),
      ...(outcome.result !== undefined ? { result: (outcome.result ?? null) as Prisma.InputJsonValue } : {}),
    },
  });
}

/** All shards of a run, or null while some are still queued or running. */
export async function shardsIfAllEnded(db: Db, runId: string) {
  const shards = await db.runShard.findMany({ where: { runId }, orderBy: { index: "asc" } });
  if (shards.some((s) => s.status === "queued" || s.status === "running")) return null;
  return shards;
}

/**
 * Fail shards whose worker stopped heartbeating; returns the ids of runs that may now be
 * complete (their last live shard ended) so the caller can merge them.
 */
export async function failStaleShards(db: Db, timeoutMs: number, now = new Date()): Promise<string[]> {
  const cutoff = new Date(now.getTime() - timeoutMs);
  const stale = await db.runShard.findMany({
    where: { status: "running", heartbeatAt: { lt: cutoff } },
    select: { id: true, runId: true, index: true, workerId: true, heartbeatAt: true },
  });
  const runs = new Set<string>();
  for (const shard of stale) {
    const seconds = Math.round((now.getTime() - (shard.heartbeatAt?.getTime() ?? now.getTime())) / 1000);
    const { count } = await db.runShard.updateMany({
      where: { id: shard.id, status: "running", heartbeatAt: shard.heartbeatAt },
      data: {
        status: "failed",
        endedAt: now,
        error: `shard ${shard.index + 1}: ${whoRan(shard.workerId)} stopped responding (no heartbeat for ${seconds} s)`,
      },
    });
    if (count) runs.add(shard.runId);
  }
  return [...runs];
}
