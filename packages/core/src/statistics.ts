/**
 * Small-sample statistics for repetitions of a run. Benchmarks are usually repeated only a few
 * times with unequal spread, so differences are judged with Welch's t-test (no equal-variance
 * assumption) rather than by eye.
 */

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Unbiased sample variance (n − 1); NaN with fewer than two values. */
export function sampleVariance(values: readonly number[]): number {
  if (values.length < 2) return Number.NaN;
  const m = mean(values);
  let sum = 0;
  for (const v of values) sum += (v - m) ** 2;
  return sum / (values.length - 1);
}

/** ln Γ(z) for z > 0 (Lanczos approximation, g = 7; ~15 significant digits). */
export function lnGamma(z: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - lnGamma(1 - z);
  const x = z - 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction for the incomplete beta function (modified Lentz). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** Regularized incomplete beta I_x(a, b). */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The continued fraction converges fast only on one side of the mean of the distribution.
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a;
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

/** Two-sided p-value of Student's t distribution with `df` degrees of freedom. */
export function studentTTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  if (df <= 0 || Number.isNaN(df)) return Number.NaN;
  return regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
}

export interface WelchResult {
  meanA: number;
  meanB: number;
  t: number;
  /** Welch–Satterthwaite degrees of freedom. */
  df: number;
  pValue: number;
}

/** Welch's unequal-variance t-test; null unless both groups have at least two values. */
export function welchTTest(a: readonly number[], b: readonly number[]): WelchResult | null {
  if (a.length < 2 || b.length < 2) return null;
  const meanA = mean(a);
  const meanB = mean(b);
  const sa = sampleVariance(a) / a.length;
  const sb = sampleVariance(b) / b.length;
  const se2 = sa + sb;
  if (se2 === 0) {
    // No spread at all: identical groups are the same, anything else is a certain difference.
    const same = meanA === meanB;
    return { meanA, meanB, t: same ? 0 : Number.POSITIVE_INFINITY, df: a.length + b.length - 2, pValue: same ? 1 : 0 };
  }
  const t = (meanB - meanA) / Math.sqrt(se2);
  const df = se2 ** 2 / (sa ** 2 / (a.length - 1) + sb ** 2 / (b.length - 1));
  return { meanA, meanB, t, df, pValue: studentTTwoSidedP(t, df) };
}

/** The significance level below which a difference between repetition groups counts as real. */
export const NOISE_ALPHA = 0.05;

/** The two-sided critical value of Student's t: P(|T| > t) = alpha, found by bisection. */
export function studentTCritical(alpha: number, df: number): number {
  if (!(alpha > 0 && alpha < 1) || !(df > 0)) return Number.NaN;
  let lo = 0;
  let hi = 1;
  while (studentTTwoSidedP(hi, df) > alpha) hi *= 2;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (studentTTwoSidedP(mid, df) > alpha) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * A confidence interval on the relative change between repetition groups, `(meanB − meanA) / meanA`,
 * from Welch's interval on the difference of means; null unless both groups have two values and
 * the baseline mean is not 0.
 */
export function welchDeltaInterval(
  a: readonly number[],
  b: readonly number[],
  confidence = 0.95,
): { delta: number; low: number; high: number } | null {
  const test = welchTTest(a, b);
  if (!test || test.meanA === 0) return null;
  const se = Math.sqrt(sampleVariance(a) / a.length + sampleVariance(b) / b.length);
  const half = se === 0 ? 0 : studentTCritical(1 - confidence, test.df) * se;
  const diff = test.meanB - test.meanA;
  const scale = Math.abs(test.meanA);
  return { delta: diff / scale, low: (diff - half) / scale, high: (diff + half) / scale };
}

/** Fewer runs than this on either side, and a confidence interval on a delta is withheld. */
export const MIN_INTERVAL_RUNS = 3;

/**
 * A confidence interval on the relative change between repetition groups, on the scale the
 * values live on. Latencies, rates and sizes are positive and vary by ratios: the interval is
 * Welch's on their logarithms, turned back into a change of the geometric means, so it is
 * asymmetric and can never fall below −100 %. With a zero or negative value the linear interval
 * is returned. Null unless both groups have MIN_INTERVAL_RUNS values: with two, Student's t has
 * one or two degrees of freedom and the interval says nothing (±1,000 % and beyond).
 */
export function ratioDeltaInterval(
  a: readonly number[],
  b: readonly number[],
  confidence = 0.95,
): { low: number; high: number; scale: "log" | "linear" } | null {
  if (a.length < MIN_INTERVAL_RUNS || b.length < MIN_INTERVAL_RUNS) return null;
  if (![...a, ...b].every((v) => v > 0 && Number.isFinite(v))) {
    const linear = welchDeltaInterval(a, b, confidence);
    return linear ? { low: linear.low, high: linear.high, scale: "linear" } : null;
  }
  const la = a.map(Math.log);
  const lb = b.map(Math.log);
  const test = welchTTest(la, lb);
  if (!test) return null;
  const se = Math.sqrt(sampleVariance(la) / la.length + sampleVariance(lb) / lb.length);
  const half = se === 0 ? 0 : studentTCritical(1 - confidence, test.df) * se;
  const diff = test.meanB - test.meanA;
  return { low: Math.exp(diff - half) - 1, high: Math.exp(diff + half) - 1, scale: "log" };
}

export interface HistoryTestResult {
  /** Runs the new value was judged against. */
  n: number;
  mean: number;
  stddev: number;
  /** How many standard deviations the new value lies from the history's mean. */
  z: number;
  /** Two-sided p-value of a new observation this far out, from Student's t with n − 1 degrees of freedom. */
  pValue: number;
}

/**
 * A new run's value against the last N baseline runs: is it a plausible next draw from them? The
 * statistic is the prediction t, `(x − mean) / (s·√(1 + 1/n))`, so a short history widens the
 * margin instead of making the gate trigger-happy. Null with fewer than three runs of history.
 */
export function testAgainstHistory(history: readonly number[], value: number): HistoryTestResult | null {
  if (history.length < 3 || !Number.isFinite(value)) return null;
  const m = mean(history);
  const sd = Math.sqrt(sampleVariance(history));
  const n = history.length;
  if (sd === 0) {
    const same = value === m;
    return {
      n,
      mean: m,
      stddev: 0,
      z: same ? 0 : Number.POSITIVE_INFINITY * Math.sign(value - m),
      pValue: same ? 1 : 0,
    };
  }
  const z = (value - m) / sd;
  const t = (value - m) / (sd * Math.sqrt(1 + 1 / n));
  return { n, mean: m, stddev: sd, z, pValue: studentTTwoSidedP(t, n - 1) };
}
