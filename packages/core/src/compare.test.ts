import { describe, expect, it } from "vitest";
import {
  buildCompareTable,
  compareMetricKeys,
  deltaVerdict,
  diffSnapshots,
  formatDeltaPct,
  relativeDelta,
} from "./compare";
import { welchDeltaInterval } from "./statistics";

describe("relativeDelta", () => {
  it("is (b − a) / a with a the baseline", () => {
    // Seed: t3.xlarge vs t3.medium average latency, 2.12 s → 1.61 s.
    expect(relativeDelta(2120, 1610)).toBeCloseTo(-0.2406, 4);
    expect(relativeDelta(1610, 2120)).toBeCloseTo(0.3168, 4);
  });

  it("is undefined without a value or with a zero baseline, and zero for 0 → 0", () => {
    expect(relativeDelta(undefined, 3)).toBeNull();
    expect(relativeDelta(5, null)).toBeNull();
    expect(relativeDelta(0, 3)).toBeNull();
    expect(relativeDelta(0, 0)).toBe(0);
  });

  it("formats with a sign and a real minus", () => {
    expect(formatDeltaPct(-0.8136)).toBe("−81.4%");
    expect(formatDeltaPct(0.056)).toBe("+5.6%");
    expect(formatDeltaPct(0.00001)).toBe("0.0%");
    expect(formatDeltaPct(null)).toBe("—");
  });
});

describe("deltaVerdict", () => {
  it("follows each metric's direction", () => {
    expect(deltaVerdict("rps", 0.1)).toBe("better");
    expect(deltaVerdict("latency_p99", 0.1)).toBe("worse");
    expect(deltaVerdict("latency_p99", -0.1)).toBe("better");
    expect(deltaVerdict("requests", 0.1)).toBe("neutral");
    expect(deltaVerdict("rps", 0)).toBe("same");
    expect(deltaVerdict("rps", null)).toBe("none");
  });
});

describe("buildCompareTable", () => {
  it("computes deltas against the chosen baseline and orders metrics by the registry", () => {
    const rows = buildCompareTable(
      [
        { runId: "a", metrics: { throughput: 2091, queue_depth_peak: 20, "stage.queue_wait": 0.05 } },
        { runId: "b", metrics: { throughput: 3512, queue_depth_peak: 45 } },
      ],
      0,
    );
    expect(rows.map((r) => r.key)).toEqual(["throughput", "queue_depth_peak", "stage.queue_wait"]);
    const throughput = rows[0]!;
    expect(throughput.cells[0]).toMatchObject({ value: 2091, delta: null, verdict: "none" });
    expect(throughput.cells[1]!.delta).toBeCloseTo(0.6796, 4);
    expect(throughput.cells[1]!.verdict).toBe("better");
    expect(rows[1]!.cells[1]!.verdict).toBe("worse");
    expect(rows[2]!.cells[1]).toMatchObject({ value: null, delta: null, verdict: "none" });
  });

  it("calls a difference within noise when the repetitions overlap", () => {
    const columns = [
      { runId: "a", metrics: { rps: 100 }, repetitions: { rps: [100, 104, 97] } },
      { runId: "b", metrics: { rps: 103 }, repetitions: { rps: [103, 98, 101] } },
      { runId: "c", metrics: { rps: 130 }, repetitions: { rps: [130, 131, 129] } },
    ];
    const [rps] = buildCompareTable(columns, 0, ["rps"]);
    expect(rps!.cells[1]!.verdict).toBe("noise");
    expect(rps!.cells[1]!.pValue).toBeGreaterThan(0.05);
    expect(rps!.cells[2]!.verdict).toBe("better");
    expect(rps!.cells[2]!.pValue).toBeLessThan(0.05);
    // The interval on the delta spans 0 within noise and lies above it for the real gain.
    expect(rps!.cells[1]!.ci!.low).toBeLessThan(0);
    expect(rps!.cells[1]!.ci!.high).toBeGreaterThan(0);
    expect(rps!.cells[2]!.ci!.low).toBeGreaterThan(0.15);
    expect(rps!.cells[0]!.ci).toBeNull();
  });

  it("gives intervals that can be: a latency never falls by more than 100 %, and two runs a side get none", () => {
    // Groups of three with a wide spread: on a linear scale the interval ran below −100 %.
    const wide = [
      { runId: "a", metrics: { latency_p99: 5 }, repetitions: { latency_p99: [5, 40, 12] } },
      { runId: "b", metrics: { latency_p99: 8 }, repetitions: { latency_p99: [8, 60, 10] } },
    ];
    const linear = welchDeltaInterval([5, 40, 12], [8, 60, 10])!;
    expect(linear.low).toBeLessThan(-1);
    const [p99] = buildCompareTable(wide, 0, ["latency_p99"]);
    const ci = p99!.cells[1]!.ci!;
    expect(ci.low).toBeGreaterThan(-1);
    expect(ci.high).toBeGreaterThan(ci.low);
    // Two runs a side: one degree of freedom says nothing; the cell says why there is none.
    const pairs = [
      { runId: "a", metrics: { rps: 100 }, repetitions: { rps: [100, 120] } },
      { runId: "b", metrics: { rps: 90 }, repetitions: { rps: [90, 95] } },
    ];
    const [rps] = buildCompareTable(pairs, 0, ["rps"]);
    expect(rps!.cells[1]!.ci).toBeNull();
    expect(rps!.cells[1]!.ciNote).toBe("no confidence interval: fewer than 3 runs a side (2 and 2)");
  });

  it("shows a repeated run's group mean and spread, the figures its p-value and interval come from", () => {
    const columns = [
      { runId: "a", metrics: { rps: 100 }, repetitions: { rps: [100, 104, 96] } },
      { runId: "b", metrics: { rps: 150 }, repetitions: { rps: [150, 160, 170] } },
      { runId: "c", metrics: { rps: 120 } },
    ];
    const [rps] = buildCompareTable(columns, 0, ["rps"]);
    expect(rps!.cells[0]).toMatchObject({ value: 100, repetitions: 3 });
    expect(rps!.cells[0]!.spread).toBeCloseTo(4, 6);
    // Run b alone read 150; its group's mean is 160, and the delta is between the means.
    expect(rps!.cells[1]).toMatchObject({ value: 160, repetitions: 3 });
    expect(rps!.cells[1]!.spread).toBeCloseTo(10, 6);
    expect(rps!.cells[1]!.delta).toBeCloseTo(0.6, 6);
    const ci = rps!.cells[1]!.ci!;
    expect(ci.low).toBeLessThan(0.6);
    expect(ci.high).toBeGreaterThan(0.6);
    // A single run stays itself.
    expect(rps!.cells[2]).toMatchObject({ value: 120, spread: null, repetitions: 0 });
    expect(rps!.cells[2]!.delta).toBeCloseTo(0.2, 6);
  });

  it("makes no noise call without repetitions on both sides", () => {
    const [rps] = buildCompareTable(
      [
        { runId: "a", metrics: { rps: 100 } },
        { runId: "b", metrics: { rps: 101 }, repetitions: { rps: [101, 100] } },
      ],
      0,
      ["rps"],
    );
    expect(rps!.cells[1]).toMatchObject({ verdict: "better", pValue: null });
  });

  it("lists only known metric keys", () => {
    expect(compareMetricKeys([{ runId: "a", metrics: { rps: 1, unheard_of: 3, "custom.x": 2 } }])).toEqual([
      "rps",
      "custom.x",
    ]);
  });
});

