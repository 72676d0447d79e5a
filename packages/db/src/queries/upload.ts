import {
  evaluateThresholds,
  type TRunResultData,
  type TToolThresholdVerdict,
  thresholdsOutcome,
  verdictStatus,
  ZThreshold,
  ZToolThresholdVerdict,
} from "@benchboard/core";
import { z } from "zod";
import type { Db } from "../client";
import { BusyError, isTransactionStartTimeout, NotFoundError } from "../errors";
import { Prisma } from "../generated/prisma/client";
import { thresholdsForRun, writeRunOutcome } from "./run";

/** A project named by id or by slug, within the organization. */
export async function findProjectByRef(db: Db, orgId: string, ref: string) {
  return db.project.findFirst({
    where: { orgId, OR: [{ id: ref }, { slug: ref }] },
    select: { id: true, slug: true, name: true },
  });
}

/** A stored scenario named by id, or by name within a project. */
export async function findScenarioByRef(
  db: Db,
  orgId: string,
  ref: { id?: string; projectId?: string; name?: string },
) {
  if (ref.id)
    return db.scenario.findFirst({ where: { orgId, id: ref.id }, select: { id: true, projectId: true, name: true } });
  if (ref.projectId && ref.name) {
    return db.scenario.findFirst({
      where: { orgId, projectId: ref.projectId, name: ref.name },
      select: { id: true, projectId: true, name: true },
    });
  }
  return null;
}

/** A target or instance config named by id, or by name within a project. */
export async function findTargetByRef(db: Db, orgId: string, projectId: string, ref: string) {
  return db.target.findFirst({
    where: { orgId, projectId, OR: [{ id: ref }, { name: ref }] },
    select: { id: true, name: true },
  });
}

export async function findInstanceConfigByRef(db: Db, orgId: string, projectId: string, ref: string) {
  return db.instanceConfig.findFirst({
    where: { orgId, projectId, OR: [{ id: ref }, { name: ref }] },
    select: { id: true, name: true },
  });
}

export interface UploadedRunInput extends ReportedRunInput {
  /** launched runs say `launched`; uploads `upload` (native JSON) or `import:<format>`. */
  source: string;
  /** What the uploader says ran: engine and load settings, kept as the scenario snapshot. */
  scenario?: { engine?: string; spec?: Record<string, unknown> } | null;
  tool?: { name: string; version?: string } | null;
  target?: { name?: string; kind?: string; url?: string } | null;
  instanceConfig?: Record<string, unknown> | null;
  result: TRunResultData;
  startedAt?: Date | null;
  endedAt?: Date | null;
  idempotencyKey?: string | null;
}

const runSelect = { id: true, number: true, projectId: true, status: true, source: true } as const;

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002";
}

export async function findRunByIdempotencyKey(db: Db, orgId: string, idempotencyKey: string) {
  return db.run.findUnique({ where: { orgId_idempotencyKey: { orgId, idempotencyKey } }, select: runSelect });
}

/** What every run a client reports (uploaded, or driven by `benchboard exec`) is stored with alike. */
export interface ReportedRunInput {
  projectId: string;
  scenarioName: string;
  branch?: string | null;
  commit?: string | null;
  ciUrl?: string | null;
  tags?: string[];
  notes?: string;
  createdById?: string | null;
}

/**
 * The columns a run a client reports starts with: the next number in its project, the project's
 * stored scenario of the same name (whose thresholds judge the run) and the CI facts given.
 */
export async function reportedRunColumns(tx: Prisma.TransactionClient, orgId: string, input: ReportedRunInput) {
  const { projectId, scenarioName } = input;
  const project = await tx.project.findFirst({ where: { orgId, id: projectId }, select: { id: true } });
  if (!project) throw new NotFoundError("project", "project not found");
  const scenario = await tx.scenario.findFirst({
    where: { orgId, projectId, name: scenarioName },
    select: { id: true, thresholds: true },
  });
  const { runCounter } = await tx.project.update({
    where: { id: projectId },
    data: { runCounter: { increment: 1 } },
    select: { runCounter: true },
  });
  return {
    scenario,
    columns: {
      orgId,
      projectId,
      number: runCounter,
      scenarioId: scenario?.id ?? null,
      scenarioName,
      branch: input.branch ?? null,
      commit: input.commit ?? null,
      ciUrl: input.ciUrl ?? null,
      tags: input.tags ?? [],
      notes: input.notes ?? "",
      createdById: input.createdById ?? null,
    },
  };
}

/**
 * Store an uploaded run, already ended, in one transaction: the run with its snapshots, its
 * result and its threshold verdicts (the project's, and those of the project's stored scenario
 * of the same name), so a failure stores nothing. With an idempotency key that was used before
 * in the organization, the earlier run is returned instead (`created: false`).
 */
