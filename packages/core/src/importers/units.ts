/** Unit conversions into the metric vocabulary's units: ms, bytes, percent. */

const TIME_TO_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** `813.49us`, `2.15ms`, `1.02s`, `2.00m` → milliseconds; undefined when not a duration. */
export function parseDurationMs(token: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|s|m|h)$/.exec(token.trim());
  if (!match) return undefined;
  const factor = TIME_TO_MS[match[2] ?? ""];
  return factor === undefined ? undefined : Number(match[1]) * factor;
}

const METRIC_SUFFIX: Record<string, number> = { "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };

/** wrk's decimal-suffixed counts: `21.27k`, `1.20M`, `310.22` → plain numbers. */
export function parseMetricCount(token: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([kMGTP]?)$/.exec(token.trim());
  if (!match) return undefined;
  return Number(match[1]) * (METRIC_SUFFIX[match[2] ?? ""] ?? 1);
}

const BINARY_SUFFIX: Record<string, number> = {
  "": 1,
  K: 1024,
  M: 1024 ** 2,
  G: 1024 ** 3,
  T: 1024 ** 4,
  P: 1024 ** 5,
};

/** wrk's binary sizes: `21.70MB`, `512.00KB`, `0.00B` → bytes. */
export function parseBinaryBytes(token: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([KMGTP]?)B$/.exec(token.trim());
  if (!match) return undefined;
  return Number(match[1]) * (BINARY_SUFFIX[match[2] ?? ""] ?? 1);
}

export const nsToMs = (ns: number): number => ns / 1e6;
export const secondsToMs = (s: number): number => s * 1000;
export const mibToBytes = (mib: number): number => mib * 1024 * 1024;

/** Keeps float noise out of converted values (0.1 * 3 style artefacts), not real precision. */
export function roundTo(value: number, digits = 9): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
