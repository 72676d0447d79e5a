import { type TRunResultData, ZRunResultData } from "@benchboard/core";
import { ImportError } from "@benchboard/core/importers";
import { canonicalUploadResult } from "@benchboard/core/result-input";
import { createExecRun, findProjectByRef, finishExecRun, NotFoundError, recordExecProgress } from "@benchboard/db";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { memberProcedure, router } from "../trpc";
import { ZUploadRunInput } from "./upload";

/** The load tools `benchboard exec` reads while they run. */
export const EXEC_TOOLS = ["k6", "vegeta"] as const;

const ZCount = z.number().int("must be a whole number").min(0, "must be at least 0").max(1e12);
const ZMs = z.number().finite().min(0, "must be at least 0").max(3.6e9);
const ZRate = z.number().finite().min(0, "must be at least 0").max(1e9);

export const ZExecStartInput = z.object({
  /** The project's id or slug. */
  project: ZUploadRunInput.shape.project,
  tool: z.enum(EXEC_TOOLS, { error: `must be one of ${EXEC_TOOLS.join(", ")}` }),
  /** Scenario name; a stored scenario of that name adds its thresholds. Defaults to the tool's name. */
  scenario: ZUploadRunInput.shape.scenario,
  branch: ZUploadRunInput.shape.branch,
  commit: ZUploadRunInput.shape.commit,
  ciUrl: ZUploadRunInput.shape.ciUrl,
  tags: ZUploadRunInput.shape.tags,
  notes: ZUploadRunInput.shape.notes,
});
export type TExecStartInput = z.infer<typeof ZExecStartInput>;

/** The start with its Idempotency-Key (a header over REST): sent again, it finds the run the first started. */
const ZExecStartCall = ZExecStartInput.extend({ idempotencyKey: ZUploadRunInput.shape.idempotencyKey });

export const ZExecLiveSample = z.object({
  /** Epoch ms at the end of the second. */
  t: z.number().int().min(0).max(8.64e15),
  rps: ZRate,
  p50: ZMs.nullable(),
  p99: ZMs.nullable(),
  /** Errors so far (running total). */
  errors: ZCount,
});

export const ZExecProgressInput = z.object({
  elapsedMs: ZMs,
  requests: ZCount,
  errors: ZCount,
  rps: ZRate,
  latencyP50Ms: ZMs.nullable(),
  latencyP99Ms: ZMs.nullable(),
  /** Seconds closed since the last report (a client reports about once a second). */
  samples: z.array(ZExecLiveSample).max(60, "at most 60 samples per report").default([]),
});
export type TExecProgressInput = z.infer<typeof ZExecProgressInput>;

export const ZExecFinishInput = z.object({
  /** succeeded when the tool exited 0, failed otherwise, canceled when interrupted. */
  status: z.enum(["succeeded", "failed", "canceled"]),
  /** Why it failed or was canceled, e.g. "vegeta exited with status 1". */
  error: z.string().trim().max(2_000).optional(),
  /** What the tool measured: the whole run's result (merged histogram, series). */
  result: ZRunResultData.optional(),
});
export type TExecFinishInput = z.infer<typeof ZExecFinishInput>;

const ZRunId = z.string().min(1).max(64);

export const execRunRouter = router({
  start: memberProcedure.input(ZExecStartCall).mutation(async ({ ctx, input }) => {
    const project = await findProjectByRef(ctx.db, ctx.orgId, input.project);
    if (!project) throw new NotFoundError("project", `no project "${input.project}" in this organization`);
    return createExecRun(ctx.db, ctx.orgId, {
      projectId: project.id,
      tool: input.tool,
      scenarioName: input.scenario ?? input.tool,
      branch: input.branch ?? null,
      commit: input.commit ?? null,
      ciUrl: input.ciUrl ?? null,
      tags: input.tags,
      notes: input.notes,
      createdById: ctx.userId,
      idempotencyKey: input.idempotencyKey ?? null,
    });
  }),
  progress: memberProcedure.input(ZExecProgressInput.extend({ id: ZRunId })).mutation(({ ctx, input }) => {
    const { id, samples, ...progress } = input;
    return recordExecProgress(ctx.db, ctx.orgId, id, progress, samples);
  }),
  finish: memberProcedure.input(ZExecFinishInput.extend({ id: ZRunId })).mutation(({ ctx, input }) => {
    let result: TRunResultData | null = null;
    try {
      // Bounded and re-encoded like an upload's: the client is as untrusted as a file.
      result = input.result ? canonicalUploadResult("exec", input.result, { startedAt: null, endedAt: null }) : null;
    } catch (err) {
      if (err instanceof ImportError) throw new TRPCError({ code: "BAD_REQUEST", message: err.message, cause: err });
      throw err;
    }
    return finishExecRun(ctx.db, ctx.orgId, input.id, {
      status: input.status,
      error: input.status === "succeeded" ? null : (input.error ?? null),
      result,
    });
  }),
});
