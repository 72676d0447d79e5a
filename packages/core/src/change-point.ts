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

/** Counts and sums of the values present, by rank: prefix queries and updates in O(log n). */
class RankTree {
  readonly count: Int32Array;
  readonly sum: Float64Array;
  constructor(readonly size: number) {
    this.count = new Int32Array(size + 1);
    this.sum = new Float64Array(size + 1);
  }
  /** Every value present (rank k holds `sorted[k − 1]`), built in O(n). */
  fill(sorted: Float64Array): void {
    const { count, sum, size } = this;
    count.fill(0);
    sum.fill(0);
    for (let i = 1; i <= size; i++) {
      count[i] = (count[i] ?? 0) + 1;
      sum[i] = (sum[i] ?? 0) + (sorted[i - 1] ?? 0);
      const parent = i + (i & -i);
      if (parent <= size) {
        count[parent] = (count[parent] ?? 0) + (count[i] ?? 0);
        sum[parent] = (sum[parent] ?? 0) + (sum[i] ?? 0);
      }
    }
  }
  clear(): void {
    this.count.fill(0);
    this.sum.fill(0);
  }
  add(rank: number, value: number, sign: 1 | -1): void {
    const { count, sum, size } = this;
    for (let i = rank; i <= size; i += i & -i) {
      count[i] = (count[i] ?? 0) + sign;
      sum[i] = (sum[i] ?? 0) + sign * value;
    }
  }
  /** Σ |x − y| over the values y present (their count and sum given); x has rank `rank`. */
  distanceSum(rank: number, x: number, totalCount: number, totalSum: number): number {
    let below = 0;
    let belowSum = 0;
    for (let i = rank - 1; i > 0; i -= i & -i) {
      below += this.count[i] ?? 0;
      belowSum += this.sum[i] ?? 0;
    }
    return x * below - belowSum + (totalSum - belowSum) - x * (totalCount - below);
  }
}

/** A segment's values with their ranks (ties get distinct ranks), sorted once for every permutation. */
interface Ranked {
  values: Float64Array;
  ranks: Int32Array;
  sorted: Float64Array;
  /** Σ_{i<j} |xi − xj| over the whole segment. */
  pairSum: number;
  left: RankTree;
  right: RankTree;
}

function ranked(values: readonly number[]): Ranked {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (values[a] ?? 0) - (values[b] ?? 0) || a - b);
  const ranks = new Int32Array(n);
  const sorted = new Float64Array(n);
  let pairSum = 0;
  order.forEach((index, k) => {
    const v = values[index] ?? 0;
    ranks[index] = k + 1;
    sorted[k] = v;
    pairSum += v * (2 * k - n + 1);
  });
  return { values: Float64Array.from(values), ranks, sorted, pairSum, left: new RankTree(n), right: new RankTree(n) };
}

/**
 * The best split of a segment (by index) and its statistic: for each split τ, the scaled energy
 * distance τ(n−τ)/n · (2·E|X−Y| − E|X−X'| − E|Y−Y'|), computed for all τ by moving one point at a
 * time from the right side to the left. The moved point's distance sums to each side come from
 * rank trees, so the scan is O(n log n) rather than O(n²): a 10,000-run line stays interactive.
 */
