import { describe, expect, it } from "vitest";
import {
  applyParameter,
  compareSweepValues,
  defaultObjective,
  describeObjective,
  parseParameterPath,
  parseSweepValues,
  RATE_PARAMETER,
  rateCapacity,
  readParameter,
  type SweepRow,
  summarizeSweep,
  sweepPoints,
} from "./sweep";

describe("parameter paths", () => {
  it("accepts knobs, instance-config fields and scenario fields", () => {
    expect(parseParameterPath("knobs.initial_pool_size")).toEqual({ scope: "knobs", key: "initial_pool_size" });
    expect(parseParameterPath("config.cpuLimit")).toEqual({ scope: "config", key: "cpuLimit" });
    expect(parseParameterPath("scenario.rate")).toEqual({ scope: "scenario", key: "rate" });
    expect(parseParameterPath("config.orgId")).toBeNull();
    expect(parseParameterPath("scenario.engine")).toBeNull();
    expect(parseParameterPath("target.baseUrl")).toBeNull();
  });

  it("applies a value without touching the input snapshots, and reads it back", () => {
    const snapshots = {
      config: { vcpu: 2, knobs: { buffer_size: 15_000 } },
      scenario: { name: "s", spec: { rate: 10 } },
    };
    const pool = applyParameter(snapshots, "knobs.initial_pool_size", 64);
    expect(pool.config).toEqual({ vcpu: 2, knobs: { buffer_size: 15_000, initial_pool_size: 64 } });
    expect(snapshots.config.knobs).toEqual({ buffer_size: 15_000 });
    expect(readParameter(pool, "knobs.initial_pool_size")).toBe(64);

    const rate = applyParameter(snapshots, "scenario.rate", 500);
    expect(readParameter(rate, "scenario.rate")).toBe(500);
    expect(snapshots.scenario.spec.rate).toBe(10);

    const limit = applyParameter({ config: null, scenario: null }, "config.cpuLimit", 0.25);
    expect(limit).toEqual({ config: { cpuLimit: 0.25 }, scenario: null });
    expect(() => applyParameter(snapshots, "config.vcpu", "four")).toThrow(/numbers/);
  });

  it("parses value lists", () => {
    expect(parseSweepValues("16, 32,64\n1_000")).toEqual([16, 32, 64, 1000]);
    expect(parseSweepValues("Sync, Async, true")).toEqual(["Sync", "Async", true]);
    expect(parseSweepValues("0.05, 1e3")).toEqual([0.05, 1000]);
    expect([80, 15, 20].sort(compareSweepValues)).toEqual([15, 20, 80]);
  });
});

