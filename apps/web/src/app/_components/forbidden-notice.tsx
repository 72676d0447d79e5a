"use client";

import { TRPCClientError } from "@trpc/client";
import { useSyncExternalStore } from "react";

/**
 * Requests refused for the signed-in role (HTTP 403) are reported here from every mutation and
 * query, so a refusal is never silent even where a form shows no error of its own.
 */
let current: string | null = null;
const listeners = new Set<() => void>();

function publish(message: string | null) {
  current = message;
  for (const l of listeners) l();
}

/** The refusal's message when `error` is a 403 from the API, else null. */
export function forbiddenMessage(error: unknown): string | null {
  if (!(error instanceof TRPCClientError)) return null;
  const data = error.data as { code?: string; httpStatus?: number } | undefined;
  if (data?.code !== "FORBIDDEN" && data?.httpStatus !== 403) return null;
  return error.message;
}

export function reportForbidden(error: unknown) {
  const message = forbiddenMessage(error);
  if (message) publish(message);
}

export function ForbiddenNotice() {
  const message = useSyncExternalStore(
    (onChange) => {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
    () => current,
    () => null,
  );
  if (!message) return null;
  return (
    <div
      role="alert"
      aria-label="Not allowed"
      className="fixed right-6 bottom-6 z-50 flex max-w-md items-start gap-3 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900 shadow-lg"
    >
      <p>
        <span className="font-semibold">Not allowed: </span>
        {message}. Ask an owner of this organization for a member role to change things here.
      </p>
      <button
        type="button"
        className="shrink-0 font-medium text-amber-900 hover:underline"
        onClick={() => publish(null)}
        aria-label="Dismiss"
      >
        ✕
      </button>
    </div>
  );
}
