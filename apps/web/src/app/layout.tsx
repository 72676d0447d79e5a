import "@fontsource-variable/inter";
import "./globals.css";
import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "~/trpc/client";
import { AppShell } from "./_components/app-shell";

export const metadata: Metadata = {
  title: { default: "Benchboard", template: "%s · Benchboard" },
  description: "Load tests and benchmark runs, stored, compared and shared.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
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
