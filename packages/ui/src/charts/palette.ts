/** Colors for runs and series, distinguishable side by side and in print. */
export const PALETTE = [
  "#0284c7",
  "#ea580c",
  "#16a34a",
  "#9333ea",
  "#dc2626",
  "#0d9488",
  "#ca8a04",
  "#db2777",
  "#4f46e5",
  "#475569",
] as const;

export function colorAt(index: number): string {
  return PALETTE[index % PALETTE.length]!;
}

/** Seconds since start as m:ss (or h:mm:ss). */
export function formatElapsed(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}
