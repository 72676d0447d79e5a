import { createLaunchedRun, getRun, getRunSeries, listRuns, NotFoundError, requestCancel } from "@benchboard/db";
import { enqueue, JOBS } from "@benchboard/jobs";
import { z } from "zod";
import { memberProcedure, orgProcedure, router } from "../trpc";

export const ZLaunchRunInput = z.object({
  targetId: z.string().min(1, "target is required"),
  scenarioId: z.string().min(1, "scenario is required"),
  instanceConfigId: z.string().nullish(),
  tags: z.array(z.string().trim().min(1).max(64)).max(20).default([]),
  notes: z.string().max(10_000).optional(),
});

const ZRunStatus = z.enum(["queued", "running", "succeeded", "failed", "canceled"]);

export const runRouter = router({
  list: orgProcedure
    .input(
      z
        .object({
          projectId: z.string().optional(),
          status: ZRunStatus.optional(),
          limit: z.number().int().min(1).max(200).default(50),
          cursor: z.string().optional(),
        })
        .optional(),
    )
    .query(({ ctx, input }) => listRuns(ctx.db, ctx.orgId, input ?? {})),
  byId: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, ctx.orgId, input.id);
    if (!run) throw new NotFoundError("id", "run not found");
    return run;
  }),
  series: orgProcedure
    .input(z.object({ id: z.string() }))
    .query(({ ctx, input }) => getRunSeries(ctx.db, ctx.orgId, input.id)),
  launch: memberProcedure.input(ZLaunchRunInput).mutation(async ({ ctx, input }) => {
    const run = await createLaunchedRun(ctx.db, ctx.orgId, { ...input, createdById: ctx.userId });
    try {
      await enqueue(ctx.queue, JOBS.runExecute, { runId: run.id }, { jobId: run.id });
    } catch (err) {
      // The run must not wait forever for a job that was never queued.
      await ctx.db.run.update({
        where: { id: run.id },
        data: { status: "failed", error: `could not queue the run: ${(err as Error).message}`, endedAt: new Date() },
      });
      throw err;
    }
    return run;
  }),
  cancel: memberProcedure
    .input(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => requestCancel(ctx.db, ctx.orgId, input.id)),
});
