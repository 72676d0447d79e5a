import {
  COMPARE_MAX_RUNS,
  COMPARE_MIN_RUNS,
  createComparison,
  deleteComparison,
  getComparisonView,
  getSavedComparison,
  listComparisons,
  NotFoundError,
  updateComparison,
} from "@benchboard/db";
import { z } from "zod";
import { memberProcedure, orgProcedure, router } from "../trpc";

const ZRunIds = z
  .array(z.string().min(1))
  .min(COMPARE_MIN_RUNS, `pick at least ${COMPARE_MIN_RUNS} runs`)
  .max(COMPARE_MAX_RUNS, `pick at most ${COMPARE_MAX_RUNS} runs`);

export const ZCompareRunsInput = z.object({
  runIds: ZRunIds,
  baselineRunId: z.string().min(1).nullish(),
});

export const ZCreateComparisonInput = z.object({
  title: z.string().trim().min(1, "title is required").max(200, "a title is at most 200 characters"),
  runIds: ZRunIds,
  baselineRunId: z.string().min(1, "choose a baseline"),
  notes: z.string().max(10_000).optional(),
});
export type TCreateComparisonInput = z.infer<typeof ZCreateComparisonInput>;

export const ZUpdateComparisonInput = ZCreateComparisonInput.partial().extend({ id: z.string().min(1) });

export const comparisonRouter = router({
  /** An unsaved comparison of the given runs (the /compare?runs=… page). */
  view: orgProcedure.input(ZCompareRunsInput).query(({ ctx, input }) => getComparisonView(ctx.db, ctx.orgId, input)),
  list: orgProcedure.query(({ ctx }) => listComparisons(ctx.db, ctx.orgId)),
  byId: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const saved = await getSavedComparison(ctx.db, ctx.orgId, input.id);
    if (!saved) throw new NotFoundError("id", "comparison not found");
    return saved;
  }),
  create: memberProcedure
    .input(ZCreateComparisonInput)
    .mutation(({ ctx, input }) => createComparison(ctx.db, ctx.orgId, { ...input, createdById: ctx.userId })),
  update: memberProcedure
    .input(ZUpdateComparisonInput)
    .mutation(({ ctx, input: { id, ...input } }) => updateComparison(ctx.db, ctx.orgId, id, input)),
  delete: memberProcedure
    .input(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => deleteComparison(ctx.db, ctx.orgId, input.id)),
});
