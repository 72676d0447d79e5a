import { MAX_SHARDS, ZFindCapacity, ZLaunchOverrides } from "@benchboard/core";
import {
  generatorCapacity,
  getRun,
  getRunChart,
  getRunExport,
  getRunView,
  listRuns,
  NotFoundError,
  RUN_LIST_SORTS,
  requestCancel,
  setRunPinned,
  updateRunMeta,
} from "@benchboard/db";
import { ZWorkerLabel } from "@benchboard/jobs";
import { z } from "zod";
import { enforceLaunchLimit, launchAsCaller, memberProcedure, orgProcedure, router } from "../trpc";

/** How many worker processes each launched run is split across (runs and sweeps alike). */
export const ZShardCount = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .min(1, "at least 1")
  .max(MAX_SHARDS, `at most ${MAX_SHARDS} shards`)
  .default(1);

/** Each plateau's verdict picks the next rate, so a capacity search runs in one process. */
export function refuseShardedCapacitySearch(
  input: { findCapacity?: unknown; shards?: number },
  ctx: z.RefinementCtx,
): void {
  if (input.findCapacity !== undefined && (input.shards ?? 1) > 1) {
    ctx.addIssue({
      code: "custom",
      path: ["shards"],
      message:
        "a capacity search runs on one worker or agent (each plateau's verdict picks the next rate); launch it with 1 shard",
    });
  }
}

export const ZLaunchRunInput = z
  .object({
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
    shards: ZShardCount,
    /** Only workers offering this label (e.g. a region) take the run. */
    workerLabel: ZWorkerLabel.nullish(),
    /** The organization's agents offering this label run it, inside its own network. */
    agentLabel: ZWorkerLabel.nullish(),
    /** Queue it even when no online agent offers the label; otherwise such a launch is refused. */
    queueWithoutAgent: z.boolean().optional(),
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
    /** Launch-time changes to the scenario's load, stored on the run's snapshot; within the caps. */
    ...ZLaunchOverrides.shape,
    /**
     * Run the (open-model) scenario as a capacity search: plateaus at stepped, then bisected rates
     * between minRate and maxRate until the knee, judged against the SLO; one run stores the answer.
     */
    findCapacity: ZFindCapacity.optional(),
  })
  .superRefine((input, ctx) => refuseShardedCapacitySearch(input, ctx));
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

/** A metric key as results store them: the vocabulary's, `stage.<name>` or a custom key. */
const ZMetricKey = z
  .string()
  .min(1)
  .max(200)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  .regex(/^[^\u0000-\u001f\u007f]+$/, "a metric key has no control characters");

const ZRunStatus = z.enum(["queued", "running", "succeeded", "failed", "canceled"]);

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
          /** With sort "metric": the metric key, and which end first (default: its better end). */
          sortMetric: ZMetricKey.optional(),
          order: z.enum(["asc", "desc"]).optional(),
          /** Runs whose metric lies within [min, max]. */
          metrics: z
            .array(
              z.object({ key: ZMetricKey, min: z.number().finite().optional(), max: z.number().finite().optional() }),
            )
            .max(4)
            .optional(),
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
  launch: memberProcedure.input(ZLaunchRunInput).mutation(async ({ ctx, input }) => {
    await enforceLaunchLimit(ctx);
    const { rate, concurrency, durationS, findCapacity, ...launch } = input;
    const { runs } = await launchAsCaller(ctx, {
      ...launch,
      overrides: { rate, concurrency, durationS },
      findCapacity,
    });
    return { ...runs[0]!, groupRunIds: runs.map((r) => r.id) };
  }),
  cancel: memberProcedure
    .input(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => requestCancel(ctx.db, ctx.orgId, input.id)),
  /** A pinned run keeps its per-second detail whatever the install's retention. */
  setPinned: memberProcedure
    .input(z.object({ id: z.string(), pinned: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      if (!(await setRunPinned(ctx.db, ctx.orgId, input.id, input.pinned)))
        throw new NotFoundError("id", "run not found");
      return { id: input.id, pinned: input.pinned };
    }),
  /** The run page's results: summary with derived metrics, histogram, breakdowns, verdicts, snapshots. */
  view: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const view = await getRunView(ctx.db, ctx.orgId, input.id, { revealWorkers: true });
    if (!view) throw new NotFoundError("id", "run not found");
    return view;
  }),
  /** What one worker drives on time with an open-model engine, for the launch form's shard hint. */
  workerCapacity: orgProcedure
    .input(z.object({ engine: z.enum(["http-open", "llm"]) }))
    .query(({ ctx, input }) => generatorCapacity(ctx.db, ctx.orgId, input.engine)),
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
