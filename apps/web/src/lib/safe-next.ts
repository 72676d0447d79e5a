/**
 * Where to go after signing in: `next` only when it resolves to a page of this app's own origin
 * (its path, query and fragment), else "/". Checked by resolving it as the browser would, so
 * `//evil.example`, `/\evil.example`, `https://evil.example`, tab/newline tricks and dot segments that
 * leave a leading `//` all fail.
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
  // Dot segments can leave a path that begins with two slashes (`/.//evil.example`,
  // `/..//evil.example`, `/%2e//evil.example` all resolve to `//evil.example`), which the
  // browser reads as another host when navigated to: never returned.
  if (/^[/\\]{2}/.test(resolved.pathname)) return "/";
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
