/**
 * Chart colours as CSS variables, so a page's theme (light or dark) reaches axes, grid, tooltips and
 * series. Each falls back to its light value where the stylesheet defines none.
 */
export const CHART = {
  axis: "var(--chart-axis, #64748b)",
  label: "var(--chart-label, #475569)",
  grid: "var(--chart-grid, #e2e8f0)",
  surface: "var(--chart-surface, #ffffff)",
  border: "var(--chart-border, #cbd5e1)",
  text: "var(--chart-text, #0f172a)",
  primary: "var(--chart-series-1, #0284c7)",
  good: "var(--chart-good, #16a34a)",
  goodLabel: "var(--chart-good-label, #15803d)",
  bad: "var(--chart-bad, #dc2626)",
  badLabel: "var(--chart-bad-label, #b91c1c)",
  marker: "var(--chart-marker, #d97706)",
  change: "var(--chart-change, #7c3aed)",
  changeLabel: "var(--chart-change-label, #6d28d9)",
  excluded: "var(--chart-excluded, #94a3b8)",
} as const;

/** Tooltip box in the page's theme. */
export const TOOLTIP_STYLE = {
  fontSize: 12,
  background: CHART.surface,
  borderColor: CHART.border,
  color: CHART.text,
} as const;

/** Colors for runs and series, distinguishable side by side and in print (brighter on dark). */
export const PALETTE = [
  "var(--chart-series-1, #0284c7)",
  "var(--chart-series-2, #ea580c)",
  "var(--chart-series-3, #16a34a)",
  "var(--chart-series-4, #9333ea)",
  "var(--chart-series-5, #dc2626)",
  "var(--chart-series-6, #0d9488)",
  "var(--chart-series-7, #ca8a04)",
  "var(--chart-series-8, #db2777)",
  "var(--chart-series-9, #4f46e5)",
  "var(--chart-series-10, #475569)",
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
