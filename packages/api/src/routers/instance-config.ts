import { createInstanceConfig, listInstanceConfigs, NotFoundError } from "@benchboard/db";
import { z } from "zod";
import { memberProcedure, orgProcedure, router } from "../trpc";

export const ZCreateInstanceConfigInput = z.object({
  projectId: z.string().min(1, "project is required"),
  name: z.string().trim().min(1, "name is required").max(80),
  instanceType: z.string().trim().max(80).nullish(),
  vcpu: z.number().positive().max(1024).nullish(),
  memoryMb: z.number().int().positive().max(16_777_216).nullish(),
  cpuLimit: z.number().positive().max(1024).nullish(),
  replicas: z.number().int().min(1).max(1000).default(1),
  knobs: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, "knob names: letters, digits, _ . -"),
      z.union([z.string(), z.number(), z.boolean()]),
    )
    .default({}),
});

export const instanceConfigRouter = router({
  list: orgProcedure
    .input(z.object({ projectId: z.string().optional() }).optional())
    .query(({ ctx, input }) => listInstanceConfigs(ctx.db, ctx.orgId, input?.projectId)),
  create: memberProcedure.input(ZCreateInstanceConfigInput).mutation(async ({ ctx, input }) => {
    const project = await ctx.db.project.findFirst({ where: { orgId: ctx.orgId, id: input.projectId } });
    if (!project) throw new NotFoundError("projectId", "project not found");
    return createInstanceConfig(ctx.db, ctx.orgId, input);
  }),
});
