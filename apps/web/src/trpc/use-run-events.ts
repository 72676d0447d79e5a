"use client";

import type { TLiveProgress } from "@benchboard/core";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { applyLiveStep, type LiveStepProgress } from "~/lib/live-step";
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

/** Waits before the page reopens a stream the browser gave up on (doubling, at most 10 s). */
const REOPEN_MS = [1_000, 2_000, 4_000, 8_000, 10_000];

/**
 * Follow a run through its event stream while it is live: each event updates the cached
 * `run.byId` data in place, and the end of the run refetches the full result once. The stream
 * survives a web app restart: the browser reconnects with the last event id it got, and when it
 * gives up (an error answer while the app starts), the page reopens the stream itself with that
 * id. `connected` is false while reconnecting, so the page can say so instead of freezing;
 * `opened` tells the first connection (still connecting) from a reconnection.
 */
export function useRunEvents(
  runId: string,
  enabled: boolean,
): { connected: boolean; opened: boolean; last: RunEvent | null } {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [connected, setConnected] = useState(false);
  // Whether the stream has ever been open: before that the page is connecting, not reconnecting.
  const [opened, setOpened] = useState(false);
  const [last, setLast] = useState<RunEvent | null>(null);

  useEffect(() => {
    if (!enabled) return;
    const key = trpc.run.byId.queryKey({ id: runId });
    let source: EventSource | null = null;
    let lastEventId = "";
    // The last whole state, which the next step applies to.
    let state: RunEvent | null = null;
    let reopenTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;

    const open = () => {
      const query = lastEventId ? `?lastEventId=${encodeURIComponent(lastEventId)}` : "";
      const current = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events${query}`);
      source = current;
      current.onopen = () => {
        failures = 0;
        setConnected(true);
        setOpened(true);
      };
      current.onerror = () => {
        setConnected(false);
        // CONNECTING: the browser retries by itself. CLOSED: it gave up; reopen after a pause.
        if (current.readyState === EventSource.CLOSED && !stopped) {
          current.close();
          const wait = REOPEN_MS[Math.min(failures, REOPEN_MS.length - 1)]!;
          failures++;
          reopenTimer = setTimeout(open, wait);
          // The cached run may have moved on meanwhile (ended, even): read it once.
          void queryClient.invalidateQueries({ queryKey: key });
        }
      };
      const apply = (event: RunEvent, eventId: string) => {
        if (eventId) lastEventId = eventId;
        state = event;
        setLast(event);
        setConnected(true);
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
          stopped = true;
          current.close();
          setConnected(false);
          void queryClient.invalidateQueries({ queryKey: trpc.run.pathKey() });
        }
      };
      // The whole state: on connecting, and whenever the server cannot send a step.
      current.addEventListener("run", (e) => {
        const message = e as MessageEvent<string>;
        apply(JSON.parse(message.data) as RunEvent, message.lastEventId);
      });
      // The state as a step from the one before: its new per-second samples only.
      current.addEventListener("step", (e) => {
        const message = e as MessageEvent<string>;
        const step = JSON.parse(message.data) as Omit<RunEvent, "progress"> & { progress: LiveStepProgress };
        const next = state?.progress ? applyLiveStep(state as RunEvent & { progress: TLiveProgress }, step) : null;
        if (next) {
          apply(next, message.lastEventId);
          return;
        }
        // Not a step from what this page has (it should not happen): start over with a whole state.
        current.close();
        lastEventId = "";
        state = null;
        open();
      });
    };
    open();
    return () => {
      stopped = true;
      clearTimeout(reopenTimer);
      source?.close();
      setConnected(false);
    };
  }, [enabled, runId, queryClient, trpc]);

  return { connected, opened, last };
}
