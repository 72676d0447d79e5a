import { niceTicks } from "@benchboard/core";

/** Pixels a value-axis label needs: fewer ticks on a short chart, so none is dropped for lack of room. */
const PX_PER_TICK = 40;

export interface ValueAxis {
  /** From 0 to the last tick, so the top gridline is a labelled round number. */
  domain: [number, number];
  /** Evenly spaced round numbers (1, 2, 2.5 or 5 × a power of ten, or of 1024 for bytes). */
  ticks: number[];
}

/**
 * The value axis of a chart: evenly spaced round ticks from 0 past the largest value (and any
 * threshold drawn on it). Give the ticks to the axis with `interval={0}` so that every one is
 * labelled: left to choose, the chart library drops labels it thinks crowded, and the axis reads
 * 0, 25, 50, 75, 125.
 */
export function valueAxis(
  values: readonly (number | null | undefined)[],
  options: { binary?: boolean; height?: number } = {},
): ValueAxis {
  let max = 0;
  for (const v of values) if (typeof v === "number" && Number.isFinite(v) && v > max) max = v;
  const count = Math.max(2, Math.min(6, Math.floor((options.height ?? 240) / PX_PER_TICK) - 1));
  const ticks = niceTicks(max, { binary: options.binary, count });
  return { domain: [0, ticks[ticks.length - 1]!], ticks };
}
