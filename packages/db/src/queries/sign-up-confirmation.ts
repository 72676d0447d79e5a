import type { InstallSettings } from "@benchboard/core";
import { hashPassword } from "../auth/password";
import { hashToken, newToken } from "../auth/tokens";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { normalizeEmail, signUp } from "./auth";

/** How long a sign-up's confirmation link works. */
export const SIGN_UP_CONFIRMATION_TTL_MS = 24 * 3600 * 1000;

/**
 * Start a sign-up that a mailed link confirms. The same work is done whether or not the email
 * already has an account: the password is hashed and a row is written (for a registered email its
 * token is never mailed, so it can never be used). The caller answers alike either way and mails
 * the link only to a new email (a registered one is told it already has an account).
 */
export async function requestSignUp(
  db: Db,
  input: { email: string; password: string; name?: string },
  options: { ttlMs?: number } = {},
): Promise<{ token: string; email: string; registered: boolean; expiresAt: Date }> {
  const email = normalizeEmail(input.email);
  const token = newToken();
  const expiresAt = new Date(Date.now() + (options.ttlMs ?? SIGN_UP_CONFIRMATION_TTL_MS));
  const [passwordHash, registered] = await Promise.all([
    hashPassword(input.password),
    db.user.count({ where: { email } }).then((n) => n > 0),
  ]);
  await db.$transaction([
    // Links nobody used are forgotten a day after they expired.
    db.signUpConfirmation.deleteMany({ where: { expiresAt: { lt: new Date(Date.now() - 24 * 3600 * 1000) } } }),
    db.signUpConfirmation.create({
      data: { tokenHash: hashToken(token), email, name: input.name?.trim() ?? "", passwordHash, expiresAt },
    }),
  ]);
  return { token, email, registered, expiresAt };
}

/**
 * Make the account a confirmation link stands for: the link is spent (once, even when two uses
 * race), and the account is created as an ordinary sign-up (its own organization, or the
 * install's when it is the first). Said to the holder of the link: why it no longer works.
 */
export async function confirmSignUp(
  db: Db,
  token: string,
  install?: Pick<InstallSettings, "signupOpen" | "defaultCaps"> & { setupToken?: string | null },
) {
  const pending = await db.signUpConfirmation.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!pending) throw new NotFoundError("token", "this confirmation link is not valid; sign up again");
  if (pending.usedAt) throw new ConflictError("token", "this confirmation link was already used; sign in");
  if (pending.expiresAt <= new Date()) {
    throw new ConflictError("token", "this confirmation link has expired; sign up again");
  }
  const claimed = await db.signUpConfirmation.updateMany({
    where: { id: pending.id, usedAt: null, expiresAt: { gt: new Date() } },
    data: { usedAt: new Date() },
  });
  if (claimed.count !== 1) throw new ConflictError("token", "this confirmation link was already used; sign in");
  if (await db.user.count({ where: { email: pending.email } })) {
    throw new ConflictError("token", "an account with this email already exists; sign in");
  }
  return signUp(
    db,
    { email: pending.email, name: pending.name || undefined, passwordHash: pending.passwordHash },
    install,
  );
}
