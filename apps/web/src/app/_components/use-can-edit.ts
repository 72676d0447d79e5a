"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/client";

/** Members and owners change things; viewers (and the demo organization's visitors) only read. */
export function useCanEdit(): boolean {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  return me.data?.role === "member" || me.data?.role === "owner";
}
