import { isKnownMetric, parseParameterPath } from "@benchboard/core";
import {
  cancelSweep,
  getSweepView,
  listSweeps,
  NotFoundError,
  SWEEP_MAX_VALUES,
  sweepParameters,
} from "@benchboard/db";
import { ZWorkerLabel } from "@benchboard/jobs";
import { z } from "zod";
import { enforceLaunchLimit, launchAsCaller, memberProcedure, orgProcedure, router } from "../trpc";
import { ZShardCount } from "./run";

const ZSweepValue = z.union([z.number().finite(), z.string().trim().min(1).max(200), z.boolean()]);

export const ZCreateSweepInput = z.object({
  name: z.string().trim().min(1, "name is required").max(200),
  targetId: z.string().min(1, "target is required"),
  scenarioId: z.string().min(1, "scenario is required"),
  instanceConfigId: z.string().nullish(),
  parameter: z
    .string()
    .trim()
    .max(200, "a parameter path is at most 200 characters")
    .refine((p) => parseParameterPath(p) !== null, "use knobs.<name>, config.<field> or scenario.<field>"),
  values: z
    .array(ZSweepValue)
    .min(2, "give at least two values")
    .max(SWEEP_MAX_VALUES, `at most ${SWEEP_MAX_VALUES} values`),
  metric: z.string().min(1).refine(isKnownMetric, "unknown metric").default("rps"),
  repetitions: z.number().int().min(1, "at least 1").max(10, "at most 10 repetitions").default(1),
  /** Split each run across this many worker processes. */
  shards: ZShardCount,
  /** Only workers offering this label take the sweep's runs. */
  workerLabel: ZWorkerLabel.nullish(),
  /** The organization's agents offering this label run the sweep's runs. */
  agentLabel: ZWorkerLabel.nullish(),
});
export type TCreateSweepInput = z.infer<typeof ZCreateSweepInput>;

export const sweepRouter = router({
  list: orgProcedure.query(({ ctx }) => listSweeps(ctx.db, ctx.orgId)),
  byId: orgProcedure
    .input(
      z.object({
        id: z.string(),
        /** A capacity question: the highest value whose `metric` stays at or under `below`. */
        capacity: z
          .object({
            metric: z.string().refine(isKnownMetric, "unknown metric"),
            below: z.number({ error: "below must be a number" }).finite().positive("below must be above 0"),
          })
          .nullish(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const view = await getSweepView(ctx.db, ctx.orgId, input.id, { capacity: input.capacity ?? null });
      if (!view) throw new NotFoundError("id", "sweep not found");
      return view;
    }),
  /** Parameter paths a sweep can vary for a target, scenario and instance config. */
  parameters: orgProcedure
    .input(z.object({ scenarioId: z.string().nullish(), instanceConfigId: z.string().nullish() }))
    .query(({ ctx, input }) => sweepParameters(ctx.db, ctx.orgId, input)),
  /** Create the sweep's runs and start the first; the worker runs the rest back to back. */
  create: memberProcedure.input(ZCreateSweepInput).mutation(async ({ ctx, input }) => {
    await enforceLaunchLimit(ctx);
    const { name, parameter, values, metric, ...launch } = input;
    const { sweep, runs } = await launchAsCaller(ctx, { ...launch, sweep: { name, parameter, values, metric } });
    return { id: sweep!.id, name: sweep!.name, runIds: runs.map((r) => r.id) };
  }),
  /** Stop the sweep: queued values are canceled, the running one stops and keeps its measurements. */
  cancel: memberProcedure
    .input(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => cancelSweep(ctx.db, ctx.orgId, input.id)),
});
