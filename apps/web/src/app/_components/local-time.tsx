"use client";

import { useSyncExternalStore } from "react";

const never = () => () => {};

/**
 * A moment in the reader's own time zone and locale. The server knows neither, so the page
 * arrives with the UTC time and the browser swaps in the local one right after hydrating (the
 * first client render matches the server's, so hydration never trips over a time zone).
 */
export function LocalTime({
  value,
  date = false,
  time = false,
}: {
  value: string | Date;
  /** The day alone. */
  date?: boolean;
  /** The time of day alone. */
  time?: boolean;
}) {
  const inBrowser = useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) return null;
  const utc = at.toISOString();
  const text = inBrowser
    ? date
      ? at.toLocaleDateString()
      : time
        ? at.toLocaleTimeString()
        : at.toLocaleString()
    : date
      ? utc.slice(0, 10)
      : time
        ? `${utc.slice(11, 19)} UTC`
        : `${utc.slice(0, 16).replace("T", " ")} UTC`;
  return <time dateTime={utc}>{text}</time>;
}
