import { describe, expect, it } from "vitest";
import {
  capacitySearchOf,
  judgePlateau,
  nextCapacityStep,
  summarizeCapacitySearch,
  type TCapacityPlateau,
  toCapacitySearch,
  ZFindCapacity,
} from "./capacity-search";
import { checkScenarioCaps, resolveOrgCaps } from "./caps";
import { capacitySearchBounds, ZCapacitySearchSpec, ZScenarioSpec } from "./scenario";
import { planShards } from "./shards";

const spec = ZCapacitySearchSpec.parse({
  engine: "capacity-search",
  slo: { p99Ms: 50, errorRatePct: 1 },
  minRate: 20,
  maxRate: 1000,
});

/** A target that answers in 5 ms up to `capacity` req/s and achieves only `capacity` above it. */
function plateauAt(rate: number, capacity: number, index: number, phase: "step" | "bisect"): TCapacityPlateau {
  const over = rate > capacity;
  return judgePlateau(
    {
      offeredRps: rate,
      metrics: {
        requests: rate * 10,
        failed: 0,
        rps: over ? capacity : rate,
        latency_p50: over ? 400 : 4,
        latency_p99: over ? 900 : 6,
      },
      valid: true,
      invalidReasons: [],
      saturationReasons: [],
      startedAt: index * 12_000,
      durationMs: 10_000,
    },
    spec.slo,
    { index, phase },
  );
}

function search(capacity: number, settings = spec) {
  const plateaus: TCapacityPlateau[] = [];
  for (let i = 0; i < 100; i++) {
    const next = nextCapacityStep(settings, plateaus);
    if (next.kind === "stop") return summarizeCapacitySearch(settings, plateaus, next.stop);
    plateaus.push(plateauAt(next.rateRps, capacity, plateaus.length + 1, next.phase));
  }
  throw new Error("the search did not stop");
}

describe("capacity search planner", () => {
  it("steps ×2 from the minimum, then bisects to within the resolution of the knee", () => {
    const result = search(300);
    expect(result.plateaus.slice(0, 6).map((p) => p.offeredRps)).toEqual([20, 40, 80, 160, 320, 240]);
    expect(result.plateaus.filter((p) => p.phase === "step")).toHaveLength(5);
    expect(result.sustainableRps).not.toBeNull();
    expect(result.sustainableRps!).toBeLessThanOrEqual(300);
    expect(result.sustainableRps!).toBeGreaterThan(300 * 0.95 - 1);
    const { lastGoodRps, firstBadRps } = result.bracket;
    expect((firstBadRps! - lastGoodRps!) / lastGoodRps!).toBeLessThan(0.05);
    expect(result.stop.kind).toBe("saturated");
    expect(result.stop.message).toMatch(/^target saturated at ~300 req\/s/);
    expect(result.confidence.agreeing).toBe(result.plateaus.length);
    expect(result.statement).toMatch(/^Sustains \d+ req\/s with p99 ≤ 50 ms and errors ≤ 1 %/);
    expect(result.plateaus.length).toBeLessThanOrEqual(capacitySearchBounds(spec).plateaus);
  });

  it("says the SLO broke when latency, not the rate, gave out", () => {
    const plateaus: TCapacityPlateau[] = [];
    const slow = (rate: number, index: number) =>
      judgePlateau(
        {
          offeredRps: rate,
          metrics: { requests: rate * 10, failed: 0, rps: rate, latency_p50: 10, latency_p99: rate > 100 ? 80 : 20 },
          valid: true,
          invalidReasons: [],
          saturationReasons: [],
          startedAt: 0,
          durationMs: 10_000,
        },
        spec.slo,
        { index, phase: "step" },
      );
    for (let i = 1; i < 50; i++) {
      const next = nextCapacityStep(spec, plateaus);
      if (next.kind === "stop") {
        expect(next.stop.kind).toBe("slo-broken");
        expect(next.stop.message).toMatch(/^SLO broken at \d+ req\/s \(p99 80 ms > 50 ms\)/);
        return;
      }
      plateaus.push(slow(next.rateRps, i));
    }
    throw new Error("did not stop");
  });

  it("stops at the range's maximum when every plateau passes", () => {
    const result = search(1_000_000);
    expect(result.stop.kind).toBe("range-max");
    expect(result.sustainableRps).toBe(1000);
    expect(result.plateaus.at(-1)!.offeredRps).toBe(1000);
  });

  it("stops below the range when the minimum already fails", () => {
    const result = search(10);
    expect(result.plateaus).toHaveLength(1);
    expect(result.sustainableRps).toBeNull();
    expect(result.stop.kind).toBe("below-range");
    expect(result.statement).toMatch(/^No rate in 20–1,000 req\/s is sustained/);
  });

  it("runs a distorted plateau once more, then stops there and says to add shards or agents", () => {
    const distorted = (index: number) =>
      judgePlateau(
        {
          offeredRps: 40,
          metrics: { requests: 400, failed: 0, rps: 40, latency_p50: 4, latency_p99: 6 },
          valid: false,
          invalidReasons: ["send lag p99 80 ms"],
          saturationReasons: [],
          startedAt: 0,
          durationMs: 10_000,
        },
        spec.slo,
        { index, phase: "step" },
      );
    const plateaus = [plateauAt(20, 300, 1, "step"), distorted(2)];
    expect(plateaus[1]!.verdict).toBe("invalid");
    expect(nextCapacityStep(spec, plateaus)).toEqual({ kind: "run", rateRps: 40, phase: "step" });
    plateaus.push(distorted(3));
    const next = nextCapacityStep(spec, plateaus);
    expect(next.kind).toBe("stop");
    if (next.kind !== "stop") return;
    expect(next.stop.kind).toBe("generator-limit");
    expect(next.stop.message).toContain("add shards or agents");
    const summary = summarizeCapacitySearch(spec, plateaus, next.stop);
    expect(summary.sustainableRps).toBe(20);
    expect(summary.confidence).toEqual({ bracketPct: null, agreeing: 1, judged: 1 });
  });

  it("fails a plateau on its error rate and on the target's own saturation signals", () => {
    const judged = judgePlateau(
      {
        offeredRps: 100,
        metrics: { requests: 1000, failed: 50, rps: 100, latency_p50: 4, latency_p99: 6 },
        valid: true,
        invalidReasons: [],
        saturationReasons: ["queue grew from 0 to 80"],
        startedAt: 0,
        durationMs: 10_000,
      },
      spec.slo,
      { index: 1, phase: "step" },
    );
    expect(judged.verdict).toBe("fail");
    expect(judged.failure).toBe("saturated");
    expect(judged.reasons).toEqual(["queue grew from 0 to 80", "errors 5 % > 1 %"]);
  });

  it("summaries survive a round trip through a result's extra", () => {
    const result = search(300);
    expect(capacitySearchOf({ capacitySearch: JSON.parse(JSON.stringify(result)) })).toEqual(result);
    expect(capacitySearchOf({ capacitySearch: { sustainableRps: "lots" } })).toBeNull();
    expect(capacitySearchOf(null)).toBeNull();
  });
});

