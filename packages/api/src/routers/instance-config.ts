import { ZConfigName, ZInstanceConfigFields } from "@benchboard/core";
import {
  assertProjectInOrg,
  cloneInstanceConfig,
  createInstanceConfig,
  deleteInstanceConfig,
  getInstanceConfig,
  listInstanceConfigs,
  NotFoundError,
  updateInstanceConfig,
} from "@benchboard/db";
import { z } from "zod";
import { memberProcedure, orgProcedure, router } from "../trpc";

export const ZCreateInstanceConfigInput = ZInstanceConfigFields.extend({
  projectId: z.string().min(1, "project is required"),
});
export type TCreateInstanceConfigInput = z.infer<typeof ZCreateInstanceConfigInput>;
export const ZUpdateInstanceConfigInput = ZInstanceConfigFields.extend({ id: z.string().min(1) });
export type TUpdateInstanceConfigInput = z.infer<typeof ZUpdateInstanceConfigInput>;
export const ZCloneInstanceConfigInput = z.object({ id: z.string().min(1), name: ZConfigName });

export const instanceConfigRouter = router({
  list: orgProcedure
    .input(z.object({ projectId: z.string().optional() }).optional())
    .query(({ ctx, input }) => listInstanceConfigs(ctx.db, ctx.orgId, input?.projectId)),
  byId: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const config = await getInstanceConfig(ctx.db, ctx.orgId, input.id);
    if (!config) throw new NotFoundError("id", "instance config not found");
    return config;
  }),
  create: memberProcedure.input(ZCreateInstanceConfigInput).mutation(async ({ ctx, input }) => {
    await assertProjectInOrg(ctx.db, ctx.orgId, input.projectId);
    return createInstanceConfig(ctx.db, ctx.orgId, input);
  }),
  update: memberProcedure.input(ZUpdateInstanceConfigInput).mutation(({ ctx, input }) => {
    const { id, ...fields } = input;
    return updateInstanceConfig(ctx.db, ctx.orgId, id, fields);
  }),
  /** A variant of a config under a new name (e.g. to change one knob). */
  clone: memberProcedure
    .input(ZCloneInstanceConfigInput)
    .mutation(({ ctx, input }) => cloneInstanceConfig(ctx.db, ctx.orgId, input.id, input.name)),
  delete: memberProcedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => deleteInstanceConfig(ctx.db, ctx.orgId, input.id)),
});
