import { hashPassword } from "../auth/password";
import { hashToken, newToken } from "../auth/tokens";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { normalizeEmail } from "./auth";

/** How long a reset link works unless the install says otherwise (BENCHBOARD_PASSWORD_RESET_TTL_MIN). */
export const PASSWORD_RESET_TTL_MS = 30 * 60 * 1000;

/** A user id no row has: the unknown-email path writes against it so both paths do the same work. */
const NO_USER = "~no-account~";

/**
 * Ask for a reset link. For an account, a new token is stored (only its hash) and every older
 * link of that account is void from now on; for an unknown email the same statements run and
 * match nothing. The caller answers alike either way and mails the token only when one came back.
 */
export async function requestPasswordReset(
  db: Db,
  emailInput: string,
  options: { ttlMs?: number } = {},
): Promise<{ token: string; email: string; expiresAt: Date } | null> {
  const email = normalizeEmail(emailInput);
  const token = newToken();
  const tokenHash = hashToken(token);
  const expiresAt = new Date(Date.now() + (options.ttlMs ?? PASSWORD_RESET_TTL_MS));
  const user = await db.user.findUnique({ where: { email }, select: { id: true, email: true } });
  const userId = user?.id ?? NO_USER;
  await db.$transaction(async (tx) => {
    await tx.passwordReset.updateMany({
      where: { userId, usedAt: null, supersededAt: null },
      data: { supersededAt: new Date() },
    });
    if (user) await tx.passwordReset.create({ data: { tokenHash, userId, expiresAt } });
    else await tx.passwordReset.count({ where: { tokenHash } });
  });
  return user ? { token, email: user.email, expiresAt } : null;
}

/** Why a reset link no longer works, said to its holder (a link names no account). */
async function usableReset(db: Pick<Db, "passwordReset">, token: string) {
  const reset = await db.passwordReset.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, userId: true, expiresAt: true, usedAt: true, supersededAt: true },
  });
  if (!reset) throw new NotFoundError("token", "this reset link is not valid; ask for a new one");
  if (reset.usedAt) throw new ConflictError("token", "this reset link was already used; ask for a new one");
  if (reset.supersededAt) {
    throw new ConflictError("token", "a newer reset link was sent since this one; use the link in the latest email");
  }
  if (reset.expiresAt <= new Date()) throw new ConflictError("token", "this reset link has expired; ask for a new one");
  return reset;
}

/** Whether a reset link still works (the reset page says so before asking for a password). */
export async function checkPasswordReset(db: Db, token: string): Promise<{ expiresAt: Date }> {
  const reset = await usableReset(db, token);
  return { expiresAt: reset.expiresAt };
}

/**
 * Set a new password with a reset link. The link is spent, every other link of the account is
 * void, and every session of the account ends (whoever knew the old password is signed out);
 * the caller then signs the user in with a new session. Two uses of one link at once: one wins.
 */
export async function resetPassword(
  db: Db,
  token: string,
  password: string,
): Promise<{ userId: string; email: string }> {
  const reset = await usableReset(db, token);
  const passwordHash = await hashPassword(password);
  return db.$transaction(async (tx) => {
    const now = new Date();
    const spent = await tx.passwordReset.updateMany({
      where: { id: reset.id, usedAt: null, supersededAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (spent.count !== 1) {
      // Taken between the check and now: say why, as the check would.
      await usableReset(tx, token);
      throw new ConflictError("token", "this reset link was already used; ask for a new one");
    }
    await tx.passwordReset.updateMany({
      where: { userId: reset.userId, usedAt: null, supersededAt: null },
      data: { supersededAt: now },
    });
    const user = await tx.user.update({
      where: { id: reset.userId },
      data: { passwordHash },
      select: { id: true, email: true },
    });
    await tx.session.deleteMany({ where: { userId: reset.userId } });
    return { userId: user.id, email: user.email };
  });
}
