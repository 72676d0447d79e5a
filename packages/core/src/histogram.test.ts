import { describe, expect, it } from "vitest";
import { createHistogram, histogramMoments, recordMicros, summarizeHistogram } from "./histogram";

/** A deterministic spread of latencies: a body around 120 µs, a tail to seconds, some exact repeats. */
function sample(n: number, seed: number): number[] {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  return Array.from({ length: n }, (_, i) => {
    const u = next();
    if (i % 97 === 0) return 250;
    if (u > 0.999) return 2_000_000 * next();
    if (u > 0.99) return 5_000 + 50_000 * next();
    return 80 + 80 * next();
  });
}

describe("histogramMoments", () => {
  it("gives hdr-histogram-js's own mean and standard deviation, bit for bit", () => {
    for (const [n, seed] of [
      [1, 1],
      [2, 7],
      [1000, 42],
      [100_000, 3],
    ] as const) {
      const h = createHistogram();
      for (const v of sample(n, seed)) recordMicros(h, v);
      const m = histogramMoments(h);
      expect(m.mean).toBe(h.mean);
      expect(m.stdDeviation).toBe(h.stdDeviation);
    }
  });

  it("is zero for an empty histogram, and the summary uses it", () => {
    expect(histogramMoments(createHistogram())).toEqual({ mean: 0, stdDeviation: 0 });
    const h = createHistogram();
    for (const v of [100, 200, 300]) recordMicros(h, v);
    const s = summarizeHistogram(h);
    expect(s?.latency_mean).toBe(h.mean / 1000);
    expect(s?.latency_stddev).toBe(h.stdDeviation / 1000);
    expect(s?.latency_mean).toBeCloseTo(0.2, 3);
  });
});
