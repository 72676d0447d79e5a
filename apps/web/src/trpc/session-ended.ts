import { TRPCClientError } from "@trpc/client";
import { isSignedOutPage } from "~/lib/signed-out-pages";

/** Whether the API refused a request for want of a session (HTTP 401). */
export function isUnauthorized(error: unknown): boolean {
  if (!(error instanceof TRPCClientError)) return false;
  const data = error.data as { code?: string; httpStatus?: number } | undefined;
  return data?.code === "UNAUTHORIZED" || data?.httpStatus === 401;
}

/** Where to go when the session ended on `path` (with its query): sign-in, coming back after. */
export function signInPath(path: string, search = ""): string {
  return path === "/" && !search ? "/sign-in" : `/sign-in?next=${encodeURIComponent(path + search)}`;
}

let leaving = false;

/**
 * Leave for sign-in when a request was refused because the session ended, from any page but the
 * signed-out ones (where "email or password is incorrect" is also a 401). The whole page is left,
 * so nothing read with the old session stays on screen.
 */
export function signInAgain(error: unknown): void {
  if (leaving || typeof window === "undefined" || !isUnauthorized(error)) return;
  const { pathname, search } = window.location;
  if (isSignedOutPage(pathname)) return;
  leaving = true;
  window.location.replace(signInPath(pathname, search));
}
