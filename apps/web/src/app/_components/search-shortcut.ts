"use client";

import { usePathname, useRouter } from "next/navigation";
import { useEffect } from "react";

/** The runs page's search field. */
export const RUN_SEARCH_FIELD = "#filter-search";

/** Where a typed "/" is text, not a shortcut: fields, editors and anything editable. */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}

/** Focus the field once it is on the page (the runs page may still be loading), for a few seconds at most. */
function focusWhenShown(until = Date.now() + 5_000) {
  const field = document.querySelector<HTMLInputElement>(RUN_SEARCH_FIELD);
  if (field) {
    field.focus();
    field.select();
  } else if (Date.now() < until) {
    requestAnimationFrame(() => focusWhenShown(until));
  }
}

/**
 * "/" searches runs from anywhere in the app, as in other dashboards: on the runs page it focuses
 * the search field, elsewhere it opens the runs page with the field focused. Typed into a field,
 * "/" stays a character.
 */
export function useRunSearchShortcut(enabled: boolean) {
  const router = useRouter();
  const pathname = usePathname();
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || typingIn(e.target)) return;
      e.preventDefault();
      if (pathname !== "/runs") router.push("/runs");
      focusWhenShown();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [enabled, pathname, router]);
}
