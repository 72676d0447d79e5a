import { type NextRequest, NextResponse } from "next/server";
import { SIGNED_OUT_PAGES } from "~/lib/signed-out-pages";
import { misdirected } from "~/server/public-url";
import { isHttps, requestedPublicUrl } from "~/server/request-origin";
import { badPath, badPathReason } from "~/server/request-path";
import { securityHeaders } from "~/server/security-headers";

// An optimistic redirect for signed-out visitors; every procedure checks the session itself.
const PUBLIC_PREFIXES = [...SIGNED_OUT_PAGES, "/api/", "/_next/", "/favicon"];

export function proxy(request: NextRequest) {
  // A host name that is not one of the app's (a rebound DNS name) gets nothing.
  if (!requestedPublicUrl(request)) return misdirected();
  const pathProblem = badPathReason(request.nextUrl.pathname);
  if (pathProblem) return badPath(pathProblem);
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const headers = securityHeaders(nonce, { https: isHttps(request), dev: process.env.NODE_ENV !== "production" });
  const { pathname, search } = request.nextUrl;
  let response: NextResponse;
  if (PUBLIC_PREFIXES.some((p) => pathname.startsWith(p)) || request.cookies.get("bb_session")) {
    // Next.js takes the nonce for its own scripts from the request's CSP header.
    const requestHeaders = new Headers(request.headers);
    requestHeaders.set("content-security-policy", headers["content-security-policy"] as string);
    response = NextResponse.next({ request: { headers: requestHeaders } });
  } else {
    const url = request.nextUrl.clone();
    url.pathname = "/sign-in";
    url.search = pathname === "/" ? "" : `?next=${encodeURIComponent(pathname + search)}`;
    response = NextResponse.redirect(url);
  }
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = { matcher: ["/((?!_next/static|_next/image|favicon.ico|icon.svg).*)"] };
