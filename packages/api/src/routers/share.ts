import { createShareLink, DEFAULT_SHARE_DAYS, listShareLinks, resolveShareLink, revokeShareLink } from "@benchboard/db";
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
    /** Days until the link stops working: 30 when left out; null means it works until revoked. */
    expiresInDays: z.number().int().min(1, "at least 1 day").max(365, "at most 365 days").nullable().optional(),
    /** Show the target's URL, hostnames and the full scenario (hidden by default). */
    includeTarget: z.boolean().default(false),
  })
  .refine((t) => Boolean(t.runId) !== Boolean(t.comparisonId), {
    message: "share either a run or a comparison",
    path: ["runId"],
  });
export type TCreateShareLinkInput = z.infer<typeof ZCreateShareLinkInput>;

function expiryFor(days: number | null | undefined): Date | null {
  if (days === null) return null;
  return new Date(Date.now() + (days ?? DEFAULT_SHARE_DAYS) * 86_400_000);
}

export const ZShareTokenInput = z.object({ token: z.string().max(200) });

export const shareRouter = router({
  /** Links are listed without their token (only its hash is stored), by those who may make them. */
  list: memberProcedure.input(ZShareTarget).query(({ ctx, input }) => listShareLinks(ctx.db, ctx.orgId, input)),
  create: memberProcedure.input(ZCreateShareLinkInput).mutation(({ ctx, input }) =>
    createShareLink(ctx.db, ctx.orgId, {
      runId: input.runId,
      comparisonId: input.comparisonId,
      expiresAt: expiryFor(input.expiresInDays),
      includeTarget: input.includeTarget,
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
