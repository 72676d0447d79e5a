import {
  changeMemberRole,
  createInvitation,
  listInvitations,
  listMembers,
  organizationName,
  removeMember,
  revokeInvitation,
} from "@benchboard/db";
import { z } from "zod";
import type { Mailer } from "../mail";
import { type Context, memberProcedure, ownerProcedure, router } from "../trpc";

const ZRole = z.enum(["owner", "member", "viewer"]);
export const ZInviteInput = z.object({
  email: z.email({ pattern: z.regexes.unicodeEmail, error: "enter a valid email address" }).max(254),
  role: ZRole,
});

/**
 * Invitation emails one organization may have the install send an hour: invitations go to
 * addresses the owner types, through the operator's mail server, so they are bounded like every
 * other message a tenant can cause. Beyond it the invitation is made and the owner sends the link.
 */
export const INVITATION_EMAILS_PER_HOUR = 20;

/** Whether the invitation went out by email, and if not, why (the owner then sends the link). */
export interface InvitationEmail {
  sent: boolean;
  reason: string | null;
}

function invitationMessage(to: string, link: string, org: string, role: string, expiresAt: Date) {
  return {
    to,
    subject: `You are invited to ${org} on Benchboard`.replace(/[\r\n]+/g, " ").slice(0, 200),
    text: [
      `You are invited to join ${org} on Benchboard as ${role === "owner" ? "an owner" : `a ${role}`}.`,
      "",
      "Open this link to accept (it works once, for this email address):",
      link,
      "",
      `It expires on ${expiresAt.toISOString().slice(0, 10)}. If you did not expect it, ignore this message.`,
    ].join("\n"),
  };
}

/**
 * Mail the invitation link when the install has mail (its SMTP server, or the mail file in
 * development) and a public URL for the link; otherwise say why not, and the owner sends the
 * link. Waited for, so the answer tells the owner whether the message left.
 */
async function mailInvitation(
  ctx: Context & { orgId: string },
  invitation: { email: string; role: string; expiresAt: Date },
  path: string,
): Promise<InvitationEmail> {
  const mailer: Mailer | null | undefined = ctx.mailer;
  if (!mailer || mailer.kind === "console") {
    return { sent: false, reason: "mail is not set up on this install (BENCHBOARD_SMTP_URL): send the link yourself" };
  }
  const base = (ctx.publicUrl ?? "").replace(/\/+$/, "");
  if (!base) {
    return {
      sent: false,
      reason: "the install has no public URL (BENCHBOARD_PUBLIC_URL) for the link: send it yourself",
    };
  }
  if (ctx.rateLimit) {
    const { allowed, retryAfterS } = await ctx.rateLimit
      .hit(`invitation-email:${ctx.orgId}`, INVITATION_EMAILS_PER_HOUR, 3600)
      .catch(() => ({ allowed: false, retryAfterS: 60 }));
    if (!allowed) {
      return {
        sent: false,
        reason: `this organization sent ${INVITATION_EMAILS_PER_HOUR} invitation emails in the last hour (more in ${retryAfterS} s): send the link yourself`,
      };
    }
  }
  const org = await organizationName(ctx.db, ctx.orgId);
  try {
    await mailer.send(
      invitationMessage(invitation.email, `${base}${path}`, org, invitation.role, invitation.expiresAt),
    );
    return { sent: true, reason: null };
  } catch (err) {
    return { sent: false, reason: `${(err as Error).message}: send the link yourself` };
  }
}

export const memberRouter = router({
  // Owners and members see who else is in the organization; viewers (and every account reading
  // a demo organization's published benchmarks) do not.
  list: memberProcedure.query(({ ctx }) => listMembers(ctx.db, ctx.orgId)),
  invite: ownerProcedure.input(ZInviteInput).mutation(async ({ ctx, input }) => {
    const { invitation, token } = await createInvitation(ctx.db, ctx.orgId, { ...input, invitedById: ctx.userId });
    // The link is returned once, to the owner (who sends it when it could not be mailed); only
    // its hash is stored.
    const path = `/invite/${token}`;
    const email = await mailInvitation(ctx, invitation, path);
    return { invitation, path, email };
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
