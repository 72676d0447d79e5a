"use client";

import type { TLiveProgress } from "@benchboard/core";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "./client";

export interface RunEvent {
  id: string;
  status: string;
  /** The run's live progress (`ZLiveProgress`), as the server parsed it. */
  progress: TLiveProgress | null;
  error: string | null;
  cancelRequested: boolean;
  startedAt: string | null;
  endedAt: string | null;
  hasResult: boolean;
}

const TERMINAL = new Set(["succeeded", "failed", "canceled"]);

/**
 * Follow a run through its event stream while it is live: each event updates the cached
 * `run.byId` data in place, and the end of the run refetches the full result once.
 */
export function useRunEvents(runId: string, enabled: boolean): { connected: boolean; last: RunEvent | null } {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [connected, setConnected] = useState(false);
  const [last, setLast] = useState<RunEvent | null>(null);

  useEffect(() => {
    if (!enabled) return;
    const source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events`);
    const key = trpc.run.byId.queryKey({ id: runId });
    source.onopen = () => setConnected(true);
    source.onerror = () => setConnected(false);
    source.addEventListener("run", (e) => {
      const event = JSON.parse((e as MessageEvent<string>).data) as RunEvent;
      setLast(event);
      queryClient.setQueryData(key, (old) =>
        old
          ? {
              ...old,
              status: event.status as typeof old.status,
              progress: event.progress as typeof old.progress,
              error: event.error,
              cancelRequested: event.cancelRequested,
              startedAt: event.startedAt ? new Date(event.startedAt) : null,
              endedAt: event.endedAt ? new Date(event.endedAt) : null,
            }
          : old,
      );
      if (TERMINAL.has(event.status)) {
        source.close();
        setConnected(false);
        void queryClient.invalidateQueries({ queryKey: trpc.run.pathKey() });
      }
    });
    return () => {
      source.close();
      setConnected(false);
    };
  }, [enabled, runId, queryClient, trpc]);

  return { connected, last };
}
