import { createProject, getProject, listProjects, NotFoundError } from "@benchboard/db";
import { z } from "zod";
import { memberProcedure, orgProcedure, router } from "../trpc";

export const ZCreateProjectInput = z.object({
  name: z.string().trim().min(1, "name is required").max(80, "name is at most 80 characters"),
  description: z.string().max(2_000).optional(),
});

export const projectRouter = router({
  list: orgProcedure.query(({ ctx }) => listProjects(ctx.db, ctx.orgId)),
  byId: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const project = await getProject(ctx.db, ctx.orgId, input.id);
    if (!project) throw new NotFoundError("id", "project not found");
    return project;
  }),
  create: memberProcedure
    .input(ZCreateProjectInput)
    .mutation(({ ctx, input }) => createProject(ctx.db, ctx.orgId, input)),
});
