import "@fontsource-variable/inter";
import "./globals.css";
import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "~/trpc/client";
import { NAV } from "./_components/nav";
import { OrgSwitcher } from "./_components/org-switcher";

export const metadata: Metadata = {
  title: { default: "Benchboard", template: "%s · Benchboard" },
  description: "Load tests and benchmark runs, stored, compared and shared.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <TRPCReactProvider>
          <div className="flex min-h-screen">
            <nav aria-label="Main" className="w-52 shrink-0 border-r border-slate-200 bg-white px-3 py-4">
              <Link
                href="/"
                className="mb-6 flex items-center gap-2 px-2 text-lg font-bold tracking-tight text-slate-900"
              >
                <span
                  aria-hidden
                  className="inline-block h-5 w-5 rounded bg-gradient-to-br from-sky-500 to-indigo-600"
                />
                Benchboard
              </Link>
              <OrgSwitcher />
              <ul className="space-y-0.5">
                {NAV.map((item) => (
                  <li key={item.href}>
                    <Link
                      href={item.href}
                      className="block rounded-md px-2 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100"
                    >
                      {item.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
            <main className="min-w-0 flex-1 px-8 py-6">{children}</main>
          </div>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
