/**
 * A live run's state once a second carries the last few minutes of per-second samples (300 of
 * them, ~5 KB), of which only the newest is new. A viewer that has the previous state is sent a
 * step instead: the state without its samples, the samples added since, and how many the state
 * keeps. `applyLiveStep(previous, liveStep(previous, next))` equals `next`.
 */
export interface LiveSampleLike {
  /** Wall-clock time of the sample (ms); samples are in time order. */
  t: number;
}

export interface LiveStateLike {
  progress: ({ samples: LiveSampleLike[] } & Record<string, unknown>) | null;
}

export interface LiveStepProgress extends Record<string, unknown> {
  /** The time of the last sample the step follows on from (null: the previous state had none). */
  samplesAfter: number | null;
  samplesAdded: LiveSampleLike[];
  /** How many samples the full state holds (older ones drop off the front). */
  samplesLength: number;
}

/** The step from `prev` to `next`, or null when `next` is not `prev` plus newer samples. */
export function liveStep<S extends LiveStateLike>(
  prev: S,
  next: S,
): (Omit<S, "progress"> & { progress: LiveStepProgress }) | null {
  if (!prev.progress || !next.progress) return null;
  const before = prev.progress.samples;
  const after = next.progress.samples;
  const lastT = before.length ? before[before.length - 1]!.t : null;
  let firstNew = 0;
  if (lastT !== null) while (firstNew < after.length && after[firstNew]!.t <= lastT) firstNew++;
  // What `next` kept of the old samples must end exactly where `prev`'s did.
  if (firstNew > before.length || (firstNew > 0 && after[firstNew - 1]!.t !== lastT)) return null;
  const { samples: _samples, ...rest } = next.progress;
  return {
    ...next,
    progress: { ...rest, samplesAfter: lastT, samplesAdded: after.slice(firstNew), samplesLength: after.length },
  };
}

/** `current` moved on by a step; null when the step does not follow on from it (reopen then). */
export function applyLiveStep<S extends LiveStateLike>(
  current: S,
  step: Omit<S, "progress"> & { progress: LiveStepProgress },
): S | null {
  if (!current.progress) return null;
  const samples = current.progress.samples;
  const lastT = samples.length ? samples[samples.length - 1]!.t : null;
  if (lastT !== step.progress.samplesAfter) return null;
  const { samplesAfter: _after, samplesAdded, samplesLength, ...rest } = step.progress;
  const merged = [...samples, ...samplesAdded];
  return {
    ...step,
    progress: { ...rest, samples: merged.slice(Math.max(0, merged.length - samplesLength)) },
  } as unknown as S;
}
