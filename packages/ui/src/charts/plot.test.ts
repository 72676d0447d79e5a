import { describe, expect, it } from "vitest";
import { cursorOf, nearest, setCursor, timeTicks } from "./plot";

describe("timeTicks", () => {
  it("puts round elapsed times across the range, at most six", () => {
    expect(timeTicks(0, 1797)).toEqual([0, 300, 600, 900, 1200, 1500]);
    expect(timeTicks(0, 8)).toEqual([0, 2, 4, 6, 8]);
    expect(timeTicks(0, 1)).toEqual([0, 1]);
    // A range that does not start at 0 starts at the first round time inside it.
    expect(timeTicks(7, 61)).toEqual([10, 20, 30, 40, 50, 60]);
    for (const [min, max] of [
      [0, 3],
      [0, 59],
      [0, 3600],
      [12, 86_400],
    ] as const) {
      const ticks = timeTicks(min, max);
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      expect(ticks.length).toBeLessThanOrEqual(6);
      expect(ticks[0]).toBeGreaterThanOrEqual(min);
      expect(ticks.at(-1)).toBeLessThanOrEqual(max);
      const steps = new Set(ticks.slice(1).map((t, i) => t - ticks[i]!));
      expect(steps.size).toBe(1);
    }
  });
});

describe("nearest", () => {
  const points = [0, 3, 6, 9, 12].map((t) => ({ t, v: t * 2 }));
  it("finds the point nearest a moment, the earlier one on a tie", () => {
    expect(nearest(points, -5)).toBe(0);
    expect(nearest(points, 4)).toBe(1);
    expect(nearest(points, 4.5)).toBe(1);
    expect(nearest(points, 5)).toBe(2);
    expect(nearest(points, 12)).toBe(4);
    expect(nearest(points, 99)).toBe(4);
  });
});

describe("cursor store", () => {
  it("tells every chart of an id when the cursor moves, and only when it moves", () => {
    let calls = 0;
    const listener = () => calls++;
    cursorOf("sync-a").listeners.add(listener);
    setCursor("sync-a", 6);
    setCursor("sync-a", 6);
    expect(calls).toBe(1);
    expect(cursorOf("sync-a").t).toBe(6);
    setCursor("sync-b", 3);
    expect(calls).toBe(1);
    setCursor("sync-a", null);
    expect(calls).toBe(2);
    cursorOf("sync-a").listeners.delete(listener);
  });
});
