import {
  acceptInvitation,
  ConflictError,
  checkCredentials,
  checkPasswordReset,
  createSession,
  decoySignUp,
  deleteSession,
  emailRegistered,
  getInvitation,
  getSessionUser,
  installHasOwner,
  normalizeEmail,
  PASSWORD_RESET_TTL_MS,
  requestPasswordReset,
  resetPassword,
  signUp,
} from "@benchboard/db";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { installSettingsFor } from "../launch-safety";
import { createConsoleMailer, sendInBackground } from "../mail";
import { signInDelayS } from "../rate-limit";
import { enforceRateLimit, publicProcedure, router, userProcedure } from "../trpc";

const ZEmail = z.email({ pattern: z.regexes.unicodeEmail, error: "enter a valid email address" }).max(254);
const ZPassword = z.string().min(10, "use at least 10 characters").max(200, "use at most 200 characters");

export const ZSignUpInput = z.object({
  email: ZEmail,
  password: ZPassword,
  name: z.string().trim().max(80, "name is at most 80 characters").optional(),
  /** The token of the invitation link the account is made from: it joins that organization. */
  invitation: z.string().min(1).max(200).optional(),
  /** The install's first account only: the setup token scripts/up.sh printed. */
  setupToken: z.string().max(200).optional(),
});
export const ZSignInInput = z.object({ email: z.string().max(254), password: z.string().max(200) });
export const ZRequestPasswordResetInput = z.object({ email: ZEmail });
const ZResetToken = z.string().min(1, "the reset link has no token").max(200, "this reset link is not valid");
export const ZResetPasswordInput = z.object({ token: ZResetToken, password: ZPassword });

/** The one answer to a reset request, whether or not the email has an account. */
export const PASSWORD_RESET_SENT =
  "If an account exists for this email, a link to reset its password was sent. Check your inbox.";
const logMailer = createConsoleMailer();
/**
 * A reset request is answered this long after its database work began (or when the work ends,
 * if later): the same for any email. Well above the work's usual few milliseconds, short for a
 * form people send once.
 */
export const PASSWORD_RESET_ANSWER_MS = 150;

function resetMessage(to: string, link: string, ttlMs: number) {
  const minutes = Math.round(ttlMs / 60_000);
  return {
    to,
    subject: "Reset your Benchboard password",
    text: [
      "Someone (hopefully you) asked to reset the password of your Benchboard account.",
      "",
      `Open this link within ${minutes} minutes to choose a new password:`,
      link,
      "",
      "The link works once. If you did not ask for it, ignore this message: your password stays as it is.",
    ].join("\n"),
  };
}

