import { ZMonitorConfig } from "@benchboard/core";
import { createTarget, getTarget, listTargets, NotFoundError } from "@benchboard/db";
import { z } from "zod";
import { memberProcedure, orgProcedure, router } from "../trpc";

const ZHttpUrl = z
  .string()
  .trim()
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), "must be an http:// or https:// URL");

export const ZCreateTargetInput = z.object({
  projectId: z.string().min(1, "project is required"),
  name: z.string().trim().min(1, "name is required").max(80),
  kind: z.enum(["http", "llm", "ws_chat"]),
  baseUrl: ZHttpUrl,
  headers: z
    .array(z.object({ name: z.string().trim().min(1).max(200), value: z.string().max(8_000) }))
    .max(50)
    .default([]),
  monitors: z.array(ZMonitorConfig).max(10).default([]),
  configApplyUrl: ZHttpUrl.nullish(),
});

export const targetRouter = router({
  list: orgProcedure
    .input(z.object({ projectId: z.string().optional() }).optional())
    .query(({ ctx, input }) => listTargets(ctx.db, ctx.orgId, input?.projectId)),
  byId: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const target = await getTarget(ctx.db, ctx.orgId, input.id);
    if (!target) throw new NotFoundError("id", "target not found");
    return target;
  }),
  create: memberProcedure.input(ZCreateTargetInput).mutation(async ({ ctx, input }) => {
    const project = await ctx.db.project.findFirst({ where: { orgId: ctx.orgId, id: input.projectId } });
    if (!project) throw new NotFoundError("projectId", "project not found");
    return createTarget(ctx.db, ctx.orgId, input);
  }),
});
