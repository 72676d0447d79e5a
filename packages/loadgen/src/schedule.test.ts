import { describe, expect, it } from "vitest";
import { ArrivalSchedule } from "./schedule";

describe("ArrivalSchedule", () => {
  it("spaces a constant rate evenly", () => {
    const s = new ArrivalSchedule(5000, 60);
    expect(s.total).toBe(300_000);
    expect(s.timeOfMs(0)).toBe(0);
    expect(s.timeOfMs(1)).toBeCloseTo(0.2, 9);
    expect(s.timeOfMs(5000)).toBeCloseTo(1000, 6);
    expect(s.meanRate).toBe(5000);
  });

  it("ramps linearly, then holds", () => {
    const s = new ArrivalSchedule(100, 20, 0, 10);
    // 0→100 over 10 s is 500 requests, then 100/s for 10 s.
    expect(s.total).toBe(1500);
    expect(s.countAt(10)).toBeCloseTo(500, 9);
    expect(s.rateAt(5)).toBeCloseTo(50, 9);
    expect(s.timeOfMs(500)).toBeCloseTo(10_000, 6);
    expect(s.timeOfMs(600)).toBeCloseTo(11_000, 6);
    // The n-th due time inverts the cumulative count.
    for (const n of [1, 50, 123, 499]) expect(s.countAt(s.timeOfMs(n) / 1000)).toBeCloseTo(n, 6);
  });

  it("handles a decreasing ramp", () => {
    const s = new ArrivalSchedule(10, 4, 30, 2);
    expect(s.total).toBe(60);
    for (const n of [0, 7, 39, 41, 59]) expect(s.countAt(s.timeOfMs(n) / 1000)).toBeCloseTo(n, 6);
    // Due times never go backwards.
    for (let n = 1; n < s.total; n++) expect(s.timeOfMs(n)).toBeGreaterThan(s.timeOfMs(n - 1));
  });
});
