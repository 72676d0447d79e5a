import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createHistogram, encodeHistogram, recordMicros } from "./histogram";
import { canonicalHistogram, decodeHistogramBounded, HistogramInputError } from "./histogram-input";

/** A compressed V2 blob around `raw` (the uncompressed encoding), as an attacker would build it. */
function compressed(raw: Buffer): string {
  const body = deflateSync(raw, { level: 9 });
  const head = Buffer.alloc(8);
  head.writeInt32BE(0x1c849304 | 0x10, 0);
  head.writeInt32BE(body.length, 4);
  return Buffer.concat([head, body]).toString("base64");
}

function header(payloadLength: number, { digits = 3, lowest = 1n, highest = 3_600_000_000n } = {}): Buffer {
  const h = Buffer.alloc(40);
  h.writeInt32BE(0x1c849303 | 0x10, 0);
  h.writeInt32BE(payloadLength, 4);
  h.writeInt32BE(0, 8);
  h.writeInt32BE(digits, 12);
  h.writeBigInt64BE(lowest, 16);
  h.writeBigInt64BE(highest, 24);
  h.writeDoubleBE(1, 32);
  return h;
}

function errorOf(fn: () => unknown): HistogramInputError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HistogramInputError);
    return err as HistogramInputError;
  }
  throw new Error("nothing was thrown");
}

describe("decodeHistogramBounded", () => {
  it("reads an engine's histogram back exactly, and re-encodes it to the same text", () => {
    const h = createHistogram();
    for (let i = 1; i <= 5_000; i++) recordMicros(h, i * 997);
    const encoded = encodeHistogram(h);
    const decoded = decodeHistogramBounded(encoded);
    expect(decoded.totalCount).toBe(5_000);
    expect(decoded.getValueAtPercentile(99)).toBe(h.getValueAtPercentile(99));
    expect(canonicalHistogram(encoded)).toBe(encoded);
  });

  it("refuses a small blob that inflates to 50 MB", () => {
    const payload = Buffer.alloc(50_000_000); // zero bytes: counts of zero, one index each
    const bomb = compressed(Buffer.concat([header(payload.length), payload]));
    expect(bomb.length).toBeLessThan(200_000);
    expect(errorOf(() => decodeHistogramBounded(bomb)).message).toBe("inflates to more than 1,000,000 bytes");
  });

  it("refuses a header asking for a huge counts array without allocating it", () => {
    const blob = compressed(Buffer.concat([header(1, { digits: 5, highest: 2n ** 62n }), Buffer.from([2])]));
    const h = decodeHistogramBounded(blob);
    expect(h.totalCount).toBe(1);
    expect(errorOf(() => decodeHistogramBounded(compressed(header(0, { digits: 9 })))).message).toMatch(/digits/);
  });

  it("refuses latencies above one hour and absurd totals", () => {
    // A run of 2^40 zeros, then a count of 1: an index far beyond one hour.
    const far = Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x3f, 0x02]);
    expect(errorOf(() => decodeHistogramBounded(compressed(Buffer.concat([header(far.length), far])))).message).toBe(
      "holds a latency above one hour",
    );
    const huge = Buffer.from([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]); // 2^48 - 1 samples
    expect(
      errorOf(() => decodeHistogramBounded(compressed(Buffer.concat([header(huge.length), huge])))).message,
    ).toMatch(/counts more than/);
  });

  it("refuses text that is not a histogram", () => {
    expect(errorOf(() => decodeHistogramBounded("not base64!")).message).toBe("is not base64 text");
    expect(errorOf(() => decodeHistogramBounded("AAAA")).message).toMatch(/not a compressed HdrHistogram/);
    expect(errorOf(() => decodeHistogramBounded(compressed(Buffer.from("short")))).message).toMatch(/header/);
  });
});
