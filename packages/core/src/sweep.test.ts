import { describe, expect, it } from "vitest";
import {
  applyParameter,
  compareSweepValues,
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
        best: false,
      },
    ];
    expect(sweepPoints(rows, "rps")).toEqual([
      { value: 16, mean: 12, runs: 2, best: true, meetsTargets: true },
      { value: 64, mean: 8, runs: 1, best: false, meetsTargets: false },
    ]);
  });
});
