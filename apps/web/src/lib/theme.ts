/** The reader's colour theme: `system` follows the operating system's preference. */
export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

export const THEME_COOKIE = "bb_theme";

export function parseTheme(value: string | undefined | null): Theme {
  return THEMES.find((t) => t === value) ?? "system";
}

/**
 * The class <html> carries. The server renders it from the cookie, so the first paint already has
 * the chosen theme; with no class, the stylesheet follows `prefers-color-scheme`.
 */
export function themeClass(theme: Theme): string | undefined {
  return theme === "system" ? undefined : theme;
}