/**
 * A burst of uploads waits for a connection up to maxWait; past it the upload is refused as busy
 * (503, retried by clients) rather than failing with an error.
 */
const UPLOAD_TRANSACTION = { maxWait: 10_000, timeout: 30_000 };

export async function createUploadedRun(db: Db, orgId: string, input: UploadedRunInput) {
  if (input.idempotencyKey) {
    const existing = await findRunByIdempotencyKey(db, orgId, input.idempotencyKey);
    if (existing) return { run: existing, created: false };
  }
  try {
    const run = await db.$transaction(async (tx) => {
      const { scenario: stored, columns } = await reportedRunColumns(tx, orgId, input);
      const created = await tx.run.create({
        data: {
          ...columns,
          // Never visible as running: the transaction ends it before anyone can read it.
          status: "running",
          source: input.source,
          scenarioSnapshot: json({
            ...(stored ? { id: stored.id } : {}),
            name: input.scenarioName,
            engine: input.scenario?.engine,
            spec: input.scenario?.spec,
            thresholds: stored?.thresholds ?? [],
            tool: input.tool ?? undefined,
          }),
          targetSnapshot: input.target
            ? json({ name: input.target.name, kind: input.target.kind, baseUrl: input.target.url })
            : undefined,
          configSnapshot: input.instanceConfig ? json(input.instanceConfig) : undefined,
          idempotencyKey: input.idempotencyKey ?? null,
          startedAt: input.startedAt ?? null,
        },
        select: { id: true },
      });
      const verdicts = evaluateThresholds(input.result.metrics, await thresholdsForRun(tx, created.id));
      await writeRunOutcome(
        tx,
        created.id,
        { status: "succeeded", result: input.result, endedAt: input.endedAt ?? null },
        verdicts,
      );
      return tx.run.findUniqueOrThrow({ where: { id: created.id }, select: runSelect });
    }, UPLOAD_TRANSACTION);
    return { run, created: true };
  } catch (err) {
    if (isTransactionStartTimeout(err)) {
      throw new BusyError("too many uploads are being stored right now; nothing was stored, try again shortly");
    }
    // Two uploads with one key at once: the second insert loses the race and returns the first.
    if (input.idempotencyKey && isUniqueViolation(err)) {
      const existing = await findRunByIdempotencyKey(db, orgId, input.idempotencyKey);
      if (existing) return { run: existing, created: false };
    }
    throw err;
  }
}

function json(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}

const ZStoredVerdicts = z
  .array(
    ZThreshold.extend({
      actual: z.number().nullable(),
      passed: z.boolean(),
      status: z.enum(["pass", "fail", "not_measured"]).optional(),
      source: z.string(),
      note: z.string().optional(),
    }).transform((v) => ({ ...v, status: verdictStatus(v) })),
  )
  .catch([]);
const ZStoredToolVerdicts = z.array(ZToolThresholdVerdict).catch([]);

/** A stored result's threshold verdicts: Benchboard's own and the load tool's. */
export function storedThresholds(result: { thresholdResults: unknown; extra: unknown } | null | undefined) {
  const verdicts = ZStoredVerdicts.parse(result?.thresholdResults ?? []);
  const extra = result?.extra;
  const tool: TToolThresholdVerdict[] =
    extra && typeof extra === "object" && "toolThresholds" in extra
      ? ZStoredToolVerdicts.parse((extra as { toolThresholds: unknown }).toolThresholds)
      : [];
  const outcome = thresholdsOutcome([
    ...verdicts,
    ...tool.map((v) => ({ status: v.passed ? ("pass" as const) : ("fail" as const) })),
  ]);
  // `passed` is the strict reading: a threshold that was not measured has not passed.
  return { verdicts, tool, outcome, passed: verdicts.every((v) => v.passed) && tool.every((v) => v.passed) };
}

/**
 * The baseline for `head` on a branch: the latest succeeded, non-excluded run of that branch
 * for the same scenario (the same stored scenario, or the same project and scenario name),
 * other than head itself.
 */
export async function findBranchBaseline(
  db: Db,
  orgId: string,
  head: { id: string; projectId: string; scenarioId: string | null; scenarioName: string },
  branch: string,
) {
  const sameScenario: Prisma.RunWhereInput[] = [{ projectId: head.projectId, scenarioName: head.scenarioName }];
  if (head.scenarioId) sameScenario.push({ scenarioId: head.scenarioId });
  return db.run.findFirst({
    where: {
      orgId,
      branch,
      status: "succeeded",
      excluded: false,
      id: { not: head.id },
      result: { isNot: null },
      OR: sameScenario,
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true },
  });
}
