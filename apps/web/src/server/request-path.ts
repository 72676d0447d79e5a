/**
 * A request path with a malformed %-escape (`/share/%F0%9F`) or a NUL (`%00`) is refused with 400
 * before any page or route decodes it: decoding would throw (a 500), and PostgreSQL stores no NUL.
 */
export function badPathReason(pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return "the path has a malformed %-escape";
  }
  return decoded.includes("\u0000") ? "the path contains a NUL character" : null;
}

export function badPath(reason: string): Response {
  return new Response(JSON.stringify({ error: { message: reason } }), {
    status: 400,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}
