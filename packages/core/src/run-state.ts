/**
 * How a finished run's figures read. Three readings, never two:
 * - **valid**: the figures measure the target at the load that was asked for;
 * - **saturated**: still valid — the target was the limit (its queue grew, requests waited for
 *   its connections, its own stage slowed), and the run says at what rate it topped out;
 * - **invalid**: the load generator distorted the figures (late sends, a stalled event loop, its
 *   CPU spent), so they are partly the generator's and answer nothing about the target.
 * A target's limit is a measurement; only the generator's own distortion invalidates a run.
 */

export type RunReading = "valid" | "saturated" | "invalid";

export const RUN_READINGS: readonly RunReading[] = ["valid", "saturated", "invalid"];

export interface ReadingInput {
  /** False when the generator distorted the run; unknown (null/undefined) reads as valid. */
  valid?: boolean | null;
  /** The target's own reasons for being the limit. */
  saturationReasons?: readonly string[] | null;
}

export function runReading(result: ReadingInput): RunReading {
  if (result.valid === false) return "invalid";
  return (result.saturationReasons?.length ?? 0) > 0 ? "saturated" : "valid";
}

export interface ClassifiedReasons {
  valid: boolean;
  /** The generator's reasons first, then the target's (context); empty for a valid run. */
  invalidReasons: string[];
  /** The target's reasons, kept whether or not the generator also distorted the run. */
  saturationReasons: string[];
}

/**
 * Sort what went wrong into the run's reading. The generator's reasons decide validity; the
 * target's make a valid run saturated. Where both apply the run is invalid and the generator's
 * reason is said first: a figure the generator distorted cannot tell how far the target went.
 */
export function classifyReasons(reasons: {
  generator: readonly string[];
  target: readonly string[];
}): ClassifiedReasons {
  const generator = [...new Set(reasons.generator)];
  const target = [...new Set(reasons.target)].filter((r) => !generator.includes(r));
  const valid = generator.length === 0;
  return { valid, invalidReasons: valid ? [] : [...generator, ...target], saturationReasons: target };
}

/**
 * Add the target's reasons to a result already judged: they join its saturation reasons, and an
 * invalid result lists them after the generator's.
 */
export function withTargetReasons<R extends { valid: boolean; invalidReasons: string[]; saturationReasons?: string[] }>(
  result: R,
  target: readonly string[],
): R & { saturationReasons: string[] } {
  const saturationReasons = [...new Set([...(result.saturationReasons ?? []), ...target])];
  const invalidReasons = result.valid
    ? result.invalidReasons
    : [...result.invalidReasons, ...target.filter((r) => !result.invalidReasons.includes(r))];
  return { ...result, invalidReasons, saturationReasons };
}

const rate = (v: number) =>
  v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toLocaleString("en-US", { maximumFractionDigits: 1 });

/**
 * "saturated at ~1,840 req/s achieved of 2,500 offered": where the target topped out, from the
 * run's achieved (`rps`) and offered (`target_rps`) rates. A closed-model run offers no rate.
 */
export function saturationHeadline(metrics: Readonly<Record<string, number>>): string {
  const achieved = metrics.rps ?? metrics.throughput;
  const offered = metrics.target_rps;
  if (achieved === undefined) return "saturated";
  const unit = metrics.rps === undefined ? "msg/s" : "req/s";
  return offered !== undefined && offered > 0
    ? `saturated at ~${rate(achieved)} ${unit} achieved of ${rate(offered)} offered`
    : `saturated at ~${rate(achieved)} ${unit}`;
}
