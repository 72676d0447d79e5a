import { z } from "zod";
import { orgProcedure, router } from "../trpc";

export const orgRouter = router({
  /** Organizations the caller can switch to, with the current one marked. */
  list: orgProcedure.query(async ({ ctx }) => {
    const orgs = await ctx.db.organization.findMany({
      where: ctx.userId ? { memberships: { some: { userId: ctx.userId } } } : {},
      orderBy: [{ demo: "asc" }, { createdAt: "asc" }],
      select: { id: true, name: true, slug: true, demo: true },
    });
    return orgs.map((o) => ({ ...o, current: o.id === ctx.orgId }));
  }),
  current: orgProcedure.input(z.void()).query(({ ctx }) =>
    ctx.db.organization.findUniqueOrThrow({
      where: { id: ctx.orgId },
      select: { id: true, name: true, slug: true, demo: true, caps: true },
    }),
  ),
});
