import { ConflictError, createInvitation, NotFoundError } from "@benchboard/db";
import { z } from "zod";
import { orgProcedure, ownerProcedure, router } from "../trpc";

const ZRole = z.enum(["owner", "member", "viewer"]);
export const ZInviteInput = z.object({
  email: z.email({ pattern: z.regexes.unicodeEmail, error: "enter a valid email address" }).max(254),
  role: ZRole,
});

async function assertNotLastOwner(ctx: { db: import("@benchboard/db").Db; orgId: string }, membershipId: string) {
  const m = await ctx.db.membership.findFirst({ where: { id: membershipId, orgId: ctx.orgId } });
  if (!m) throw new NotFoundError("id", "member not found");
  if (m.role === "owner") {
    const owners = await ctx.db.membership.count({ where: { orgId: ctx.orgId, role: "owner" } });
    if (owners <= 1) throw new ConflictError("role", "an organization needs at least one owner");
  }
  return m;
}

export const memberRouter = router({
  list: orgProcedure.query(({ ctx }) =>
    ctx.db.membership.findMany({
      where: { orgId: ctx.orgId },
      orderBy: { createdAt: "asc" },
      select: { id: true, role: true, createdAt: true, user: { select: { id: true, email: true, name: true } } },
    }),
  ),
  invite: ownerProcedure.input(ZInviteInput).mutation(async ({ ctx, input }) => {
    const { invitation, token } = await createInvitation(ctx.db, ctx.orgId, { ...input, invitedById: ctx.userId });
    // The link is returned once, to the owner who sends it; only its hash is stored.
    return { invitation, path: `/invite/${token}` };
  }),
  invitations: ownerProcedure.query(({ ctx }) =>
    ctx.db.invitation.findMany({
      where: { orgId: ctx.orgId, acceptedAt: null, expiresAt: { gt: new Date() } },
      select: { id: true, email: true, role: true, expiresAt: true, createdAt: true },
      orderBy: { createdAt: "desc" },
    }),
  ),
  revokeInvitation: ownerProcedure.input(z.object({ id: z.string() })).mutation(async ({ ctx, input }) => {
    const { count } = await ctx.db.invitation.deleteMany({
      where: { id: input.id, orgId: ctx.orgId, acceptedAt: null },
    });
    if (!count) throw new NotFoundError("id", "invitation not found");
    return { ok: true };
  }),
  updateRole: ownerProcedure.input(z.object({ id: z.string(), role: ZRole })).mutation(async ({ ctx, input }) => {
    const m = await assertNotLastOwner(ctx, input.id);
    if (m.role === "owner" && input.role === "owner") return m;
    return ctx.db.membership.update({ where: { id: m.id }, data: { role: input.role } });
  }),
  remove: ownerProcedure.input(z.object({ id: z.string() })).mutation(async ({ ctx, input }) => {
    const m = await assertNotLastOwner(ctx, input.id);
    // Their API tokens stop working with the membership (verifyApiToken checks it too); revoking
    // them here also shows it in the token list.
    await ctx.db.$transaction([
      ctx.db.membership.delete({ where: { id: m.id } }),
      ctx.db.apiToken.updateMany({
        where: { orgId: ctx.orgId, createdById: m.userId, revokedAt: null },
        data: { revokedAt: new Date() },
      }),
    ]);
    return { ok: true };
  }),
});
