import {
  acceptInvitation,
  ConflictError,
  checkCredentials,
  checkPasswordReset,
  confirmSignUp,
  createSession,
  deleteSession,
  getInvitation,
  getSessionUser,
  installHasOwner,
  normalizeEmail,
  PASSWORD_RESET_TTL_MS,
  requestPasswordReset,
  requestSignUp,
  resetPassword,
  SIGN_UP_CLOSED,
  SIGN_UP_CONFIRMATION_TTL_MS,
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
export const ZConfirmSignUpInput = z.object({
  token: z.string().min(1, "the confirmation link has no token").max(200, "this confirmation link is not valid"),
});
export const ZRequestPasswordResetInput = z.object({ email: ZEmail });
const ZResetToken = z.string().min(1, "the reset link has no token").max(200, "this reset link is not valid");
export const ZResetPasswordInput = z.object({ token: ZResetToken, password: ZPassword });

/** The one answer to an ordinary sign-up, whether or not the email has an account. */
export const SIGN_UP_CHECK_INBOX =
  "Check your inbox: we sent a link to this email. Open it to finish creating your account.";
/**
 * An ordinary sign-up is answered this long after its work began (or when the work ends, if
 * later). Both paths already do the same work (a password hash and a row); the floor takes out
 * what is left of a difference, as for reset requests.
 */
export const SIGN_UP_ANSWER_MS = 400;

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

function confirmMessage(to: string, link: string) {
  return {
    to,
    subject: "Confirm your Benchboard account",
    text: [
      "Someone (hopefully you) created a Benchboard account with this email.",
      "",
      `Open this link within ${Math.round(SIGN_UP_CONFIRMATION_TTL_MS / 3_600_000)} hours to confirm it and sign in:`,
      link,
      "",
      "If it was not you, ignore this message: no account is made.",
    ].join("\n"),
  };
}

function alreadyRegisteredMessage(to: string, base: string) {
  return {
    to,
    subject: "Your Benchboard account",
    text: [
      "Someone (hopefully you) tried to create a Benchboard account with this email, which already has one.",
      "",
      `Sign in: ${base}/sign-in`,
      `Forgot the password? Ask for a new one: ${base}/forgot-password`,
      "",
      "If it was not you, ignore this message: nothing changed.",
    ].join("\n"),
  };
}

const linkBase = (ctx: { publicUrl?: string | null }) => (ctx.publicUrl ?? "").replace(/\/+$/, "");

export const authRouter = router({
  /**
   * Create an account. The install's first account (with the setup token) and an account made
   * from an invitation link are signed in at once: the token or link is their proof. Any other
   * sign-up is confirmed by a mailed link, and its answer is the same (words, shape, no cookie,
   * timing) whether or not the email already has an account: who is registered is never said.
   */
  signUp: publicProcedure.input(ZSignUpInput).mutation(async ({ ctx, input }) => {
    const install = await installSettingsFor(ctx);
    const email = normalizeEmail(input.email);
    const ip = ctx.clientIp ?? "?";
    // An invitee's sign-up is not held up by others' sign-ups from their address (an office, a
    // NAT): a valid invitation for this very email is the permission. Anything else counts.
    const invitation = input.invitation ? await getInvitation(ctx.db, input.invitation) : null;
    if (!invitation || invitation.email !== email) {
      await enforceRateLimit(ctx, `signup:${ip}`, 10, 3600, "sign-ups from this address");
    }
    if (input.invitation || !(await installHasOwner(ctx.db))) {
      const { invitation: invitationToken, ...account } = input;
      const user = await signUp(ctx.db, { ...account, invitationToken }, install);
      const session = await createSession(ctx.db, user.id, ctx.userAgent);
      ctx.session?.set(session.token, session.expiresAt);
      // The slug of the organization the invitation joined: the client opens it.
      return { signedIn: true as const, email: user.email, orgSlug: user.joinedOrg?.slug ?? null, message: null };
    }
    // Closed: only invitation links make accounts (a pending invitation without its link does not).
    if (!install.signupOpen) throw new ConflictError("email", SIGN_UP_CLOSED);
    // Mails to one inbox from one address are bounded, as for reset requests.
    await enforceRateLimit(ctx, `signup:email:${ip}:${email}`, 3, 3600, "sign-ups for this email from this address");
    const started = performance.now();
    const pending = await requestSignUp(ctx.db, { email, password: input.password, name: input.name });
    const base = linkBase(ctx);
    sendInBackground(
      ctx.mailer ?? logMailer,
      pending.registered
        ? alreadyRegisteredMessage(pending.email, base)
        : confirmMessage(pending.email, `${base}/confirm-sign-up/${encodeURIComponent(pending.token)}`),
    );
    const wait = SIGN_UP_ANSWER_MS - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return { signedIn: false as const, email: pending.email, orgSlug: null, message: SIGN_UP_CHECK_INBOX };
  }),
  /** Finish a sign-up with its mailed link: the account is made and this browser signed in. */
  confirmSignUp: publicProcedure.input(ZConfirmSignUpInput).mutation(async ({ ctx, input }) => {
    await enforceRateLimit(ctx, `signup:confirm:${ctx.clientIp ?? "?"}`, 20, 900, "confirmations from this address");
    const user = await confirmSignUp(ctx.db, input.token, await installSettingsFor(ctx));
    const session = await createSession(ctx.db, user.id, ctx.userAgent);
    ctx.session?.set(session.token, session.expiresAt);
    return { email: user.email };
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
    // Per email from this address, not per email alone: others' requests for an account never
    // stop its owner from asking for a link (and the newest link is the one that works).
    await enforceRateLimit(
      ctx,
      `reset:email:${ctx.clientIp ?? "?"}:${email}`,
      3,
      3600,
      "password reset requests for this email from this address",
    );
    const ttlMs = ctx.passwordResetTtlMs ?? PASSWORD_RESET_TTL_MS;
    const started = performance.now();
    const reset = await requestPasswordReset(ctx.db, email, { ttlMs });
    if (reset) {
      const link = `${linkBase(ctx)}/reset-password/${encodeURIComponent(reset.token)}`;
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
