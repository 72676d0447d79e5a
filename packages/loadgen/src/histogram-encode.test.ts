import { inflateSync } from "node:zlib";
import { createHistogram, decodeHistogram, encodeHistogram, recordMicros } from "@benchboard/core";
import { describe, expect, it } from "vitest";
import { encodeHistogramFast, storedZlib } from "./histogram-encode";

function sameCounts(a: ReturnType<typeof createHistogram>, b: ReturnType<typeof createHistogram>): void {
  expect(a.totalCount).toBe(b.totalCount);
  expect(a.minNonZeroValue).toBe(b.minNonZeroValue);
  expect(a.maxValue).toBe(b.maxValue);
  for (const p of [0, 1, 10, 50, 90, 99, 99.9, 99.99, 100])
    expect(a.getValueAtPercentile(p)).toBe(b.getValueAtPercentile(p));
}

describe("encodeHistogramFast", () => {
  it("decodes to the same histogram as the library's encoding does", () => {
    const cases: number[][] = [
      [1],
      [95, 96, 97, 120, 180, 3_000, 45_000],
      // Long runs of empty buckets, large counts in one bucket, values across the whole range.
      Array.from({ length: 20_000 }, (_, i) => (i % 3 === 0 ? 100 : 50 + ((i * 7919) % 900_000))),
      [3_599_999_999, 1, 60_000_000],
    ];
    for (const values of cases) {
      const h = createHistogram();
      for (const v of values) recordMicros(h, v);
      const fast = decodeHistogram(encodeHistogramFast(h));
      sameCounts(fast, decodeHistogram(encodeHistogram(h)));
      expect(fast.totalCount).toBe(values.length);
    }
  });

  it("holds counts beyond 32 bits, also after its buffer has held a larger histogram", () => {
    const big = createHistogram();
    for (let i = 0; i < 5_000; i++) recordMicros(big, 1 + i * 997);
    encodeHistogramFast(big);
    const h = createHistogram();
    for (let i = 0; i < 1_000; i++) recordMicros(h, 80 + (i % 50));
    h.recordValueWithCount(150, 123_456_789_012);
    sameCounts(decodeHistogram(encodeHistogramFast(h)), decodeHistogram(encodeHistogram(h)));
    expect(decodeHistogram(encodeHistogramFast(h)).totalCount).toBe(1_000 + 123_456_789_012);
  });

  it("wraps data as a zlib stream any inflate reads, across stored-block boundaries", () => {
    for (const size of [0, 1, 65_535, 65_536, 200_000]) {
      const data = Buffer.alloc(size);
      for (let i = 0; i < size; i++) data[i] = (i * 131 + (i >> 9)) & 0xff;
      expect(inflateSync(storedZlib(data)).equals(data)).toBe(true);
    }
  });
});
