import { TRPCError } from "@trpc/server";
import type { Metadata } from "next";
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
    shared = await publicCaller().share.view({ token });
  } catch (err) {
    if (err instanceof TRPCError && (err.code === "NOT_FOUND" || err.code === "BAD_REQUEST")) notFound();
    throw err;
  }
  if (shared.kind === "run") return <SharedRun view={shared.run} chart={shared.chart} expiresAt={shared.expiresAt} />;
  return <SharedComparison data={shared.comparison} expiresAt={shared.expiresAt} />;
}
