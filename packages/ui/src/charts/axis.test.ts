import { describe, expect, it } from "vitest";
import { valueAxis } from "./axis";

const steps = (ticks: number[]) => ticks.slice(1).map((t, i) => +(t - ticks[i]!).toPrecision(12));

describe("valueAxis", () => {
  it("ticks evenly from 0 to the first round number at or above the largest value", () => {
    for (const max of [0.37, 3, 9.9, 97, 110, 124, 126, 480, 4_216, 73_000, 1.2e9]) {
      const { ticks, domain } = valueAxis([max / 3, max, max / 2], { height: 300 });
      expect(ticks[0]).toBe(0);
      expect(new Set(steps(ticks)).size, `steps of ${ticks.join(", ")}`).toBe(1);
      expect(ticks[ticks.length - 1]!).toBeGreaterThanOrEqual(max);
      expect(domain).toEqual([0, ticks[ticks.length - 1]]);
      // a round step: 1, 2, 2.5 or 5 times a power of ten
      const step = steps(ticks)[0]!;
      const mantissa = +(step / 10 ** Math.floor(Math.log10(step))).toPrecision(6);
      expect([1, 2, 2.5, 5]).toContain(mantissa);
    }
  });

  it("keeps 100 between 75 and 125", () => {
    expect(valueAxis([110], { height: 240 }).ticks).toEqual([0, 25, 50, 75, 100, 125]);
  });

  it("reaches a threshold above every value", () => {
    const { ticks } = valueAxis([40, 42, 250], { height: 260 });
    expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(250);
  });

  it("puts fewer ticks on a short chart", () => {
    expect(valueAxis([97], { height: 180 }).ticks.length).toBeLessThan(valueAxis([97], { height: 320 }).ticks.length);
    expect(valueAxis([97], { height: 180 }).ticks.length).toBeLessThanOrEqual(5);
  });

  it("steps bytes by binary units", () => {
    const { ticks } = valueAxis([120 * 1024 * 1024], { binary: true, height: 240 });
    expect(steps(ticks).every((s) => s === 25 * 1024 * 1024)).toBe(true);
  });

  it("ignores missing values and has an axis with nothing to show", () => {
    expect(valueAxis([null, undefined, Number.NaN]).ticks).toEqual([0, 1]);
  });
});