describe("derived deltas that restate a fixed input", () => {
  it("shows req/s per vCPU neutral, with a note, when both runs held the same fixed rate", () => {
    // t3.large (2 vCPU) vs t3.xlarge (4 vCPU), both at a fixed 1,000 req/s.
    const rows = buildCompareTable(
      [
        { runId: "large", metrics: { rps: 999.5, target_rps: 1000, rps_per_vcpu: 499.75, latency_p99: 20 } },
        { runId: "xlarge", metrics: { rps: 1000, target_rps: 1000, rps_per_vcpu: 250, latency_p99: 10 } },
      ],
      0,
    );
    const perVcpu = rows.find((r) => r.key === "rps_per_vcpu")!.cells[1]!;
    expect(perVcpu.delta).toBeCloseTo(-0.4997, 3);
    expect(perVcpu.verdict).toBe("neutral");
    expect(perVcpu.note).toMatch(/fixed 1,000 req\/s: this only restates the rate/);
    // A measured figure keeps its verdict.
    expect(rows.find((r) => r.key === "latency_p99")!.cells[1]!.verdict).toBe("better");
  });

  it("keeps the verdict when a run fell short of its rate or the rates differ", () => {
    const table = (b: Record<string, number>) =>
      buildCompareTable(
        [
          { runId: "a", metrics: { rps: 1000, target_rps: 1000, rps_per_vcpu: 500 } },
          { runId: "b", metrics: b },
        ],
        0,
      ).find((r) => r.key === "rps_per_vcpu")!.cells[1]!;
    expect(table({ rps: 700, target_rps: 1000, rps_per_vcpu: 175 }).verdict).toBe("worse");
    expect(table({ rps: 2000, target_rps: 2000, rps_per_vcpu: 500 }).verdict).toBe("same");
    expect(table({ rps: 2000, target_rps: 2000, rps_per_vcpu: 1000 }).verdict).toBe("better");
    expect(table({ rps: 2000, rps_per_vcpu: 1000 }).note).toBeUndefined();
  });
});

describe("diffSnapshots", () => {
  it("lists the fields that differ, flattened", () => {
    const rows = diffSnapshots([
      {
        config: { instanceType: "t3.small", knobs: { PUBLISH_WORKERS: 20, publishChanSize: 500 } },
        scenario: { poolSize: 64 },
      },
      {
        config: { instanceType: "t3.small", knobs: { PUBLISH_WORKERS: 10, publishChanSize: 500 } },
        scenario: { poolSize: 64 },
      },
      { config: { instanceType: "t3.micro", knobs: { PUBLISH_WORKERS: 20 } }, scenario: { poolSize: 64 } },
    ]);
    expect(rows).toEqual([
      { path: "config.instanceType", values: ["t3.small", "t3.small", "t3.micro"] },
      { path: "config.knobs.PUBLISH_WORKERS", values: ["20", "10", "20"] },
      { path: "config.knobs.publishChanSize", values: ["500", "500", null] },
    ]);
  });
});
