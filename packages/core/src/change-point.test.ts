import { describe, expect, it } from "vitest";
import { detectChangePoints, seededRandom } from "./change-point";

/** `n` values around `level` with uniform noise of ±`noise` (a fraction), from a seeded generator. */
function noisy(random: () => number, n: number, level: number, noise: number): number[] {
  return Array.from({ length: n }, () => level * (1 + (random() * 2 - 1) * noise));
}

describe("detectChangePoints (e-divisive means)", () => {
  it("finds a +15 % step at run 20 of 30 under ±3 % noise", () => {
    for (const seed of [1, 2, 3, 42, 2026]) {
      const random = seededRandom(seed);
      const history = [...noisy(random, 19, 100, 0.03), ...noisy(random, 11, 115, 0.03)];
      const points = detectChangePoints(history);
      expect(points, `seed ${seed}`).toHaveLength(1);
      // Index 19 is the 20th run: the first one at the new level.
      expect(points[0]!.index + 1, `seed ${seed}`).toBe(20);
      expect(points[0]!.change!).toBeGreaterThan(0.12);
      expect(points[0]!.change!).toBeLessThan(0.18);
      expect(points[0]!.pValue).toBeLessThanOrEqual(0.01);
    }
  });

  it("finds nothing in 30 runs of ±3 % noise alone", () => {
    for (const seed of [1, 2, 3, 42, 2026]) {
      expect(detectChangePoints(noisy(seededRandom(seed), 30, 100, 0.03)), `seed ${seed}`).toEqual([]);
    }
  });

  it("finds a drop as well as a rise, and two steps as two change points", () => {
    const random = seededRandom(7);
    const history = [...noisy(random, 12, 50, 0.02), ...noisy(random, 12, 40, 0.02), ...noisy(random, 12, 48, 0.02)];
    const points = detectChangePoints(history);
    expect(points.map((p) => p.index)).toEqual([12, 24]);
    expect(points[0]!.change!).toBeCloseTo(-0.2, 1);
    expect(points[1]!.change!).toBeCloseTo(0.2, 1);
  });

  it("is deterministic and leaves short histories alone", () => {
    const random = seededRandom(9);
    const history = [...noisy(random, 10, 10, 0.05), ...noisy(random, 10, 13, 0.05)];
    expect(detectChangePoints(history)).toEqual(detectChangePoints(history));
    expect(detectChangePoints([1, 2, 3, 100, 100])).toEqual([]);
    expect(() => detectChangePoints([1, Number.NaN, 3])).toThrow(RangeError);
  });

  it("finds a 5 % step in a 10,000-point line and nothing in 10,000 points of noise alone", () => {
    for (const seed of [1, 42, 2026]) {
      const random = seededRandom(seed);
      const history = [...noisy(random, 6_300, 100, 0.1), ...noisy(random, 3_700, 105, 0.1)];
      const points = detectChangePoints(history);
      expect(points, `seed ${seed}`).toHaveLength(1);
      expect(Math.abs(points[0]!.index - 6_300), `seed ${seed}`).toBeLessThanOrEqual(25);
      expect(points[0]!.change!).toBeCloseTo(0.05, 2);
      expect(points[0]!.pValue).toBeLessThanOrEqual(0.01);
      expect(detectChangePoints(noisy(random, 10_000, 100, 0.1)), `seed ${seed}`).toEqual([]);
    }
  });

  it("finds two steps in a long line, one of them in a segment shorter than the block test's", () => {
    const random = seededRandom(11);
    const history = [
      ...noisy(random, 5_000, 100, 0.05),
      ...noisy(random, 4_400, 92, 0.05),
      ...noisy(random, 600, 100, 0.05),
    ];
    expect(detectChangePoints(history).map((p) => p.index)).toEqual([5_000, 9_400]);
  });
});
