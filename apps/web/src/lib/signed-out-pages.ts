/**
 * Pages for people who are signed out, as path prefixes: they show no app navigation, need no
 * session, and a refusal there is theirs to read rather than an ended session.
 */
export const SIGNED_OUT_PAGES = [
  "/sign-in",
  "/sign-up",
  "/forgot-password",
  "/reset-password/",
  "/confirm-sign-up/",
  "/invite/",
  "/share/",
] as const;

export function isSignedOutPage(pathname: string): boolean {
  return SIGNED_OUT_PAGES.some((p) => pathname.startsWith(p));
}