describe("capacity search spec", () => {
  it("refuses a minimum above the maximum, naming minRate", () => {
    const parsed = ZScenarioSpec.safeParse({
      engine: "capacity-search",
      slo: { p99Ms: 50 },
      minRate: 500,
      maxRate: 100,
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(["minRate"]);
    expect(parsed.error!.issues[0]!.message).toBe("minRate (500) is above maxRate (100)");
  });

  it("refuses a missing SLO, naming it", () => {
    const parsed = ZFindCapacity.safeParse({ minRate: 10, maxRate: 100 });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(["slo"]);
    const noP99 = ZFindCapacity.safeParse({ slo: {}, minRate: 10, maxRate: 100 });
    expect(noP99.error!.issues[0]!.path).toEqual(["slo", "p99Ms"]);
  });

  it("checks the worst case against the organization's caps before it starts", () => {
    const caps = resolveOrgCaps({ maxRate: 500, maxDurationS: 60 });
    const violations = checkScenarioCaps(spec, caps);
    expect(violations.map((v) => v.specField)).toEqual(["maxRate", "plateauS"]);
    expect(violations[1]!.message).toMatch(/may run for up to \d+ s \(\d+ plateaus of 12 s with warm-up\)/);
    const bounds = capacitySearchBounds(spec);
    // 20→1,000 by ×2 is 7 steps; bisecting a ×2 bracket to 5 % takes at most 5 more; one retry.
    expect(bounds.plateaus).toBe(13);
    expect(bounds.maxDurationS).toBe(13 * 12);
  });

  it("turns an open-model scenario into a search for one launch, and refuses other engines", () => {
    const open = ZScenarioSpec.parse({ engine: "http-open", rate: 10, durationS: 5, request: { path: "/x" } });
    const find = ZFindCapacity.parse({ slo: { p99Ms: 20 }, minRate: 10, maxRate: 40, plateauS: 3 });
    const converted = toCapacitySearch(open, find);
    expect(converted).toMatchObject({ engine: "capacity-search", minRate: 10, maxRate: 40, plateauS: 3, warmupS: 2 });
    expect(converted.request.path).toBe("/x");
    expect(ZScenarioSpec.safeParse(converted).success).toBe(true);
    const closed = ZScenarioSpec.parse({ engine: "http-closed", concurrency: 2, requests: 10 });
    expect(() => toCapacitySearch(closed, find)).toThrow(/runs the open model/);
  });

  it("runs on one worker: more shards are refused", () => {
    expect(() => planShards(spec, 2)).toThrow(/runs on one worker or agent/);
    expect(planShards(spec, 1)).toEqual([spec]);
  });
});
