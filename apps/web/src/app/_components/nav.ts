/** Main navigation, in order. Each area adds its entry here; `write` entries are for members and owners. */
export const NAV: { href: string; label: string; write?: boolean }[] = [
  { href: "/", label: "Projects" },
  { href: "/launch", label: "Launch", write: true },
  { href: "/runs", label: "Runs" },
  { href: "/runs/upload", label: "Upload", write: true },
  { href: "/compare", label: "Compare" },
  { href: "/sweeps", label: "Sweeps" },
  { href: "/trends", label: "Trends" },
  { href: "/workers", label: "Workers" },
  { href: "/api-reference", label: "API reference" },
  { href: "/settings", label: "Settings" },
];

/** The one entry a path belongs to: the longest matching prefix, so /runs/upload is Upload alone. */
export function activeNavHref(pathname: string, hrefs: readonly string[] = NAV.map((n) => n.href)): string | null {
  let best: string | null = null;
  for (const href of hrefs) {
    const matches = href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
    if (matches && (best === null || href.length > best.length)) best = href;
  }
  return best;
}
