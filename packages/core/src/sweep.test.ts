import { describe, expect, it } from "vitest";
import {
  applyParameter,
  compareSweepValues,
  describeObjective,
  parseParameterPath,
  parseSweepValues,
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
    expect(capacity.rows.find((r) => r.runId === "c")!.passedOver).toBe("Latency p99 120 ms is not under 100 ms");
    expect(capacity.rows.find((r) => r.runId === "a")!.passedOver).toBe(
      "qualifies, but 200 is higher and also holds the limit",
    );
    expect(describeObjective(capacity.objective)).toBe("highest value whose Latency p99 stays under 100 ms");
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
      { value: 16, mean: 12, runs: 2, best: true, meetsTargets: true, invalidRuns: 0 },
      { value: 64, mean: 8, runs: 1, best: false, meetsTargets: false, invalidRuns: 0 },
    ]);
  });
});
