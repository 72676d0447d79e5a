/**
 * Headers every page and API response carries. Scripts run only with the per-request nonce
 * (Next.js reads it from the request's CSP header and puts it on its own scripts), no page may
 * be framed, and referrers never leave the origin (share-link tokens live in URLs).
 */
export function contentSecurityPolicy(nonce: string, options: { https: boolean; dev: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    // Charts and layout set style attributes; styles cannot run code, scripts are what the nonce guards.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(options.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

export function securityHeaders(nonce: string, options: { https: boolean; dev: boolean }): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(nonce, options),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    ...(options.https ? { "strict-transport-security": "max-age=31536000; includeSubDomains" } : {}),
  };
}
