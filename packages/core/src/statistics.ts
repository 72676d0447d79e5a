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
