import { MAX_SHARDS, ZMetricKey, ZThreshold } from "@benchboard/core";
import { getProjectThresholds, getTrend, setProjectThresholds, trendOptions } from "@benchboard/db";
import { z } from "zod";
import { memberProcedure, orgProcedure, router } from "../trpc";

export const ZTrendInput = z.object({
  projectId: z.string().min(1, "choose a project"),
  scenarioName: z.string().min(1, "choose a scenario"),
  metric: z.string().min(1).max(200),
  branch: z.string().max(200).nullish(),
  /** Only runs on this config, by its label ("t3.xlarge"). */
  config: z.string().max(200).nullish(),
  /** Only runs of this load, by its label ("5,000 req/s · 60 s"). */
  load: z.string().max(200).nullish(),
  /** Only runs split into this many shards. */
  shards: z
    .number({ error: "shards must be a number" })
    .int("shards must be a whole number")
    .positive("shards must be at least 1")
    .max(MAX_SHARDS, `shards is at most ${MAX_SHARDS}`)
    .nullish(),
});
export type TTrendInput = z.infer<typeof ZTrendInput>;

export const ZSetThresholdsInput = z.object({
  projectId: z.string().min(1),
  thresholds: z.array(ZThreshold.extend({ metric: ZMetricKey })).max(50, "at most 50 thresholds"),
});
export type TSetThresholdsInput = z.infer<typeof ZSetThresholdsInput>;

export const trendRouter = router({
  options: orgProcedure.query(({ ctx }) => trendOptions(ctx.db, ctx.orgId)),
  view: orgProcedure.input(ZTrendInput).query(({ ctx, input }) => getTrend(ctx.db, ctx.orgId, input)),
  /** A project's thresholds: pass/fail goals every run of the project is judged against. */
  thresholds: orgProcedure
    .input(z.object({ projectId: z.string().min(1) }))
    .query(({ ctx, input }) => getProjectThresholds(ctx.db, ctx.orgId, input.projectId)),
  setThresholds: memberProcedure
    .input(ZSetThresholdsInput)
    .mutation(({ ctx, input }) => setProjectThresholds(ctx.db, ctx.orgId, input.projectId, input.thresholds)),
});
