import { type RequestOriginOptions, requestHost } from "./request-origin";

/**
 * Cookie-authenticated writes must come from our own pages: a cross-site form or fetch carries
 * a foreign Origin (or Sec-Fetch-Site: cross-site) and is refused. SameSite=Lax cookies are the
 * first line; this is the second. A write without an Origin is refused too. The host compared is the one the client connected to (the Host
 * header); X-Forwarded-Host counts only from a trusted proxy, since any client can send it.
 */
export function isCrossSiteWrite(req: Request, options: RequestOriginOptions = {}): boolean {
  if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return false;
  if (req.headers.get("sec-fetch-site") === "cross-site") return true;
  const origin = req.headers.get("origin");
  // Browsers send Origin with every POST; a write without one (which can set a session cookie)
  // is not from our pages.
  if (!origin) return true;
  const host = requestHost(req, options);
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}
