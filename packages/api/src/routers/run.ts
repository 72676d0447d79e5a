import { MAX_SHARDS, planShards, ShardPlanError, ZScenarioSpec } from "@benchboard/core";
import {
  ConflictError,
  createLaunchedRuns,
  getRun,
  getRunChart,
  getRunExport,
  getRunSeries,
  getRunView,
  listRuns,
  NotFoundError,
  prepareShards,
  RUN_LIST_SORTS,
  requestCancel,
  updateRunMeta,
} from "@benchboard/db";
import { dispatchRun, ZWorkerLabel } from "@benchboard/jobs";
import { z } from "zod";
import { type Context, enforceRateLimit, LAUNCHES_PER_MINUTE, memberProcedure, orgProcedure, router } from "../trpc";

export const ZLaunchRunInput = z.object({
  targetId: z.string().min(1, "target is required"),
  scenarioId: z.string().min(1, "scenario is required"),
  instanceConfigId: z.string().nullish(),
  tags: z
    .array(
      z
        .string()
        .trim()
        .min(1, "tags cannot be empty")
        .max(64, "a tag is at most 64 characters")
        .regex(/^[^,\s][^,]*$/, "tags cannot contain commas"),
    )
    .max(20, "at most 20 tags")
    .default([]),
  notes: z.string().max(10_000).optional(),
  /** Split each run across this many worker processes; their results merge exactly. */
  shards: z
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "at least 1")
    .max(MAX_SHARDS, `at most ${MAX_SHARDS} shards`)
    .default(1),
  /** Only workers offering this label (e.g. a region) take the run. */
  workerLabel: ZWorkerLabel.nullish(),
  /** A launch with a key used before in the organization is refused (REST replays the first). */
  idempotencyKey: z
    .string()
    .min(1)
    .max(255, "at most 255 characters")
    .regex(/^[\x21-\x7e]+$/, "must be visible ASCII characters")
    .nullish(),
  /** Runs launched back to back as one group, e.g. 3 to judge noise. */
  repetitions: z
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "at least 1")
    .max(50, "at most 50 repetitions")
    .default(1),
});
export type TLaunchRunInput = z.infer<typeof ZLaunchRunInput>;

export const ZUpdateRunInput = z
  .object({
    id: z.string().min(1),
    notes: z.string().max(10_000, "notes are at most 10,000 characters").optional(),
    tags: ZLaunchRunInput.shape.tags.unwrap().optional(),
    excluded: z.boolean().optional(),
    excludedReason: z.string().trim().max(500, "a reason is at most 500 characters").nullish(),
  })
  .refine((v) => v.excluded !== true || (v.excludedReason ?? "").length > 0, {
    message: "say why the run is excluded from sweeps and trends",
    path: ["excludedReason"],
  });
export type TUpdateRunInput = z.infer<typeof ZUpdateRunInput>;

const ZRunStatus = z.enum(["queued", "running", "succeeded", "failed", "canceled"]);

/** Refuse, naming the field, a split the scenario cannot take or a label no worker offers. */
async function assertShardable(ctx: Context & { orgId: string }, input: TLaunchRunInput): Promise<void> {
  if (input.shards > 1) {
    const scenario = await ctx.db.scenario.findFirst({ where: { orgId: ctx.orgId, id: input.scenarioId } });
    if (!scenario) throw new NotFoundError("scenarioId", "scenario not found");
    try {
      planShards(ZScenarioSpec.parse(scenario.spec), input.shards);
    } catch (err) {
      if (err instanceof ShardPlanError) throw new ConflictError("shards", err.message);
      throw err;
    }
  }
  if (input.workerLabel) {
    const since = new Date(Date.now() - 15_000);
    const offering = await ctx.db.worker.count({
      where: { labels: { has: input.workerLabel }, heartbeatAt: { gt: since } },
    });
    if (!offering) throw new ConflictError("workerLabel", `no online worker offers the label ${input.workerLabel}`);
  }
}

export const runRouter = router({
  list: orgProcedure
    .input(
      z
        .object({
          projectId: z.string().optional(),
          targetId: z.string().optional(),
          scenarioId: z.string().optional(),
          instanceConfigId: z.string().optional(),
          status: z.union([ZRunStatus, z.array(ZRunStatus).max(5)]).optional(),
          branch: z.string().max(200).optional(),
          tag: z.string().max(64).optional(),
          from: z.date().optional(),
          to: z.date().optional(),
          search: z.string().max(200).optional(),
          sort: z.enum(RUN_LIST_SORTS).default("newest"),
          limit: z.number().int().min(1).max(200).default(50),
          cursor: z.string().nullish(),
        })
        .optional(),
    )
    .query(({ ctx, input }) => listRuns(ctx.db, ctx.orgId, { ...input, cursor: input?.cursor ?? undefined })),
  byId: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, ctx.orgId, input.id);
    if (!run) throw new NotFoundError("id", "run not found");
    return run;
  }),
  series: orgProcedure
    .input(z.object({ id: z.string() }))
    .query(({ ctx, input }) => getRunSeries(ctx.db, ctx.orgId, input.id)),
  launch: memberProcedure.input(ZLaunchRunInput).mutation(async ({ ctx, input }) => {
    await enforceRateLimit(ctx, `launch:${ctx.orgId}`, LAUNCHES_PER_MINUTE, 60, "launches in this organization");
    await assertShardable(ctx, input);
    const created = await createLaunchedRuns(ctx.db, ctx.orgId, { ...input, createdById: ctx.userId });
    const runs =
      input.shards > 1 || input.workerLabel
        ? await Promise.all(
            created.map((r) =>
              ctx.db.run.update({
                where: { id: r.id },
                data: { shardCount: input.shards, workerLabel: input.workerLabel ?? null },
              }),
            ),
          )
        : created;
    const run = runs[0]!;
    try {
      // Repetitions run back to back: the worker queues the next one when this one ends.
      await prepareShards(ctx.db, run.id, run.shardCount);
      await dispatchRun(ctx.queueFor ?? (() => ctx.queue), run);
    } catch (err) {
      // The runs must not wait forever for a job that was never queued.
      await ctx.db.run.updateMany({
        where: { id: { in: runs.map((r) => r.id) } },
        data: { status: "failed", error: `could not queue the run: ${(err as Error).message}`, endedAt: new Date() },
      });
      throw err;
    }
    return { ...run, groupRunIds: runs.map((r) => r.id) };
  }),
  cancel: memberProcedure
    .input(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => requestCancel(ctx.db, ctx.orgId, input.id)),
  /** The run page's results: summary with derived metrics, histogram, breakdowns, verdicts, snapshots. */
  view: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const view = await getRunView(ctx.db, ctx.orgId, input.id);
    if (!view) throw new NotFoundError("id", "run not found");
    return view;
  }),
  /** Per-second series on one shared time axis, reduced for charting. */
  chart: orgProcedure
    .input(z.object({ id: z.string(), maxPoints: z.number().int().min(10).max(5_000).default(900) }))
    .query(({ ctx, input }) => getRunChart(ctx.db, ctx.orgId, input.id, input.maxPoints)),
  update: memberProcedure
    .input(ZUpdateRunInput)
    .mutation(({ ctx, input: { id, ...meta } }) => updateRunMeta(ctx.db, ctx.orgId, id, meta)),
  /** Everything stored about the run, for the JSON and CSV downloads. */
  export: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const data = await getRunExport(ctx.db, ctx.orgId, input.id);
    if (!data) throw new NotFoundError("id", "run not found");
    return data;
  }),
});
