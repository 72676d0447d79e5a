import { describe, expect, it } from "vitest";
import {
  lnGamma,
  mean,
  regularizedIncompleteBeta,
  sampleVariance,
  studentTCritical,
  studentTTwoSidedP,
  testAgainstHistory,
  welchDeltaInterval,
  welchTTest,
} from "./statistics";

describe("basic statistics", () => {
  it("computes mean and unbiased variance", () => {
    expect(mean([2, 4, 4, 4, 5, 5, 7, 9])).toBe(5);
    expect(sampleVariance([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(32 / 7, 12);
    expect(sampleVariance([3])).toBeNaN();
  });

  it("matches known values of ln Γ and the incomplete beta", () => {
    expect(lnGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(lnGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    // I_x(1, 1) = x and I_x(a, 1) = x^a.
    expect(regularizedIncompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(regularizedIncompleteBeta(0.6, 3, 1)).toBeCloseTo(0.216, 12);
  });
});

describe("Student's t distribution", () => {
  it("gives the Cauchy closed form at one degree of freedom", () => {
    for (const t of [0.5, 1, 3]) {
      expect(studentTTwoSidedP(t, 1)).toBeCloseTo(1 - (2 / Math.PI) * Math.atan(t), 10);
    }
  });

  it("reproduces textbook critical values", () => {
    // t(0.975, 10) = 2.228139 and t(0.995, 4) = 4.604095.
    expect(studentTTwoSidedP(2.228139, 10)).toBeCloseTo(0.05, 5);
    expect(studentTTwoSidedP(4.604095, 4)).toBeCloseTo(0.01, 5);
    expect(studentTTwoSidedP(0, 7)).toBeCloseTo(1, 12);
  });
});

describe("Welch's t-test", () => {
  it("handles unequal variances and group sizes", () => {
    const a = [19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0];
    const b = [28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7, 23.2, 17.5, 20.6, 18.0, 23.9, 21.6];
    const r = welchTTest(a, b)!;
    const sa = sampleVariance(a) / a.length;
    const sb = sampleVariance(b) / b.length;
    expect(r.t).toBeCloseTo((mean(b) - mean(a)) / Math.sqrt(sa + sb), 12);
    expect(r.df).toBeCloseTo((sa + sb) ** 2 / (sa ** 2 / 9 + sb ** 2 / 15), 10);
    // Reference figures from numerically integrating the t density (independent of the beta function).
    expect(r.t).toBeCloseTo(2.33957, 4);
    expect(r.df).toBeCloseTo(19.012, 3);
    expect(r.pValue).toBeCloseTo(0.030371, 5);
  });

  it("finds overlapping repetitions within noise and separated ones significant", () => {
    expect(welchTTest([100, 104, 98], [101, 99, 103])!.pValue).toBeGreaterThan(0.5);
    expect(welchTTest([100, 101, 99], [120, 121, 119])!.pValue).toBeLessThan(0.001);
  });

  it("needs two values per group and copes with zero spread", () => {
    expect(welchTTest([1], [1, 2])).toBeNull();
    expect(welchTTest([5, 5], [5, 5])!.pValue).toBe(1);
    expect(welchTTest([5, 5], [6, 6])!.pValue).toBe(0);
  });
});

describe("history gate and delta intervals", () => {
  it("judges a new value against the last runs with a prediction t-test", () => {
    const history = [100, 102, 98, 101, 99, 100, 103, 97];
    expect(testAgainstHistory(history, 100.5)!.pValue).toBeGreaterThan(0.5);
    const far = testAgainstHistory(history, 115)!;
    expect(far.z).toBeGreaterThan(6);
    expect(far.pValue).toBeLessThan(0.001);
    expect(testAgainstHistory([1, 2], 3)).toBeNull();
  });

  it("gives the t critical value and a confidence interval on the relative delta", () => {
    expect(studentTCritical(0.05, 10)).toBeCloseTo(2.228, 3);
    expect(studentTCritical(0.05, 1000)).toBeCloseTo(1.962, 2);
    const ci = welchDeltaInterval([100, 102, 98], [110, 112, 108])!;
    expect(ci.delta).toBeCloseTo(0.1, 10);
    expect(ci.low).toBeGreaterThan(0);
    expect(ci.high).toBeGreaterThan(ci.delta);
    const overlapping = welchDeltaInterval([100, 110, 90], [101, 111, 91])!;
    expect(overlapping.low).toBeLessThan(0);
    expect(overlapping.high).toBeGreaterThan(0);
  });
});
