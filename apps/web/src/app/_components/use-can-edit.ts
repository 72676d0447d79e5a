"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/client";

/** The signed-in user's role in the current organization; undefined until known. */
export function useRole(): "owner" | "member" | "viewer" | null | undefined {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  if (me.isPending) return undefined;
  return me.data?.role ?? null;
}

/** Members and owners change things; viewers (and the demo organization's visitors) only read. */
export function useCanEdit(): boolean {
  const role = useRole();
  return role === "member" || role === "owner";
}
