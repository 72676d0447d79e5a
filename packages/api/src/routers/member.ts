import {
  changeMemberRole,
  createInvitation,
  listInvitations,
  listMembers,
  removeMember,
  revokeInvitation,
} from "@benchboard/db";
import { z } from "zod";
import { memberProcedure, ownerProcedure, router } from "../trpc";

const ZRole = z.enum(["owner", "member", "viewer"]);
export const ZInviteInput = z.object({
  email: z.email({ pattern: z.regexes.unicodeEmail, error: "enter a valid email address" }).max(254),
  role: ZRole,
});

export const memberRouter = router({
  // Owners and members see who else is in the organization; viewers (and every account reading
  // a demo organization's published benchmarks) do not.
  list: memberProcedure.query(({ ctx }) => listMembers(ctx.db, ctx.orgId)),
  invite: ownerProcedure.input(ZInviteInput).mutation(async ({ ctx, input }) => {
    const { invitation, token } = await createInvitation(ctx.db, ctx.orgId, { ...input, invitedById: ctx.userId });
    // The link is returned once, to the owner who sends it; only its hash is stored.
    return { invitation, path: `/invite/${token}` };
  }),
  invitations: ownerProcedure.query(({ ctx }) => listInvitations(ctx.db, ctx.orgId)),
  revokeInvitation: ownerProcedure.input(z.object({ id: z.string() })).mutation(async ({ ctx, input }) => {
    await revokeInvitation(ctx.db, ctx.orgId, input.id);
    return { ok: true };
  }),
  updateRole: ownerProcedure
    .input(z.object({ id: z.string(), role: ZRole }))
    .mutation(({ ctx, input }) => changeMemberRole(ctx.db, ctx.orgId, input.id, input.role)),
  remove: ownerProcedure.input(z.object({ id: z.string() })).mutation(async ({ ctx, input }) => {
    await removeMember(ctx.db, ctx.orgId, input.id);
    return { ok: true };
  }),
});
