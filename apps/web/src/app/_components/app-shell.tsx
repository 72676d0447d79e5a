"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { type ReactNode, useEffect, useState } from "react";
import { isSignedOutPage } from "~/lib/signed-out-pages";
import { useTRPC } from "~/trpc/client";
import { ForbiddenNotice } from "./forbidden-notice";
import { activeNavHref, NAV } from "./nav";
import { OrgSwitcher } from "./org-switcher";
import { useRunSearchShortcut } from "./search-shortcut";
import { ThemeToggle } from "./theme-toggle";
import { useCanEdit } from "./use-can-edit";

export function AppShell({ children }: { children: ReactNode }) {
  const pathname = usePathname();
  const canEdit = useCanEdit();
  const [menuOpen, setMenuOpen] = useState(false);
  const bare = isSignedOutPage(pathname);
  useRunSearchShortcut(!bare);
  // A followed link closes the phone menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation, pathname is the trigger
  useEffect(() => setMenuOpen(false), [pathname]);
  if (bare) {
    return <main className="min-h-screen">{children}</main>;
  }
  return (
    <div className="flex min-h-screen flex-col md:flex-row">
      <nav
        aria-label="Main"
        className="flex shrink-0 flex-col border-b border-slate-200 bg-white px-3 py-3 md:w-52 md:border-r md:border-b-0 md:py-4"
      >
        <div className="flex items-center justify-between md:mb-6">
          <Link href="/" className="flex items-center gap-2 px-2 text-lg font-bold tracking-tight text-slate-900">
            <span aria-hidden className="inline-block h-5 w-5 rounded bg-gradient-to-br from-sky-500 to-indigo-600" />
            Benchboard
          </Link>
          <button
            type="button"
            className="rounded-md border border-slate-200 px-2.5 py-1 text-sm font-medium text-slate-700 md:hidden"
            aria-expanded={menuOpen}
            aria-controls="main-menu"
            onClick={() => setMenuOpen((open) => !open)}
          >
            Menu
          </button>
        </div>
        {/* On a phone the menu folds away behind the button; from md up it is always shown. */}
        <div id="main-menu" className={`${menuOpen ? "flex" : "hidden"} mt-3 flex-1 flex-col md:mt-0 md:flex`}>
          <OrgSwitcher />
          <ul className="space-y-0.5">
            {NAV.filter((item) => canEdit || !item.write).map((item) => {
              const active = activeNavHref(pathname) === item.href;
              return (
                <li key={item.href}>
                  <Link
                    href={item.href}
                    aria-current={active ? "page" : undefined}
                    className={`block rounded-md px-2 py-1.5 text-sm font-medium ${active ? "bg-sky-50 text-sky-800" : "text-slate-700 hover:bg-slate-100"}`}
                  >
                    {item.label}
                  </Link>
                </li>
              );
            })}
          </ul>
          <UserMenu />
        </div>
      </nav>
      <main className="min-w-0 flex-1 px-4 py-4 md:px-8 md:py-6">{children}</main>
      <ForbiddenNotice />
    </div>
  );
}

function UserMenu() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({ onSuccess: () => window.location.assign("/sign-in") }),
  );
  if (!me.data) return null;
  return (
    <div className="mt-auto border-t border-slate-100 px-2 pt-3 text-xs text-slate-600">
      <div className="truncate font-medium text-slate-800" title={me.data.email}>
        {me.data.name || me.data.email}
      </div>
      {me.data.role && <div className="mt-0.5">Role: {me.data.role}</div>}
      <div className="mt-2 flex gap-3">
        <Link href="/settings" className="text-sky-700 hover:underline">
          Settings
        </Link>
        <button type="button" className="text-sky-700 hover:underline" onClick={() => signOut.mutate()}>
          Sign out
        </button>
      </div>
      <div className="mt-3">
        <ThemeToggle />
      </div>
    </div>
  );
}
