/**
 * What the SVG charts share: the plot's own coordinates, the cursor store that synchronizes
 * charts, round elapsed-time ticks, and the nearest point to a moment.
 */

export type Point = Record<string, number | null>;

/** Plot insets in pixels: room for the last x label on the right, the x labels below. */
export const INSET = { top: 6, right: 14, bottom: 20 } as const;
/** The plot's own coordinates: x 0–1000 left to right, y 0–100 top to bottom, stretched to the box. */
export const VIEW_W = 1000;
export const VIEW_H = 100;
/** Average width of an 11 px digit or letter, to size the value axis from its labels without measuring. */
export const CHAR_PX = 6.6;
const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/**
 * The cursor of every chart sharing a `syncId`: the elapsed second hovered, or null. One small
 * store per id, read with useSyncExternalStore, so hovering one chart moves the others' cursors.
 */
const cursors = new Map<string, { t: number | null; listeners: Set<() => void> }>();
export function cursorOf(id: string) {
  let c = cursors.get(id);
  if (!c) {
    c = { t: null, listeners: new Set() };
    cursors.set(id, c);
  }
  return c;
}
export function setCursor(id: string, t: number | null) {
  const c = cursorOf(id);
  if (c.t === t) return;
  c.t = t;
  for (const listener of c.listeners) listener();
}

/** Round elapsed-time ticks (1 s, 5 s, 1 min, 5 min …) across the range, at most `max` of them. */
export function timeTicks(min: number, max: number, most = 6): number[] {
  const span = Math.max(max - min, 1);
  const step = TIME_STEPS.find((s) => Math.floor(span / s) <= most - 1) ?? Math.ceil(span / (most - 1) / 86400) * 86400;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + 1e-9; t += step) ticks.push(t);
  return ticks;
}

/** The index of the point whose `t` is nearest `t` (points are in time order). */
export function nearest(data: readonly Point[], t: number): number {
  let lo = 0;
  let hi = data.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((data[mid]!.t ?? 0) < t) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs((data[lo - 1]!.t ?? 0) - t) <= Math.abs((data[lo]!.t ?? 0) - t)) return lo - 1;
  return lo;
}
