"use client";

import { createContext, type ReactNode, useContext, useState } from "react";
import { THEME_COOKIE, THEMES, type Theme, themeClass } from "~/lib/theme";

const ThemeContext = createContext<{ theme: Theme; setTheme: (theme: Theme) => void }>({
  theme: "system",
  setTheme: () => {},
});

/** Holds the theme the server rendered with (from the cookie) and applies a new choice at once. */
export function ThemeProvider({ initial, children }: { initial: Theme; children: ReactNode }) {
  const [theme, setThemeState] = useState(initial);
  const setTheme = (next: Theme) => {
    setThemeState(next);
    const root = document.documentElement;
    root.classList.remove("light", "dark");
    const cls = themeClass(next);
    if (cls) root.classList.add(cls);
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox and Safari
    document.cookie = `${THEME_COOKIE}=${next}; path=/; samesite=lax; max-age=31536000`;
  };
  return <ThemeContext.Provider value={{ theme, setTheme }}>{children}</ThemeContext.Provider>;
}

const LABELS: Record<Theme, string> = { system: "System", light: "Light", dark: "Dark" };

export function ThemeToggle() {
  const { theme, setTheme } = useContext(ThemeContext);
  return (
    <fieldset className="flex items-center gap-1 text-xs">
      <legend className="sr-only">Theme</legend>
      {THEMES.map((t) => (
        <label
          key={t}
          className={`cursor-pointer rounded px-1.5 py-0.5 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-sky-500 ${theme === t ? "bg-slate-100 font-medium text-slate-900" : "text-slate-600 hover:text-slate-900"}`}
        >
          <input
            type="radio"
            name="theme"
            value={t}
            checked={theme === t}
            onChange={() => setTheme(t)}
            className="sr-only"
          />
          {LABELS[t]}
        </label>
      ))}
    </fieldset>
  );
}
