import { ZScenarioSpec, ZThreshold } from "@benchboard/core";
import { createScenario, listScenarios, NotFoundError } from "@benchboard/db";
import { z } from "zod";
import { memberProcedure, orgProcedure, router } from "../trpc";

export const ZCreateScenarioInput = z.object({
  projectId: z.string().min(1, "project is required"),
  name: z.string().trim().min(1, "name is required").max(120),
  spec: ZScenarioSpec,
  thresholds: z.array(ZThreshold).max(50).default([]),
  description: z.string().max(2_000).optional(),
});

export const scenarioRouter = router({
  list: orgProcedure
    .input(z.object({ projectId: z.string().optional() }).optional())
    .query(({ ctx, input }) => listScenarios(ctx.db, ctx.orgId, input?.projectId)),
  create: memberProcedure.input(ZCreateScenarioInput).mutation(async ({ ctx, input }) => {
    const project = await ctx.db.project.findFirst({ where: { orgId: ctx.orgId, id: input.projectId } });
    if (!project) throw new NotFoundError("projectId", "project not found");
    return createScenario(ctx.db, ctx.orgId, input);
  }),
});
