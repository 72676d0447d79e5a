import { describe, expect, it } from "vitest";
import { arrowStep, cursorOf, nearest, pointerFraction, setCursor, timeTicks, valueAxisWidth } from "./plot";

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

describe("arrowStep", () => {
  it("steps one point, stops at the ends, and starts from the end the key points away from", () => {
    expect(arrowStep("ArrowRight", null, 5)).toBe(0);
    expect(arrowStep("ArrowLeft", null, 5)).toBe(4);
    expect(arrowStep("ArrowRight", 2, 5)).toBe(3);
    expect(arrowStep("ArrowLeft", 0, 5)).toBe(0);
    expect(arrowStep("ArrowRight", 4, 5)).toBe(4);
    expect(arrowStep("ArrowUp", 2, 5)).toBeNull();
    expect(arrowStep("ArrowRight", null, 0)).toBeNull();
  });
});

describe("the plot's geometry", () => {
  it("sizes the value axis from its longest label, never under 28 px", () => {
    expect(valueAxisWidth(["0", "5"])).toBe(28);
    expect(valueAxisWidth(["0", "1,000", "200.00 MiB"])).toBe(Math.ceil(10 * 6.6) + 8);
  });

  it("reads the pointer as a share of the plot between its insets, clamped to it", () => {
    const box = { getBoundingClientRect: () => ({ left: 100, width: 540 }) } as unknown as Element;
    const at = (clientX: number) => pointerFraction({ clientX, currentTarget: box }, 40, 0);
    expect(at(140)).toBe(0);
    expect(at(390)).toBe(0.5);
    expect(at(640)).toBe(1);
    expect(at(50)).toBe(0);
    expect(at(900)).toBe(1);
  });
});
