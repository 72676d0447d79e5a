import {
  findRunOrganizationForUser,
  getOrganization,
  listCallerOrganizations,
  renameOrganization,
} from "@benchboard/db";
import { z } from "zod";
import { orgProcedure, ownerProcedure, router, userProcedure } from "../trpc";

/**
 * What an organization's owner may change about it. Which addresses may be targets is not here:
 * only the operator decides that, install-wide (see routers/install.ts).
 */
export const ZUpdateOrgInput = z
  .object({
    name: z.string().trim().min(1, "name is required").max(80).optional(),
  })
  .strict();

export const orgRouter = router({
  /** Organizations the caller belongs to, then demo organizations (read-only), the current one marked. */
  list: userProcedure.query(async ({ ctx }) => {
    const orgs = await listCallerOrganizations(ctx.db, ctx.userId);
    return orgs
      .map((o) => ({
        id: o.orgId,
        name: o.org.name,
        slug: o.org.slug,
        demo: o.org.demo,
        createdAt: o.createdAt,
        role: o.role,
        current: o.orgId === ctx.orgId,
      }))
      .sort((a, b) => Number(a.demo) - Number(b.demo) || a.createdAt.getTime() - b.createdAt.getTime());
  }),
  current: orgProcedure.query(({ ctx }) => getOrganization(ctx.db, ctx.orgId)),
  update: ownerProcedure
    .input(ZUpdateOrgInput)
    .mutation(({ ctx, input }) => renameOrganization(ctx.db, ctx.orgId, input)),
  /**
   * Where a run lives, when that is another organization the caller belongs to (a teammate's link
   * opened while looking at another organization). Null otherwise, whether or not the run exists.
   */
  forRun: userProcedure.input(z.object({ runId: z.string().min(1).max(64) })).query(async ({ ctx, input }) => {
    const org = await findRunOrganizationForUser(ctx.db, ctx.userId, input.runId);
    return org && org.id !== ctx.orgId ? org : null;
  }),
});
