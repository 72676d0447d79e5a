import { ZMetricKey, ZScenarioSpec, ZThreshold } from "@benchboard/core";
import {
  assertProjectInOrg,
  assertScenarioWithinCaps,
  ConflictError,
  createScenario,
  deleteScenario,
  getScenario,
  listScenarios,
  NotFoundError,
  updateScenario,
} from "@benchboard/db";
import { DrillImportError, importDrillPlanDetailed } from "@benchboard/loadgen/plan/drill";
import { z } from "zod";
import { withinLimits } from "../input-limits";
import { memberProcedure, orgProcedure, router } from "../trpc";

/** A threshold on a metric of the vocabulary (or a `stage.` / `custom.` key). */
export const ZScenarioThreshold = ZThreshold.extend({ metric: ZMetricKey });

const ZScenarioFields = z.object({
  name: z.string().trim().min(1, "name is required").max(120, "name is at most 120 characters"),
  // Request bodies may be large (the HTTP handler caps a request at 1 MB anyway); lists of items
  // as long as a drill plan's with_items_range may expand to.
  spec: ZScenarioSpec.superRefine(
    withinLimits({ maxText: 1_000_000, maxEntries: 1_000, entriesByKey: { withItems: 100_000 } }),
  ),
  thresholds: z.array(ZScenarioThreshold).max(50).default([]),
  description: z.string().max(2_000).optional(),
});

export const ZCreateScenarioInput = ZScenarioFields.extend({ projectId: z.string().min(1, "project is required") });
export type TCreateScenarioInput = z.infer<typeof ZCreateScenarioInput>;
export const ZUpdateScenarioInput = ZScenarioFields.extend({ id: z.string().min(1) });
export type TUpdateScenarioInput = z.infer<typeof ZUpdateScenarioInput>;
export const ZImportDrillInput = z.object({ yaml: z.string().min(1, "paste a drill plan").max(1_000_000) });

export const scenarioRouter = router({
  list: orgProcedure
    .input(z.object({ projectId: z.string().optional() }).optional())
    .query(({ ctx, input }) => listScenarios(ctx.db, ctx.orgId, input?.projectId)),
  byId: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const scenario = await getScenario(ctx.db, ctx.orgId, input.id);
    if (!scenario) throw new NotFoundError("id", "scenario not found");
    return scenario;
  }),
  create: memberProcedure.input(ZCreateScenarioInput).mutation(async ({ ctx, input }) => {
    await assertProjectInOrg(ctx.db, ctx.orgId, input.projectId);
    await assertScenarioWithinCaps(ctx.db, ctx.orgId, input.spec);
    return createScenario(ctx.db, ctx.orgId, input);
  }),
  update: memberProcedure.input(ZUpdateScenarioInput).mutation(async ({ ctx, input }) => {
    const { id, ...fields } = input;
    await assertScenarioWithinCaps(ctx.db, ctx.orgId, input.spec);
    return updateScenario(ctx.db, ctx.orgId, id, fields);
  }),
  delete: memberProcedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => deleteScenario(ctx.db, ctx.orgId, input.id)),
  /**
   * Turn a drill benchmark YAML into an http-closed spec for the form to show; nothing is saved
   * until the scenario is. The plan's `base` is dropped: the run's target takes its place.
   */
  importDrill: memberProcedure.input(ZImportDrillInput).mutation(({ input }) => {
    try {
      const imported = importDrillPlanDetailed(input.yaml);
      return { spec: imported.spec, base: imported.base, warnings: imported.warnings };
    } catch (err) {
      if (err instanceof DrillImportError) throw new ConflictError("yaml", err.message);
      throw err;
    }
  }),
});