describe("summarizeSweep", () => {
  // Seed: the chat log's worker sweep (runs 8–11), targets queue depth < 1,000 and no failures.
  const targets = [
    { metric: "queue_depth_peak", op: "<" as const, value: 1000 },
    { metric: "failed", op: "==" as const, value: 0 },
  ];
  const row = (
    runId: string,
    value: number,
    throughput: number,
    queue: number,
    extra: Partial<{ excluded: boolean; status: string }> = {},
  ) => ({
    runId,
    value,
    status: extra.status ?? "succeeded",
    excluded: extra.excluded ?? false,
    metrics: { throughput, queue_depth_peak: queue, failed: 0 },
  });

  it("marks who meets the targets and the best value among those", () => {
    const { rows, bestRunId } = summarizeSweep(
      [row("r11", 15, 1982, 20), row("r8", 20, 2091, 20), row("r9", 40, 2079, 40), row("r10", 80, 2037, 10_000)],
      "throughput",
      targets,
    );
    expect(rows.map((r) => r.meetsTargets)).toEqual([true, true, true, false]);
    expect(rows[3]!.failedTargets).toEqual(["Peak queue depth < 1,000"]);
    expect(bestRunId).toBe("r8");
    expect(rows.filter((r) => r.best).map((r) => r.runId)).toEqual(["r8"]);
  });

  it("leaves excluded and unfinished runs out of the best, and a failing run cannot be best", () => {
    const { bestRunId } = summarizeSweep(
      [
        row("a", 1, 5000, 10, { excluded: true }),
        row("b", 2, 4000, 5000),
        row("c", 3, 100, 10),
        row("d", 4, 9000, 1, { status: "running" }),
      ],
      "throughput",
      targets,
    );
    expect(bestRunId).toBe("c");
  });

  it("a threshold on a metric the run did not measure is not measured, and such a run is never best", () => {
    // The chat log's run 6 printed no peak queue depth ("queue depth graph TBD").
    const unmeasured = { ...row("r6", 5, 9999, 0), metrics: { throughput: 9999, failed: 0 } };
    const { rows, bestRunId } = summarizeSweep([unmeasured, row("r8", 20, 2091, 20)], "throughput", targets);
    expect(rows[0]).toMatchObject({
      meetsTargets: null,
      thresholdsOutcome: "not_measured",
      failedTargets: [],
      notMeasuredTargets: ["Peak queue depth < 1,000"],
    });
    expect(rows[0]!.passedOver).toBe("not measured: Peak queue depth < 1,000");
    expect(bestRunId).toBe("r8");
  });

  it("without thresholds, a value whose runs failed requests or were invalid is passed over, with the reason", () => {
    // The Shuttle light-app sweep: 0.5 vCPU has the highest raw req/s but 11,028 of 150,000 failed.
    const drill = (runId: string, value: number, rps: number, success: number, valid = true) => ({
      runId,
      value,
      status: "succeeded",
      excluded: false,
      valid,
      invalidReasons: valid ? [] : ["rate not held"],
      metrics: { rps, requests: 150_000, failed: 150_000 - success, success_rate: (success / 150_000) * 100 },
    });
    const { rows, bestRunId } = summarizeSweep(
      [
        drill("v005", 0.05, 274.45, 150_000),
        drill("v01", 0.1, 549.92, 150_000),
        drill("v025", 0.25, 1068.36, 145_391),
        drill("v05", 0.5, 1117.46, 138_972),
        drill("v1", 1, 2000, 150_000, false),
      ],
      "rps",
      [],
    );
    expect(bestRunId).toBe("v01");
    const why = Object.fromEntries(rows.map((r) => [r.runId, r.passedOver]));
    expect(why.v05).toBe("success rate 92.64% is below 99% (11,028 failed)");
    expect(why.v025).toBe("success rate 96.92% is below 99% (4,609 failed)");
    expect(why.v1).toBe("not a valid measurement: rate not held");
    expect(why.v005).toMatch(/^qualifies, but 549\.92 req\/s at 0\.1 is better than 274\.45 req\/s$/);
    expect(why.v01).toBeNull();
  });

  it("never picks an invalid run, with thresholds or for a capacity answer, and marks its point", () => {
    // A rate sweep where the generator could not keep up at 8,000 req/s: its p99 looks fine.
    const rate = (runId: string, value: number, p99: number, valid = true) => ({
      runId,
      value,
      status: "succeeded",
      excluded: false,
      valid,
      invalidReasons: valid ? [] : ["the load generator, not the target, was late sending"],
      metrics: { rps: value, latency_p99: p99, success_rate: 100 },
    });
    const input = [rate("a", 1000, 20), rate("b", 2000, 40), rate("c", 8000, 60, false)];
    const capacity = summarizeSweep(input, { kind: "capacity", metric: "latency_p99", below: 100 }, []);
    expect(capacity.bestRunId).toBe("b");
    const withThresholds = summarizeSweep(input, "rps", [{ metric: "latency_p99", op: "<", value: 100 }]);
    expect(withThresholds.bestRunId).toBe("b");
    for (const { rows } of [capacity, withThresholds]) {
      const c = rows.find((r) => r.runId === "c")!;
      expect(c.best).toBe(false);
      expect(c.passedOver).toBe("not a valid measurement: the load generator, not the target, was late sending");
    }
    const points = sweepPoints(capacity.rows, "latency_p99");
    expect(points.map((p) => [p.value, p.invalidRuns, p.best])).toEqual([
      [1000, 0, false],
      [2000, 0, true],
      [8000, 1, false],
    ]);
  });

  it("answers a capacity question: the highest rate whose p99 stays under the limit", () => {
    const rate = (runId: string, value: number, p99: number) => ({
      runId,
      value,
      status: "succeeded",
      excluded: false,
      metrics: { rps: value, latency_p99: p99, success_rate: 100 },
    });
    const rows = [rate("a", 100, 20), rate("b", 200, 45), rate("c", 400, 120), rate("d", 800, 900)];
    // Optimizing p99 on its own picks the lowest rate, which answers nothing.
    expect(summarizeSweep(rows, "latency_p99", []).bestRunId).toBe("a");
    const capacity = summarizeSweep(rows, { kind: "capacity", metric: "latency_p99", below: 100 }, []);
    expect(capacity.bestRunId).toBe("b");
    expect(capacity.rows.find((r) => r.runId === "c")!.passedOver).toBe("Latency p99 120 ms is above 100 ms");
    expect(capacity.rows.find((r) => r.runId === "a")!.passedOver).toBe(
      "qualifies, but 200 is higher and also holds the limit",
    );
    expect(describeObjective(capacity.objective)).toBe("highest value whose Latency p99 stays at or under 100 ms");
  });

  it("judges approximate values across their whole range", () => {
    const approx = (runId: string, queue: number, range: [number, number]) => ({
      ...row(runId, 1, 2000, queue),
      approximate: { queue_depth_peak: range },
    });
    const { rows } = summarizeSweep(
      [approx("low", 40, [35, 40]), approx("straddles", 1000, [900, 1100]), approx("high", 10_000, [9000, 11_000])],
      "throughput",
      targets,
    );
    expect(rows.map((r) => r.thresholdsOutcome)).toEqual(["pass", "not_measured", "fail"]);
  });

  it("has no verdicts without targets and follows lower-is-better metrics", () => {
    const { rows, bestRunId } = summarizeSweep([row("a", 1, 1, 30), row("b", 2, 1, 20)], "queue_depth_peak", []);
    expect(rows.every((r) => r.meetsTargets === null)).toBe(true);
    expect(bestRunId).toBe("b");
  });
});

