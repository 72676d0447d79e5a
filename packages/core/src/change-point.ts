import { mean } from "./statistics";

/**
 * Change-point detection over a metric's history with e-divisive means (Matteson & James, 2014),
 * the method Apache Otava (formerly Hunter) and Horreum use on benchmark results: find the split
 * that maximizes the energy distance between the points before and after it, keep it when a
 * permutation test says such a split is unlikely by chance, and look again on each side.
 *
 * The permutations come from a seeded generator, so the same history always gives the same answer.
 */

export interface ChangePoint {
  /** Index of the first point after the change (0-based within the series given). */
  index: number;
  /** Mean of the segment before and after the change (bounded by neighbouring change points). */
  before: number;
  after: number;
  /** `(after − before) / before`; null when `before` is 0. */
  change: number | null;
  /** Permutation-test p-value of the split. */
  pValue: number;
}

export interface ChangePointOptions {
  /** A split is kept when its p-value is at most this. */
  maxPValue?: number;
  /** Permutations per significance test. */
  permutations?: number;
  /** Fewest points on either side of a split. */
  minSegment?: number;
  /** Seed of the permutation generator. */
  seed?: number;
}

const DEFAULTS = { maxPValue: 0.01, permutations: 499, minSegment: 3, seed: 0x5eed } as const;

/** A small, fast, seedable generator (mulberry32): uniform numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The best split of `values` (by index) and its statistic: for each split τ, the scaled energy
 * distance τ(n−τ)/n · (2·E|X−Y| − E|X−X'| − E|Y−Y'|), computed for all τ in O(n²) by moving one
 * point at a time from the right side to the left.
 */
function bestSplit(values: readonly number[], minSegment: number): { index: number; statistic: number } | null {
  const n = values.length;
  if (n < 2 * minSegment) return null;
  // Sums of |xi − xj| within the left side, within the right side, and across.
  let within = 0;
  let right = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) right += Math.abs(values[i]! - values[j]!);
  let across = 0;
  let best: { index: number; statistic: number } | null = null;
  for (let tau = 1; tau < n; tau++) {
    // Move point tau − 1 from the right side to the left.
    const m = tau - 1;
    const x = values[m]!;
    let toLeft = 0;
    for (let i = 0; i < m; i++) toLeft += Math.abs(x - values[i]!);
    let toRight = 0;
    for (let j = m + 1; j < n; j++) toRight += Math.abs(x - values[j]!);
    within += toLeft;
    right -= toRight;
    across += toRight - toLeft;
    if (tau < minSegment || n - tau < minSegment) continue;
    const l = tau;
    const r = n - tau;
    const betweenMean = across / (l * r);
    const leftMean = l > 1 ? within / ((l * (l - 1)) / 2) : 0;
    const rightMean = r > 1 ? right / ((r * (r - 1)) / 2) : 0;
    const statistic = ((l * r) / n) * (2 * betweenMean - leftMean - rightMean);
    if (!best || statistic > best.statistic) best = { index: tau, statistic };
  }
  return best;
}

function shuffled(values: readonly number[], random: () => number): number[] {
  const out = values.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Change points in `values`, in order. Non-finite values are not allowed (leave them out first). */
export function detectChangePoints(values: readonly number[], options: ChangePointOptions = {}): ChangePoint[] {
  const { maxPValue, permutations, minSegment, seed } = { ...DEFAULTS, ...options };
  if (values.some((v) => !Number.isFinite(v))) throw new RangeError("change points need finite values");
  const random = seededRandom(seed);
  const found: { index: number; pValue: number }[] = [];
  // Binary segmentation: test a segment, and when it splits, test both halves.
  const pending: [number, number][] = [[0, values.length]];
  while (pending.length) {
    const [start, end] = pending.pop()!;
    const segment = values.slice(start, end);
    const split = bestSplit(segment, minSegment);
    if (!split || !(split.statistic > 0)) continue;
    let asExtreme = 0;
    for (let p = 0; p < permutations; p++) {
      const permuted = bestSplit(shuffled(segment, random), minSegment);
      if (permuted && permuted.statistic >= split.statistic) asExtreme++;
    }
    const pValue = (asExtreme + 1) / (permutations + 1);
    if (pValue > maxPValue) continue;
    const at = start + split.index;
    found.push({ index: at, pValue });
    pending.push([start, at], [at, end]);
  }
  const indexes = found.map((f) => f.index).sort((a, b) => a - b);
  return indexes.map((index, i) => {
    const before = mean(values.slice(indexes[i - 1] ?? 0, index));
    const after = mean(values.slice(index, indexes[i + 1] ?? values.length));
    return {
      index,
      before,
      after,
      change: before === 0 ? null : (after - before) / before,
      pValue: found.find((f) => f.index === index)!.pValue,
    };
  });
}
