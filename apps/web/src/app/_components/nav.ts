/** Main navigation, in order. Each area adds its entry here. */
export const NAV: { href: string; label: string }[] = [
  { href: "/", label: "Projects" },
  { href: "/runs", label: "Runs" },
  { href: "/settings", label: "Settings" },
];
