import "@fontsource-variable/inter";
import "./globals.css";
import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import type { ReactNode } from "react";
import { parseTheme, THEME_COOKIE, themeClass } from "~/lib/theme";
import { SESSION_COOKIE } from "~/server/context";
import { TRPCReactProvider } from "~/trpc/client";
import { HydrateClient, prefetch, serverTrpc } from "~/trpc/server";
import { AppShell } from "./_components/app-shell";
import { ThemeProvider } from "./_components/theme-toggle";

export const metadata: Metadata = {
  title: { default: "Benchboard", template: "%s · Benchboard" },
  description: "Load tests and benchmark runs, stored, compared and shared.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Read per request so every page renders dynamically and carries the CSP nonce of its request
  // (a page rendered at build time would have scripts without one, which the policy blocks).
  await headers();
  // The theme comes from a cookie, so the server renders the chosen one and no script has to run
  // before the first paint (nor need the request's nonce).
  const jar = await cookies();
  const theme = parseTheme(jar.get(THEME_COOKIE)?.value);
  // Who is signed in and their organizations: the navigation and every page's edit rights need
  // them, so they arrive with the page instead of in a request after it.
  if (jar.get(SESSION_COOKIE)) await prefetch(serverTrpc.auth.me.queryOptions(), serverTrpc.org.list.queryOptions());
  return (
    <html lang="en" className={themeClass(theme)}>
      <body className="min-h-screen font-sans">
        <ThemeProvider initial={theme}>
          <TRPCReactProvider>
            <HydrateClient>
              <AppShell>{children}</AppShell>
            </HydrateClient>
          </TRPCReactProvider>
        </ThemeProvider>
      </body>
    </html>
  );
}
