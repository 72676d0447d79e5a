/** Main navigation, in order. Each area adds its entry here. */
export const NAV: { href: string; label: string }[] = [
  { href: "/", label: "Projects" },
  { href: "/launch", label: "Launch" },
  { href: "/runs", label: "Runs" },
  { href: "/runs/upload", label: "Upload" },
  { href: "/compare", label: "Compare" },
  { href: "/sweeps", label: "Sweeps" },
  { href: "/trends", label: "Trends" },
  { href: "/workers", label: "Workers" },
  { href: "/settings", label: "Settings" },
];
