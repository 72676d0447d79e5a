/**
 * Reading HDR histograms that came from outside (uploads): a bounded decode that never trusts
 * the blob's own sizes, and a canonical re-encoding in the engines' settings. Server-only (it
 * uses node:zlib), so it is not exported from the package index that pages import.
 */
import { inflateSync } from "node:zlib";
import {
  createHistogram,
  encodeHistogram,
  HISTOGRAM_MAX_US,
  type LatencyHistogram,
  MAX_HISTOGRAM_COUNT,
} from "./histogram";

export { MAX_HISTOGRAM_COUNT };

/** Longest encoded histogram accepted (base64 characters). */
export const MAX_ENCODED_HISTOGRAM_CHARS = 1_000_000;
/**
 * Most bytes one histogram may inflate to. An engine's histogram (1 µs to 1 h, 3 significant
 * digits) is at most about 50,000 buckets, well under this even when every bucket is used.
 */
export const MAX_INFLATED_HISTOGRAM_BYTES = 1_000_000;

/** Why an encoded histogram was refused, in plain words. */
export class HistogramInputError extends Error {
  override readonly name = "HistogramInputError";
}

const COMPRESSED_COOKIE_BASE = 0x1c849304;
const ENCODING_COOKIE_BASE = 0x1c849303;
const HEADER_BYTES = 40;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Shared by all histograms of one upload, so many small blobs cannot add up to a large one. */
export interface InflateBudget {
  bytesLeft: number;
}

/**
 * Decodes a compressed-base64 HDR histogram (V2 encoding) without trusting its sizes: the
 * inflate stops at `MAX_INFLATED_HISTOGRAM_BYTES` (or the budget), the counts are read one by
 * one and recorded into a histogram of the engines' own settings, values above one hour and
 * totals above `MAX_HISTOGRAM_COUNT` are refused.
 */
export function decodeHistogramBounded(encoded: string, budget?: InflateBudget): LatencyHistogram {
  const text = encoded.trim();
  if (text.length > MAX_ENCODED_HISTOGRAM_CHARS) {
    throw new HistogramInputError(`is longer than ${MAX_ENCODED_HISTOGRAM_CHARS.toLocaleString("en-US")} characters`);
  }
  if (!BASE64.test(text)) throw new HistogramInputError("is not base64 text");
  const data = Buffer.from(text, "base64");
  if (data.length < 8 || (data.readInt32BE(0) & ~0xf0) !== COMPRESSED_COOKIE_BASE) {
    throw new HistogramInputError("is not a compressed HdrHistogram (V2 encoding)");
  }
  const compressedLength = data.readInt32BE(4);
  if (compressedLength < 0 || 8 + compressedLength > data.length) throw new HistogramInputError("is truncated");
  const limit = Math.min(MAX_INFLATED_HISTOGRAM_BYTES, budget?.bytesLeft ?? MAX_INFLATED_HISTOGRAM_BYTES);
  let raw: Buffer;
  try {
    raw = inflateSync(data.subarray(8, 8 + compressedLength), { maxOutputLength: Math.max(1, limit) });
  } catch (err) {
    if (err instanceof RangeError || (err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new HistogramInputError(`inflates to more than ${limit.toLocaleString("en-US")} bytes`);
    }
    throw new HistogramInputError("does not inflate (corrupt data)");
  }
  if (budget) budget.bytesLeft -= raw.length;
  return readCounts(raw);
}

function readCounts(raw: Buffer): LatencyHistogram {
  if (raw.length < HEADER_BYTES || (raw.readInt32BE(0) & ~0xf0) !== ENCODING_COOKIE_BASE) {
    throw new HistogramInputError("has no HdrHistogram header");
  }
  const payloadLength = raw.readInt32BE(4);
  const significantDigits = raw.readInt32BE(12);
  const lowest = Number(raw.readBigInt64BE(16));
  if (payloadLength < 0 || HEADER_BYTES + payloadLength > raw.length) throw new HistogramInputError("is truncated");
  if (!Number.isInteger(significantDigits) || significantDigits < 1 || significantDigits > 5) {
    throw new HistogramInputError("has significant digits outside 1 to 5");
  }
  if (!(lowest >= 1 && lowest <= HISTOGRAM_MAX_US)) {
    throw new HistogramInputError("has a lowest discernible value outside 1 µs to one hour");
  }
  const subBucketHalfCountMagnitude = Math.max(1, Math.ceil(Math.log2(2 * 10 ** significantDigits))) - 1;
  const subBucketHalfCount = 2 ** subBucketHalfCountMagnitude;
  const unitMagnitude = Math.floor(Math.log2(lowest));
  const valueFromIndex = (index: number): number => {
    let bucketIndex = Math.floor(index / subBucketHalfCount) - 1;
    let subBucketIndex = (index % subBucketHalfCount) + subBucketHalfCount;
    if (bucketIndex < 0) {
      subBucketIndex -= subBucketHalfCount;
      bucketIndex = 0;
    }
    return subBucketIndex * 2 ** (bucketIndex + unitMagnitude);
  };

  const histogram = createHistogram();
  const end = HEADER_BYTES + payloadLength;
  let position = HEADER_BYTES;
  let index = 0;
  let total = 0;
  while (position < end) {
    // ZigZag LEB128, at most 9 bytes: positive values are counts, negative ones runs of zeros.
    let value = 0;
    let shift = 1;
    let byte = 0;
    for (let i = 0; i < 9; i++) {
      if (position >= end) throw new HistogramInputError("is truncated");
      byte = raw[position++] ?? 0;
      value += (i === 8 ? byte : byte & 0x7f) * shift;
      shift *= 128;
      if (i < 8 && (byte & 0x80) === 0) break;
    }
    if (value > Number.MAX_SAFE_INTEGER) throw new HistogramInputError("holds a count too large to read exactly");
    const count = value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    if (count < 0) {
      index += -count;
      continue;
    }
    if (count > 0) {
      const at = valueFromIndex(index);
      if (at > HISTOGRAM_MAX_US) throw new HistogramInputError("holds a latency above one hour");
      total += count;
      if (total > MAX_HISTOGRAM_COUNT) {
        throw new HistogramInputError(`counts more than ${MAX_HISTOGRAM_COUNT.toExponential()} samples`);
      }
      histogram.recordValueWithCount(Math.max(1, at), count);
    }
    index++;
  }
  return histogram;
}

/** The histogram re-encoded the way the engines encode theirs, so views read a trusted blob. */
export function canonicalHistogram(encoded: string, budget?: InflateBudget): string {
  return encodeHistogram(decodeHistogramBounded(encoded, budget));
}
