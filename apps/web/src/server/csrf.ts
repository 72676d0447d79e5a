/**
 * Cookie-authenticated writes must come from our own pages: a cross-site form or fetch carries
 * a foreign Origin (or Sec-Fetch-Site: cross-site) and is refused. SameSite=Lax cookies are the
 * first line; this is the second.
 */
export function isCrossSiteWrite(req: Request): boolean {
  if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return false;
  if (req.headers.get("sec-fetch-site") === "cross-site") return true;
  const origin = req.headers.get("origin");
  if (!origin) return false;
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}
