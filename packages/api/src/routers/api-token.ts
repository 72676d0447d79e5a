import { API_TOKEN_SCOPES, createApiToken, findApiTokenCreator, listApiTokens, revokeApiToken } from "@benchboard/db";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { memberProcedure, router } from "../trpc";

export const ZCreateApiTokenInput = z.object({
  name: z.string().trim().min(1, "name is required").max(80),
  projectId: z.string().nullish(),
  scopes: z
    .array(z.enum(API_TOKEN_SCOPES))
    .min(1, "choose at least one scope")
    .max(API_TOKEN_SCOPES.length, `at most ${API_TOKEN_SCOPES.length} scopes`)
    .refine((scopes) => new Set(scopes).size === scopes.length, "each scope at most once")
    .default(["runs:read", "runs:write"]),
  expiresInDays: z.number().int().min(1).max(3650).nullish(),
});

export const apiTokenRouter = router({
  list: memberProcedure.query(({ ctx }) => listApiTokens(ctx.db, ctx.orgId)),
  create: memberProcedure.input(ZCreateApiTokenInput).mutation(async ({ ctx, input }) => {
    const { token, record } = await createApiToken(ctx.db, ctx.orgId, {
      name: input.name,
      projectId: input.projectId ?? null,
      scopes: input.scopes,
      createdById: ctx.userId,
      expiresAt: input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000) : null,
    });
    // Shown once; only the hash is stored.
    return { token, record };
  }),
  /** A member revokes the tokens they created; an owner any token of the organization. */
  revoke: memberProcedure.input(z.object({ id: z.string() })).mutation(async ({ ctx, input }) => {
    if (ctx.role !== "owner") {
      const token = await findApiTokenCreator(ctx.db, ctx.orgId, input.id);
      if (token && token.createdById !== ctx.userId) {
        throw new TRPCError({
          code: "FORBIDDEN",
          message: "only the member who created a token, or an owner, can revoke it",
        });
      }
    }
    await revokeApiToken(ctx.db, ctx.orgId, input.id);
    return { ok: true };
  }),
});
