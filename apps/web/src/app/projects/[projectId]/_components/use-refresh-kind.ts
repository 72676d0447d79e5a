"use client";

import { type QueryKey, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/client";

/**
 * After a project's targets, configs or scenarios changed: refresh that kind's queries and the
 * project's (its counts).
 */
export function useRefreshKind(kindKey: QueryKey): () => Promise<void> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return async () => {
    await queryClient.invalidateQueries({ queryKey: kindKey });
    await queryClient.invalidateQueries({ queryKey: trpc.project.pathKey() });
  };
}