describe("sweepPoints", () => {
  it("averages repetitions per value and leaves excluded runs off the chart", () => {
    const rows: SweepRow[] = [
      {
        runId: "a",
        value: 16,
        status: "succeeded",
        excluded: false,
        metrics: { rps: 10 },
        meetsTargets: true,
        failedTargets: [],
        notMeasuredTargets: [],
        thresholdsOutcome: "none",
        passedOver: null,
        best: false,
      },
      {
        runId: "b",
        value: 16,
        status: "succeeded",
        excluded: false,
        metrics: { rps: 14 },
        meetsTargets: true,
        failedTargets: [],
        notMeasuredTargets: [],
        thresholdsOutcome: "none",
        passedOver: null,
        best: true,
      },
      {
        runId: "c",
        value: 64,
        status: "succeeded",
        excluded: false,
        metrics: { rps: 8 },
        meetsTargets: false,
        failedTargets: [],
        notMeasuredTargets: [],
        thresholdsOutcome: "none",
        passedOver: null,
        best: false,
      },
      {
        runId: "d",
        value: 1024,
        status: "succeeded",
        excluded: true,
        metrics: { rps: 1 },
        meetsTargets: true,
        failedTargets: [],
        notMeasuredTargets: [],
        thresholdsOutcome: "none",
        passedOver: null,
        best: false,
      },
      {
        runId: "e",
        value: 128,
        status: "running",
        excluded: false,
        metrics: {},
        meetsTargets: null,
        failedTargets: [],
        notMeasuredTargets: [],
        thresholdsOutcome: "none",
        passedOver: null,
        best: false,
      },
    ];
    expect(sweepPoints(rows, "rps")).toEqual([
      { value: 16, mean: 12, runs: 2, best: true, meetsTargets: true, invalidRuns: 0, saturatedRuns: 0 },
      { value: 64, mean: 8, runs: 1, best: false, meetsTargets: false, invalidRuns: 0, saturatedRuns: 0 },
    ]);
  });
});

