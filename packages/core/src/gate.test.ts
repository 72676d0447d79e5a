import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { gateMetricKeys, judgeMetric, median, noiseBand } from "./gate";
import { parseHey } from "./importers/hey";
import { evaluateRegressions } from "./regression";

const heyMetrics = (name: string): Record<string, number> =>
  parseHey(readFileSync(new URL(`./fixtures/gate-hey/${name}.txt`, import.meta.url), "utf8")).result.metrics;

const MAIN = [1, 2, 3, 4, 5].map((i) => heyMetrics(`main-${i}`));
const UNCHANGED = heyMetrics("pr-unchanged");
const SLOWER = heyMetrics("pr-2x-slower");

/** Every default gate metric of head against the baseline runs, as the REST gate judges them. */
function judgeAll(baseline: Record<string, number>[], head: Record<string, number>, gate = "noise" as const) {
  return Object.fromEntries(
    gateMetricKeys(baseline, head).map((key) => [
      key,
      judgeMetric(
        key,
        baseline.map((b) => b[key]!),
        head[key],
        { tolerancePct: 5, gate },
      ),
    ]),
  );
}

describe("the gate on real hey runs of an unchanged and a 2× slower server", () => {
  it("one run against one run: the no-op pull request fails a 5 % tolerance on noise", () => {
    // What a gate against the latest run alone did: unchanged code, "regressed" on p95 and p99.
    const single = evaluateRegressions(MAIN[4]!, UNCHANGED, { tolerancePct: 5 });
    expect(single.regressed).toEqual(expect.arrayContaining(["latency_p95", "latency_p99"]));
  });

  it("the no-op pull request passes against five main runs: nothing beyond the tolerance and the noise", () => {
    const verdicts = judgeAll(MAIN, UNCHANGED);
    const regressed = Object.entries(verdicts).filter(([, v]) => v.verdict === "regressed");
    expect(regressed).toEqual([]);
    // It is not that nothing moved: p99 is +136 % over main's median, inside main's own spread.
    expect(verdicts.latency_p99).toMatchObject({ verdict: "noise", base: 22.3, head: 52.6 });
    expect(verdicts.latency_p99!.noise!.scale).toBe("log");
    expect(verdicts.latency_p99!.noise!.pWorse!).toBeGreaterThan(0.01);
    expect(Object.values(verdicts).every((v) => v.verdict !== "inconclusive" && v.verdict !== "incomparable")).toBe(
      true,
    );
  });

  it("the 2× slower pull request fails: every latency and the rate regressed beyond tolerance and noise", () => {
    const verdicts = judgeAll(MAIN, SLOWER);
    for (const key of ["rps", "latency_mean", "latency_p50", "latency_p90", "latency_p95", "latency_p99"]) {
      expect(verdicts[key]!.verdict, key).toBe("regressed");
      expect(verdicts[key]!.noise!.pWorse!, key).toBeLessThan(0.01);
    }
    expect(verdicts.success_rate!.verdict).toBe("unchanged");
  });

  it("two main runs cannot tell: beyond the tolerance is inconclusive, not passed, not failed", () => {
    const verdicts = judgeAll(MAIN.slice(0, 2), SLOWER);
    expect(verdicts.latency_p99).toMatchObject({ verdict: "inconclusive", noise: null });
    expect(verdicts.latency_p99!.note).toBe("2 baseline runs do not show their noise (3 needed)");
    expect(Object.values(verdicts).some((v) => v.verdict === "regressed")).toBe(false);
    // Within the tolerance needs no noise to be unchanged.
    expect(verdicts.success_rate!.verdict).toBe("unchanged");
  });
});

describe("noiseBand", () => {
  it("is a one-sided prediction bound on the log scale, never below zero", () => {
    const band = noiseBand("latency_p99", [10, 20, 40], 80)!;
    expect(band.scale).toBe("log");
    // Geometric mean 20; the bounds are symmetric in ratio around it.
    expect(band.center).toBeCloseTo(20, 9);
    expect(band.low * band.high).toBeCloseTo(400, 6);
    expect(band.low).toBeGreaterThan(0);
    // Head is worse (higher latency) than any baseline run, yet within what three such runs allow.
    expect(band.pWorse!).toBeGreaterThan(0.01);
    expect(band.pWorse!).toBeLessThan(0.5);
  });

  it("falls back to a linear scale when a value is not positive, and needs three runs", () => {
    expect(noiseBand("failed_connections", [0, 1, 2], 3)!.scale).toBe("linear");
    expect(noiseBand("latency_p99", [10, 11], 12)).toBeNull();
  });

  it("takes the metric's direction: a higher rate is the better side", () => {
    const slower = noiseBand("rps", [1000, 1010, 990, 1005, 995], 800)!;
    const faster = noiseBand("rps", [1000, 1010, 990, 1005, 995], 1200)!;
    expect(slower.pWorse!).toBeLessThan(0.001);
    expect(faster.pWorse!).toBeGreaterThan(0.999);
  });

  it("with no spread at all, any worse value is beyond it", () => {
    expect(noiseBand("latency_p50", [6.1, 6.1, 6.1], 6.2)).toMatchObject({ low: 6.1, high: 6.1, pWorse: 0 });
    expect(noiseBand("latency_p50", [6.1, 6.1, 6.1], 6.1)!.pWorse).toBe(1);
  });
});

describe("judgeMetric", () => {
  const history = [100, 102, 98, 101, 99];

  it("needs both the tolerance and the noise under the default gate", () => {
    // +8 %: beyond what five runs of ±1.6 % spread allow (about +6.5 %), inside a 10 % tolerance.
    expect(judgeMetric("latency_p99", history, 108, { tolerancePct: 10, gate: "noise" }).verdict).toBe("unchanged");
    expect(judgeMetric("latency_p99", history, 108, { tolerancePct: 10, gate: "statistical" }).verdict).toBe(
      "regressed",
    );
    // +6 %: beyond a 5 % tolerance, inside the noise.
    expect(judgeMetric("latency_p99", history, 106, { tolerancePct: 5, gate: "noise" }).verdict).toBe("noise");
    expect(judgeMetric("latency_p99", history, 110, { tolerancePct: 5, gate: "noise" }).verdict).toBe("regressed");
    expect(judgeMetric("latency_p99", history, 90, { tolerancePct: 5, gate: "noise" }).verdict).toBe("improved");
  });

  it("judges against the median, and a one-run baseline only by the tolerance", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    const one = judgeMetric("latency_p99", [100], 110, { tolerancePct: 5, gate: "tolerance" });
    expect(one).toMatchObject({ base: 100, delta: 0.1, verdict: "regressed", noise: null });
    expect(judgeMetric("latency_p99", [100], 110, { tolerancePct: 5, gate: "noise" }).verdict).toBe("inconclusive");
  });

  it("calls a metric a side lacks incomparable, saying which side", () => {
    expect(judgeMetric("ttft_p50", [], 12, { tolerancePct: 5, gate: "noise" })).toMatchObject({
      verdict: "incomparable",
      note: "no baseline run measured it",
    });
    expect(judgeMetric("ttft_p50", history, null, { tolerancePct: 5, gate: "noise" }).note).toBe(
      "head did not measure it",
    );
  });
});
