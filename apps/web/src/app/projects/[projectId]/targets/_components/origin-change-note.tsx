"use client";

/** Origin (scheme, host, port) of a URL as typed, or null while it is not a URL yet. */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Secrets belong to the origin they were entered for: saving a target with another origin clears
 * its stored secret header values and monitor passwords, and the new origin needs verifying.
 */
export function OriginChangeNote({ saved, current }: { saved: string | null | undefined; current: string }) {
  if (!saved) return null;
  const before = originOf(saved);
  const after = originOf(current);
  if (!before || !after || before === after) return null;
  return (
    <p role="note" className="rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-900">
      The origin changes from <span className="font-mono">{before}</span> to <span className="font-mono">{after}</span>.
      Saving clears this target&apos;s stored secret header values and monitor passwords (enter them again for the new
      origin), and the new origin must be verified before it gets load.
    </p>
  );
}