describe("a rate sweep's capacity", () => {
  // The target tops out near 2,300 req/s: at 2,500 offered it achieves 2,310 and says it is the limit.
  const run = (
    runId: string,
    offered: number,
    achieved: number,
    p99: number,
    more: Partial<{ valid: boolean; saturationReasons: string[]; invalidReasons: string[]; success_rate: number }> = {},
  ) => ({
    runId,
    value: offered,
    status: "succeeded",
    excluded: false,
    valid: more.valid ?? true,
    invalidReasons: more.invalidReasons ?? [],
    saturationReasons: more.saturationReasons ?? [],
    metrics: { rps: achieved, target_rps: offered, latency_p99: p99, success_rate: more.success_rate ?? 100 },
  });
  const saturated = ["the target is the limit: requests waited for one of the 64 connections (p99 900 ms)"];
  const sweep = [
    run("r500", 500, 500, 4),
    run("r1000", 1000, 999.6, 6),
    run("r2000", 2000, 1990, 18),
    run("r2500", 2500, 2310, 950, { saturationReasons: saturated }),
  ];
  const p99Under50 = [{ metric: "latency_p99", op: "<=" as const, value: 50 }];

  it("leads with the highest rate meeting the thresholds and achieved within 2 %, and where it saturates", () => {
    const objective = defaultObjective(RATE_PARAMETER, "rps");
    expect(objective).toEqual({ kind: "capacity", metric: "latency_p99" });
    const summary = summarizeSweep(sweep, objective, p99Under50, { parameter: RATE_PARAMETER });
    // "Best" is the capacity, never the lowest latency (500 req/s).
    expect(summary.bestRunId).toBe("r2000");
    const capacity = rateCapacity(summary.rows, summary.objective, p99Under50);
    expect(capacity.sustained).toMatchObject({ runId: "r2000", rate: 2000, achievedRps: 1990 });
    expect(capacity.saturatesAt).toEqual({ runId: "r2500", achievedRps: 2310, offered: 2500 });
    expect(capacity.statement).toBe(
      "Sustains 2,000 req/s with Latency p99 ≤ 50 ms (highest rate meeting the thresholds and achieved within 2 %; measured 18 ms); saturates at ~2,310 req/s.",
    );
    expect(describeObjective(summary.objective, RATE_PARAMETER)).toBe(
      "highest rate meeting the thresholds and achieved within 2 %",
    );
    const passed = Object.fromEntries(summary.rows.map((r) => [r.runId, r.passedOver]));
    expect(passed.r2500).toBe("misses Latency p99 <= 50 ms");
    expect(passed.r500).toBe("qualifies, but 2,000 is higher and also holds the limit");
  });

  it("does not count a rate achieved short by more than 2 %, nor a saturated or invalid run", () => {
    const rows = [
      run("r1000", 1000, 1000, 6),
      // Within the p99 bound, but 3 % short of the rate: not sustained, and the target's ceiling.
      run("r1500", 1500, 1455, 30),
      // Achieved, but the target's own queue grew: not sustainable.
      run("r1400", 1400, 1400, 20, { saturationReasons: ["the target is the limit: its queue (queue_depth) grew"] }),
      // The generator distorted it: it answers nothing either way.
      run("r3000", 3000, 3000, 10, {
        valid: false,
        invalidReasons: ["the load generator, not the target, was late sending"],
      }),
    ];
    const summary = summarizeSweep(rows, defaultObjective(RATE_PARAMETER, "rps"), p99Under50, {
      parameter: RATE_PARAMETER,
    });
    expect(summary.bestRunId).toBe("r1000");
    const capacity = rateCapacity(summary.rows, summary.objective, p99Under50);
    expect(capacity.sustained?.rate).toBe(1000);
    expect(capacity.saturatesAt?.runId).toBe("r1500");
    expect(capacity.highestTried).toBe(1500);
    const passed = Object.fromEntries(summary.rows.map((r) => [r.runId, r.passedOver]));
    expect(passed.r1400).toMatch(/^saturated: the target is the limit/);
    expect(passed.r3000).toMatch(/^not a valid measurement/);
  });

  it("answers the capacity question asked instead of the thresholds' bound, and says when nothing saturated", () => {
    const summary = summarizeSweep(sweep.slice(0, 3), { kind: "capacity", metric: "latency_p99", below: 10 }, [], {
      parameter: RATE_PARAMETER,
    });
    expect(summary.bestRunId).toBe("r1000");
    const capacity = rateCapacity(summary.rows, summary.objective, []);
    expect(capacity.limit).toEqual({ metric: "latency_p99", value: 10 });
    expect(describeObjective(summary.objective, RATE_PARAMETER)).toBe(
      "highest rate whose Latency p99 stays at or under 10 ms, meeting the thresholds and achieved within 2 %",
    );
    expect(capacity.saturatesAt).toBeNull();
    expect(capacity.statement).toBe(
      "Sustains 1,000 req/s with Latency p99 ≤ 10 ms (highest rate meeting the thresholds and achieved within 2 %; measured 6 ms).",
    );
    const all = summarizeSweep(sweep.slice(0, 3), defaultObjective(RATE_PARAMETER, "rps"), [], {
      parameter: RATE_PARAMETER,
    });
    expect(rateCapacity(all.rows, all.objective, []).statement).toBe(
      "Sustains 2,000 req/s with Latency p99 18 ms (highest rate meeting the thresholds and achieved within 2 %); did not saturate up to 2,000 req/s, the highest rate tried.",
    );
  });

  it("says so when no rate is sustained", () => {
    const rows = [run("r2500", 2500, 2310, 950, { saturationReasons: saturated })];
    const summary = summarizeSweep(rows, defaultObjective(RATE_PARAMETER, "rps"), p99Under50, {
      parameter: RATE_PARAMETER,
    });
    expect(summary.bestRunId).toBeNull();
    expect(rateCapacity(summary.rows, summary.objective, p99Under50).statement).toBe(
      "No rate tried is sustained (none is the highest rate meeting the thresholds and achieved within 2 %, valid and not saturated); saturates at ~2,310 req/s.",
    );
  });

  it("marks saturated points apart from invalid ones", () => {
    const summary = summarizeSweep(sweep, defaultObjective(RATE_PARAMETER, "rps"), p99Under50, {
      parameter: RATE_PARAMETER,
    });
    expect(sweepPoints(summary.rows, "latency_p99").map((p) => [p.value, p.saturatedRuns, p.invalidRuns])).toEqual([
      [500, 0, 0],
      [1000, 0, 0],
      [2000, 0, 0],
      [2500, 1, 0],
    ]);
  });
});
