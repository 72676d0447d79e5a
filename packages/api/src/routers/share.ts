import { createShareLink, listShareLinks, resolveShareLink, revokeShareLink } from "@benchboard/db";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { enforceRateLimit, memberProcedure, publicProcedure, router } from "../trpc";

const ZShareTarget = z
  .object({ runId: z.string().min(1).optional(), comparisonId: z.string().min(1).optional() })
  .refine((t) => Boolean(t.runId) !== Boolean(t.comparisonId), {
    message: "share either a run or a comparison",
    path: ["runId"],
  });

export const ZCreateShareLinkInput = z
  .object({
    runId: z.string().min(1).optional(),
    comparisonId: z.string().min(1).optional(),
    /** Days until the link stops working; none means it works until revoked. */
    expiresInDays: z.number().int().min(1, "at least 1 day").max(365, "at most 365 days").nullish(),
  })
  .refine((t) => Boolean(t.runId) !== Boolean(t.comparisonId), {
    message: "share either a run or a comparison",
    path: ["runId"],
  });
export type TCreateShareLinkInput = z.infer<typeof ZCreateShareLinkInput>;

export const ZShareTokenInput = z.object({ token: z.string().max(200) });

export const shareRouter = router({
  /** The links carry the public token, so only those who may make links may list them. */
  list: memberProcedure.input(ZShareTarget).query(({ ctx, input }) => listShareLinks(ctx.db, ctx.orgId, input)),
  create: memberProcedure.input(ZCreateShareLinkInput).mutation(({ ctx, input }) =>
    createShareLink(ctx.db, ctx.orgId, {
      runId: input.runId,
      comparisonId: input.comparisonId,
      expiresAt: input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000) : null,
      createdById: ctx.userId,
    }),
  ),
  revoke: memberProcedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => revokeShareLink(ctx.db, ctx.orgId, input.id)),
  /**
   * The public page behind a link. Takes only the token and uses no organization: unknown,
   * revoked and expired tokens all answer the same NOT_FOUND.
   */
  view: publicProcedure.input(ZShareTokenInput).query(async ({ ctx, input }) => {
    await enforceRateLimit(ctx, `share-view:${ctx.clientIp ?? "?"}`, 120, 60, "share page views from this address");
    const shared = await resolveShareLink(ctx.db, input.token);
    if (!shared) throw new TRPCError({ code: "NOT_FOUND", message: "not found" });
    return shared;
  }),
});
