import {
  countActiveLoad,
  createProject,
  deleteProject,
  getProject,
  listProjects,
  NotFoundError,
  organizationCaps,
  setProjectBadges,
  updateProject,
} from "@benchboard/db";
import { z } from "zod";
import { memberProcedure, orgProcedure, ownerProcedure, router } from "../trpc";

export const ZCreateProjectInput = z.object({
  name: z.string().trim().min(1, "name is required").max(80, "name is at most 80 characters"),
  description: z.string().max(2_000, "description is at most 2,000 characters").optional(),
  /** Made from the name when left out. */
  slug: z
    .string()
    .max(48, "slug is at most 48 characters")
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "use lowercase letters, digits and single dashes")
    .optional(),
});
export type TCreateProjectInput = z.infer<typeof ZCreateProjectInput>;
export const ZUpdateProjectInput = ZCreateProjectInput.omit({ slug: true }).extend({ id: z.string().min(1) });
export const ZDeleteProjectInput = z.object({ id: z.string().min(1), confirmName: z.string() });

export const projectRouter = router({
  list: orgProcedure.query(({ ctx }) => listProjects(ctx.db, ctx.orgId)),
  byId: orgProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const project = await getProject(ctx.db, ctx.orgId, input.id);
    if (!project) throw new NotFoundError("id", "project not found");
    return project;
  }),
  /** The organization's caps on launched load (defaults filled in) and how many runs are active now. */
  caps: orgProcedure.query(async ({ ctx }) => {
    const caps = await organizationCaps(ctx.db, ctx.orgId);
    const active = await countActiveLoad(ctx.db, ctx.orgId);
    return { caps, activeRuns: active.runs, activeWorkerSlots: active.workerSlots };
  }),
  create: memberProcedure
    .input(ZCreateProjectInput)
    .mutation(({ ctx, input }) => createProject(ctx.db, ctx.orgId, input)),
  update: memberProcedure.input(ZUpdateProjectInput).mutation(({ ctx, input }) => {
    const { id, ...fields } = input;
    return updateProject(ctx.db, ctx.orgId, id, fields);
  }),
  /** Owners publish the project's status badges (read from its default branch) or take them back. */
  setBadges: ownerProcedure
    .input(
      z.object({
        id: z.string().min(1),
        badgesPublic: z.boolean(),
        defaultBranch: z.string().trim().min(1, "name the default branch").max(200).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      await setProjectBadges(ctx.db, ctx.orgId, input.id, input);
      return { ok: true };
    }),
  /** Deletes the project with its targets, configs, scenarios and runs; `confirmName` must match. */
  delete: memberProcedure
    .input(ZDeleteProjectInput)
    .mutation(({ ctx, input }) => deleteProject(ctx.db, ctx.orgId, input.id, input.confirmName)),
});
