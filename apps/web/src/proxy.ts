import { type NextRequest, NextResponse } from "next/server";

// An optimistic redirect for signed-out visitors; every procedure checks the session itself.
const PUBLIC_PREFIXES = ["/sign-in", "/sign-up", "/invite/", "/share/", "/api/", "/_next/", "/favicon"];

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  if (PUBLIC_PREFIXES.some((p) => pathname.startsWith(p))) return NextResponse.next();
  if (request.cookies.get("bb_session")) return NextResponse.next();
  const url = request.nextUrl.clone();
  url.pathname = "/sign-in";
  url.search = pathname === "/" ? "" : `?next=${encodeURIComponent(pathname + search)}`;
  return NextResponse.redirect(url);
}

export const config = { matcher: ["/((?!_next/static|_next/image|favicon.ico).*)"] };
