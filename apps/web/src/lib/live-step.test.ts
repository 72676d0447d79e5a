import { LIVE_SAMPLES, LiveSamples } from "@benchboard/core";
import { describe, expect, it } from "vitest";
import { applyLiveStep, liveStep } from "./live-step";

// A live state as the worker writes it: progress with the last LIVE_SAMPLES per-second samples.
function states(count: number) {
  let clock = 1_700_000_000_000;
  const live = new LiveSamples(() => clock);
  return Array.from({ length: count }, (_, i) => {
    clock += 1_000;
    const progress = live.add(
      { elapsedMs: i * 1_000, fraction: null, requests: i * 10, errors: 0, rps: 10, latencyP50Ms: 1, latencyP99Ms: 2 },
      { mem_bytes: i },
    );
    return { id: "run", status: "running", progress: JSON.parse(JSON.stringify(progress)) };
  });
}

describe("live steps", () => {
  it("rebuild every state from the one before, also once old samples drop off the front", () => {
    const all = states(LIVE_SAMPLES + 5);
    for (let i = 1; i < all.length; i++) {
      const step = liveStep(all[i - 1]!, all[i]!);
      expect(step).not.toBeNull();
      expect(step!.progress.samplesAdded).toHaveLength(1);
      expect(applyLiveStep(all[i - 1]!, step!)).toEqual(all[i]);
    }
    // Several seconds at once (a viewer that skipped ticks is sent the whole state instead, but
    // a step over a gap is still exact).
    const gap = liveStep(all[10]!, all[14]!)!;
    expect(gap.progress.samplesAdded).toHaveLength(4);
    expect(applyLiveStep(all[10]!, gap)).toEqual(all[14]);
  });

  it("refuse what does not follow on", () => {
    const all = states(6);
    // Samples that are not the previous ones plus newer ones (a restarted run's progress).
    const restarted = { ...all[5]!, progress: { ...all[5]!.progress, samples: all[5]!.progress.samples.slice(2, 4) } };
    expect(liveStep(all[4]!, restarted)).toBeNull();
    expect(liveStep({ ...all[0]!, progress: null }, all[1]!)).toBeNull();
    // A step applied to a state other than the one it was made from.
    const step = liveStep(all[3]!, all[4]!)!;
    expect(applyLiveStep(all[1]!, step)).toBeNull();
    expect(applyLiveStep(all[3]!, step)).toEqual(all[4]);
  });
});
