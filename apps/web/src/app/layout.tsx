import "@fontsource-variable/inter";
import "./globals.css";
import type { Metadata } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "~/trpc/client";
import { AppShell } from "./_components/app-shell";

export const metadata: Metadata = {
  title: { default: "Benchboard", template: "%s · Benchboard" },
  description: "Load tests and benchmark runs, stored, compared and shared.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Read per request so every page renders dynamically and carries the CSP nonce of its request
  // (a page rendered at build time would have scripts without one, which the policy blocks).
  await headers();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <TRPCReactProvider>
          <AppShell>{children}</AppShell>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