export const authRouter = router({
  signUp: publicProcedure.input(ZSignUpInput).mutation(async ({ ctx, input }) => {
    await enforceRateLimit(ctx, `signup:${ctx.clientIp ?? "?"}`, 10, 3600, "sign-ups from this address");
    const install = await installSettingsFor(ctx);
    // An email that already has an account gets the answer a new one would (without a session):
    // sign-up does not tell who is registered. Closed sign-up refuses both alike.
    if (await emailRegistered(ctx.db, input.email)) {
      if (!install.signupOpen) {
        throw new ConflictError("email", "sign-up is closed on this install; ask an owner for an invitation");
      }
      return { ...(await decoySignUp(input)), orgSlug: null };
    }
    const { invitation, ...account } = input;
    const user = await signUp(ctx.db, { ...account, invitationToken: invitation }, install);
    const session = await createSession(ctx.db, user.id, ctx.userAgent);
    ctx.session?.set(session.token, session.expiresAt);
    // The slug of the organization the invitation joined: the client opens it.
    return { id: user.id, email: user.email, orgSlug: user.joinedOrg?.slug ?? null };
  }),
  signIn: publicProcedure.input(ZSignInInput).mutation(async ({ ctx, input }) => {
    const email = normalizeEmail(input.email);
    const ip = ctx.clientIp ?? "?";
    await enforceRateLimit(ctx, `signin:ip:${ip}`, 50, 900, "sign-in attempts from this address");
    // Guessing is slowed per address and account: an address that keeps failing on an account
    // waits longer and longer, while the owner, signing in from their own address, never waits
    // for someone else's failures (no lockout to turn against them).
    const pairKey = `signin:${ip}:${email}`;
    const limiter = ctx.rateLimit;
    if (limiter) {
      const { count, lastAt } = await limiter.failures(pairKey);
      const waitS = Math.ceil((lastAt + signInDelayS(count) * 1000 - Date.now()) / 1000);
      if (waitS > 0) {
        throw new TRPCError({
          code: "TOO_MANY_REQUESTS",
          message: `too many wrong passwords for this account from this address; try again in ${waitS} s`,
        });
      }
    }
    const user = await checkCredentials(ctx.db, email, input.password);
    if (!user) {
      await limiter?.recordFailure(pairKey, 24 * 3600);
      // Across all addresses an account's failures add a short, fixed pause to each wrong try.
      const accountFailures = (await limiter?.recordFailure(`signin:account:${email}`, 900)) ?? 0;
      if (accountFailures > 20) await new Promise((r) => setTimeout(r, Math.min(3_000, accountFailures * 50)));
      // One message for unknown email and wrong password: no account enumeration.
      throw new TRPCError({ code: "UNAUTHORIZED", message: "email or password is incorrect" });
    }
    await limiter?.clearFailures(pairKey);
    const session = await createSession(ctx.db, user.id, ctx.userAgent);
    ctx.session?.set(session.token, session.expiresAt);
    return { id: user.id, email: user.email };
  }),
  /**
   * Mail a password reset link. The answer, and the work done before it, are the same for any
   * email: whether an account exists is never said. The message is sent after answering.
   */
  requestPasswordReset: publicProcedure.input(ZRequestPasswordResetInput).mutation(async ({ ctx, input }) => {
    const email = normalizeEmail(input.email);
    await enforceRateLimit(
      ctx,
      `reset:ip:${ctx.clientIp ?? "?"}`,
      10,
      3600,
      "password reset requests from this address",
    );
    await enforceRateLimit(ctx, `reset:email:${email}`, 3, 3600, "password reset requests for this email");
    const ttlMs = ctx.passwordResetTtlMs ?? PASSWORD_RESET_TTL_MS;
    const started = performance.now();
    const reset = await requestPasswordReset(ctx.db, email, { ttlMs });
    if (reset) {
      const link = `${(ctx.publicUrl ?? "").replace(/\/+$/, "")}/reset-password/${encodeURIComponent(reset.token)}`;
      sendInBackground(ctx.mailer ?? logMailer, resetMessage(reset.email, link, ttlMs));
    }
    // A registered email's request writes a row (a commit that waits for the WAL flush), an
    // unknown one's writes nothing; answering no sooner than a fixed time after the work began
    // takes that difference out of the answer's timing.
    const wait = PASSWORD_RESET_ANSWER_MS - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return { message: PASSWORD_RESET_SENT };
  }),
  /** Whether a reset link still works, and why not (the reset page asks before showing its form). */
  passwordReset: publicProcedure
    .input(z.object({ token: ZResetToken }))
    .query(({ ctx, input }) => checkPasswordReset(ctx.db, input.token)),
  /**
   * Set a new password with a reset link: the link is spent, every session of the account ends,
   * and this browser is signed in with a new one.
   */
  resetPassword: publicProcedure.input(ZResetPasswordInput).mutation(async ({ ctx, input }) => {
    await enforceRateLimit(ctx, `reset:use:${ctx.clientIp ?? "?"}`, 20, 900, "password resets from this address");
    const user = await resetPassword(ctx.db, input.token, input.password);
    const session = await createSession(ctx.db, user.userId, ctx.userAgent);
    ctx.session?.set(session.token, session.expiresAt);
    return { email: user.email };
  }),
  signOut: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.session?.token) await deleteSession(ctx.db, ctx.session.token);
    ctx.session?.clear();
    return { ok: true };
  }),
  /** The signed-in user, or null. */
  /** What the sign-in page may say about sign-up: whether the first account (the owner) exists. */
  installState: publicProcedure.query(async ({ ctx }) => ({ hasOwner: await installHasOwner(ctx.db) })),
  me: publicProcedure.query(async ({ ctx }) => {
    if (!ctx.userId) return null;
    const found = await getSessionUser(ctx.db, ctx.session?.token ?? null);
    if (!found) return null;
    return { ...found.user, currentOrgId: ctx.orgId, role: ctx.role };
  }),
  invitation: publicProcedure.input(z.object({ token: z.string().max(200) })).query(async ({ ctx, input }) => {
    const inv = await getInvitation(ctx.db, input.token);
    if (!inv) throw new TRPCError({ code: "NOT_FOUND", message: "this invitation is invalid, used or expired" });
    return { email: inv.email, role: inv.role, orgName: inv.org.name, expiresAt: inv.expiresAt };
  }),
  acceptInvitation: userProcedure.input(z.object({ token: z.string().max(200) })).mutation(async ({ ctx, input }) => {
    const org = await acceptInvitation(ctx.db, input.token, ctx.userId);
    return { orgId: org.id, orgSlug: org.slug };
  }),
});