function bestSplit(
  seg: Ranked,
  values: Float64Array,
  ranks: Int32Array,
  minSegment: number,
): { index: number; statistic: number } | null {
  const n = values.length;
  if (n < 2 * minSegment) return null;
  const { left: leftTree, right: rightTree } = seg;
  leftTree.clear();
  rightTree.fill(seg.sorted);
  let rightCount = n;
  let rightTotal = 0;
  for (let i = 0; i < n; i++) rightTotal += values[i] ?? 0;
  let leftTotal = 0;
  // Sums of |xi − xj| within the left side, within the right side, and across.
  let within = 0;
  let right = seg.pairSum;
  let across = 0;
  let best: { index: number; statistic: number } | null = null;
  for (let tau = 1; tau < n; tau++) {
    // Move point tau − 1 from the right side to the left.
    const x = values[tau - 1] ?? 0;
    const rank = ranks[tau - 1] ?? 1;
    rightTree.add(rank, x, -1);
    rightCount -= 1;
    rightTotal -= x;
    const toLeft = leftTree.distanceSum(rank, x, tau - 1, leftTotal);
    const toRight = rightTree.distanceSum(rank, x, rightCount, rightTotal);
    leftTree.add(rank, x, 1);
    leftTotal += x;
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

/**
 * Segments longer than this are tested on block means (see `blockMeans`); shorter ones point by
 * point, exactly as before.
 */
const LONG_SEGMENT = 1_000;
/** Blocks a long segment's test uses at most. */
const LONG_SEGMENT_BLOCKS = 200;
const LONG_SEGMENT_PERMUTATIONS = 99;

/**
 * A long segment's values as the means of consecutive blocks of k points, all blocks of the same
 * size (the last n mod k points are left out of the test; they stay in the segment). When the
 * points are exchangeable (no change), so are the means of equal blocks, so a permutation test on
 * them is still exact at its level; it costs O(m log m) per permutation for m ≤ 200 blocks instead
 * of O(n log n) for n points. Averaging k points divides the noise's spread by √k, so a shift in
 * the mean that lasts many blocks is found at least as surely; what it gives up is a change that
 * lasts less than a few blocks, or one in spread alone, on lines of thousands of points.
 */
function blockMeans(values: Float64Array): number[] {
  const k = Math.ceil(values.length / LONG_SEGMENT_BLOCKS);
  const m = Math.floor(values.length / k);
  const means: number[] = [];
  for (let b = 0; b < m; b++) {
    let sum = 0;
    for (let i = b * k; i < (b + 1) * k; i++) sum += values[i] ?? 0;
    means.push(sum / k);
  }
  return means;
}

/**
 * The permutation test's p-value for a segment's best split, or null when it exceeds
 * `maxPValue`. The test stops as soon as enough permutations reached the statistic for the
 * p-value to exceed `maxPValue` whatever the rest give (the same answer as running them all).
 */
function permutationPValue(
  seg: Ranked,
  statistic: number,
  options: { permutations: number; maxPValue: number; minSegment: number; random: () => number },
): number | null {
  const n = seg.values.length;
  const permutations = options.permutations;
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const values = new Float64Array(n);
  const ranks = new Int32Array(n);
  let asExtreme = 0;
  for (let p = 0; p < permutations; p++) {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(options.random() * (i + 1));
      const t = order[i] ?? 0;
      order[i] = order[j] ?? 0;
      order[j] = t;
    }
    for (let i = 0; i < n; i++) {
      const from = order[i] ?? 0;
      values[i] = seg.values[from] ?? 0;
      ranks[i] = seg.ranks[from] ?? 1;
    }
    const permuted = bestSplit(seg, values, ranks, options.minSegment);
    if (permuted && permuted.statistic >= statistic) asExtreme++;
    if ((asExtreme + 1) / (permutations + 1) > options.maxPValue) return null;
  }
  return (asExtreme + 1) / (permutations + 1);
}

/**
 * A long segment's p-value: the permutation test of the best split of its block means, with the
 * fewest permutations that can still reach `maxPValue` (99 at the default 0.01) — the test's cost
 * no longer grows with the line. The split itself is still placed at full resolution.
 */
function longSegmentPValue(
  seg: Ranked,
  options: { permutations: number; maxPValue: number; minSegment: number; random: () => number },
): number | null {
  const blocks = ranked(blockMeans(seg.values));
  const split = bestSplit(blocks, blocks.values, blocks.ranks, options.minSegment);
  if (!split || !(split.statistic > 0)) return null;
  const permutations = Math.min(
    options.permutations,
    Math.max(LONG_SEGMENT_PERMUTATIONS, Math.ceil(1 / options.maxPValue) - 1),
  );
  return permutationPValue(blocks, split.statistic, { ...options, permutations });
}

/** A generator per segment: its test does not depend on which segments were tested before it. */
function segmentRandom(seed: number, start: number, end: number): () => number {
  return seededRandom(Math.imul(seed ^ Math.imul(start + 1, 0x9e3779b1), 0x85ebca6b) ^ Math.imul(end + 1, 0xc2b2ae35));
}

/** Change points in `values`, in order. Non-finite values are not allowed (leave them out first). */
export function detectChangePoints(values: readonly number[], options: ChangePointOptions = {}): ChangePoint[] {
  const { maxPValue, permutations, minSegment, seed } = { ...DEFAULTS, ...options };
  if (values.some((v) => !Number.isFinite(v))) throw new RangeError("change points need finite values");
  const found: { index: number; pValue: number }[] = [];
  // Binary segmentation: test a segment, and when it splits, test both halves.
  const pending: [number, number][] = [[0, values.length]];
  while (pending.length) {
    const [start, end] = pending.pop()!;
    if (end - start < 2 * minSegment) continue;
    const seg = ranked(values.slice(start, end));
    const split = bestSplit(seg, seg.values, seg.ranks, minSegment);
    if (!split || !(split.statistic > 0)) continue;
    const random = segmentRandom(seed, start, end);
    const pValue =
      end - start > LONG_SEGMENT
        ? longSegmentPValue(seg, { permutations, maxPValue, minSegment, random })
        : permutationPValue(seg, split.statistic, { permutations, maxPValue, minSegment, random });
    if (pValue === null) continue;
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
