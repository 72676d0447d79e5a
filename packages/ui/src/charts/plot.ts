/**
 * What the SVG charts share: the plot's own coordinates, the value axis's width, where a pointer
 * or an arrow key puts a chart's cursor, the cursor store that synchronizes charts, round
 * elapsed-time ticks, and the nearest point to a moment.
 */

export type Point = Record<string, number | null>;

/** Plot insets in pixels: room for the last x label on the right, the x labels below. */
export const INSET = { top: 6, right: 14, bottom: 20 } as const;
/** The plot's own coordinates: x 0–1000 left to right, y 0–100 top to bottom, stretched to the box. */
export const VIEW_W = 1000;
export const VIEW_H = 100;
/** Average width of an 11 px digit or letter, to size the value axis from its labels without measuring. */
export const CHAR_PX = 6.6;

/** Width of a value axis with these labels (11 px text), from their length: nothing is measured. */
export function valueAxisWidth(labels: readonly string[]): number {
  return Math.max(28, Math.ceil(Math.max(0, ...labels.map((l) => l.length)) * CHAR_PX) + 8);
}

/** The CSS `left` of a fraction of a plot that starts `left` px into its box and ends `right` px short of it. */
export function acrossPlot(frac: number, left: number, right: number): string {
  return `calc(${left}px + ${frac} * (100% - ${left + right}px))`;
}

/** Where across such a plot (0 to 1) the pointer is. */
export function pointerFraction(
  event: { clientX: number; currentTarget: Element },
  left: number,
  right: number,
): number {
  const box = event.currentTarget.getBoundingClientRect();
  const width = box.width - left - right;
  return Math.min(1, Math.max(0, (event.clientX - box.left - left) / Math.max(width, 1)));
}

/**
 * The index an arrow key moves a chart's cursor to among `count` (from the first or last when none
 * is chosen yet); null for any other key.
 */
export function arrowStep(key: string, from: number | null, count: number): number | null {
  if (count === 0 || (key !== "ArrowLeft" && key !== "ArrowRight")) return null;
  const start = from ?? (key === "ArrowRight" ? -1 : count);
  return Math.min(count - 1, Math.max(0, start + (key === "ArrowRight" ? 1 : -1)));
}

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
