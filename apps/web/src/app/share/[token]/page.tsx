import { TRPCError } from "@trpc/server";
import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { publicCaller } from "~/server/callers";
import { SharedComparison, SharedRun } from "./shared-view";

export const dynamic = "force-dynamic";

// The same title for every token, valid or not, so the page says nothing about what it holds.
export const metadata: Metadata = { title: "Shared results", robots: { index: false, follow: false } };

/**
 * A public, read-only link. It is answered by a public procedure that takes only the token and
 * loads only what the link points to; unknown, revoked and expired links are a plain 404.
 */
export default async function SharePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  let shared: Awaited<ReturnType<ReturnType<typeof publicCaller>["share"]["view"]>>;
  try {
    shared = await publicCaller(new Headers(await headers())).share.view({ token });
  } catch (err) {
    if (err instanceof TRPCError && (err.code === "NOT_FOUND" || err.code === "BAD_REQUEST")) notFound();
    if (err instanceof TRPCError && err.code === "TOO_MANY_REQUESTS") return <TooManyViews />;
    throw err;
  }
  if (shared.kind === "run") return <SharedRun view={shared.run} chart={shared.chart} expiresAt={shared.expiresAt} />;
  return <SharedComparison data={shared.comparison} expiresAt={shared.expiresAt} />;
}

function TooManyViews() {
  return (
    <main className="mx-auto max-w-xl p-8">
      <h1 className="text-lg font-semibold">Too many views</h1>
      <p role="alert" className="mt-2 text-sm text-slate-600">
        This address opened shared pages too often in the last minute. Wait a minute and reload.
      </p>
    </main>
  );
}
