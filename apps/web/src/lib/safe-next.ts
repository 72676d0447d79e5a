/**
 * Where to go after signing in: `next` only when it resolves to a page of this app's own origin
 * (its path, query and fragment), else "/". Checked by resolving it as the browser would, so
 * `//evil.example`, `/\evil.example`, `https://evil.example` and tab/newline tricks all fail.
 */
export function safeNextPath(next: string | null | undefined, origin: string): string {
  if (!next) return "/";
  let resolved: URL;
  try {
    resolved = new URL(next, origin);
  } catch {
    return "/";
  }
  if (resolved.origin !== new URL(origin).origin) return "/";
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
