import type { TRunResultData } from "@benchboard/core";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { decryptTargetSecrets } from "../secrets";
import { finishRun } from "./run";
import { type ReportedRunInput, reportedRunColumns } from "./upload";

/**
 * Runs driven by a client (`benchboard exec` wrapping k6 or vegeta): the client starts the run,
 * reports per-second figures while the tool runs and ends it with the tool's result. The run is
 * `running` from the start; a client that stops reporting is ended by the stale-run reaper like
 * a lost worker, so a crashed client never leaves a run stuck.
 */
export const EXEC_SOURCE_PREFIX = "exec:";

/** The live page keeps this many per-second samples. */
export const EXEC_LIVE_SAMPLES = 300;

export interface ExecLiveSample {
  t: number;
  rps: number;
  p50: number | null;
  p99: number | null;
  errors: number;
}

export interface ExecProgress {
  elapsedMs: number;
  requests: number;
  errors: number;
  rps: number;
  latencyP50Ms: number | null;
  latencyP99Ms: number | null;
}

export interface CreateExecRunInput extends ReportedRunInput {
  tool: string;
  /** A start sent again with the same key finds this run instead of starting another. */
  idempotencyKey?: string | null;
}

/** Exec start keys are stored apart from upload and launch keys (keys themselves have no spaces). */
export const execKey = (key: string) => `exec ${key}`;

/** The client-driven run an earlier start with this key created, or null. */
export async function findExecRunByIdempotencyKey(db: Db, orgId: string, idempotencyKey: string) {
  return db.run.findUnique({
    where: { orgId_idempotencyKey: { orgId, idempotencyKey: execKey(idempotencyKey) } },
    select: { id: true, number: true, projectId: true },
  });
}

const json = (value: unknown) => value as Prisma.InputJsonValue;

/** Start a client-driven run: running now, numbered in its project, with the same-named scenario's thresholds. */
export async function createExecRun(db: Db, orgId: string, input: CreateExecRunInput) {
  return db.$transaction(async (tx) => {
    const { scenario: stored, columns } = await reportedRunColumns(tx, orgId, input);
    const now = new Date();
    return tx.run.create({
      data: {
        ...columns,
        status: "running",
        source: `${EXEC_SOURCE_PREFIX}${input.tool}`,
        scenarioSnapshot: json({
          ...(stored ? { id: stored.id } : {}),
          name: input.scenarioName,
          thresholds: stored?.thresholds ?? [],
          tool: { name: input.tool },
        }),
        startedAt: now,
        heartbeatAt: now,
        idempotencyKey: input.idempotencyKey ? execKey(input.idempotencyKey) : null,
        progress: json({ elapsedMs: 0, fraction: null, requests: 0, errors: 0, rps: 0, samples: [] }),
      },
      select: { id: true, number: true, projectId: true },
    });
  });
}

/** The client-driven run `id` of the organization, or a not-found error naming `id`. */
async function execRun(db: Db, orgId: string, id: string) {
  const run = await db.run.findFirst({
    where: { id, orgId, source: { startsWith: EXEC_SOURCE_PREFIX } },
    select: { id: true, status: true, cancelRequested: true, projectId: true, progress: true },
  });
  if (!run) throw new NotFoundError("id", `no run ${id} reported by a client in this organization`);
  return run;
}

/**
 * Record the client's figures and new per-second samples (the last EXEC_LIVE_SAMPLES are kept)
 * and refresh the heartbeat. Returns whether someone asked to cancel it, and its status: a run
 * that has ended (canceled, or failed by the reaper) takes no more progress.
 */
export async function recordExecProgress(
  db: Db,
  orgId: string,
  id: string,
  progress: ExecProgress,
  samples: ExecLiveSample[],
): Promise<{ status: string; cancelRequested: boolean }> {
  const run = await execRun(db, orgId, id);
  if (run.status !== "running") return { status: run.status, cancelRequested: run.cancelRequested };
  const earlier = (run.progress as { samples?: ExecLiveSample[] } | null)?.samples ?? [];
  const kept = [...earlier, ...samples.map((s) => ({ ...s, mem: null, cpu: null, queue: null }))].slice(
    -EXEC_LIVE_SAMPLES,
  );
  await db.run.updateMany({
    where: { id, status: "running" },
    data: { progress: json({ ...progress, fraction: null, samples: kept }), heartbeatAt: new Date() },
  });
  return { status: run.status, cancelRequested: run.cancelRequested };
}

/** End a client-driven run with its result (kept for failed and canceled runs too). */
export async function finishExecRun(
  db: Db,
  orgId: string,
  id: string,
  outcome: {
    status: "succeeded" | "failed" | "canceled";
    error?: string | null;
    result?: TRunResultData | null;
    endedAt?: Date | null;
  },
) {
  const run = await execRun(db, orgId, id);
  if (run.status !== "running") {
    throw new ConflictError("id", `run ${id} has already ended (${run.status})`);
  }
  if (!(await finishRun(db, id, outcome))) {
    throw new ConflictError("id", `run ${id} has already ended`);
  }
  return { id, projectId: run.projectId };
}

/**
 * The stored values of a target's secret headers, to tell whether a configuration file changes
 * them (`benchboard apply`). They never leave the server: callers compare, never return them.
 * Null when none are stored or the key cannot read them (they then count as changed).
 */
export async function storedSecretHeaderValues(
  db: Db,
  orgId: string,
  targetId: string,
  secretKey: Buffer | null | undefined,
): Promise<Record<string, string> | null> {
  const row = await db.target.findFirst({ where: { orgId, id: targetId }, select: { secrets: true } });
  if (!row?.secrets || !secretKey) return null;
  try {
    return decryptTargetSecrets(secretKey, orgId, row.secrets).headers;
  } catch {
    return null;
  }
}
