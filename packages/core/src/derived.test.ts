import { describe, expect, it } from "vitest";
import {
  achievedRate,
  deriveBounds,
  derivedContext,
  deriveMetrics,
  effectiveVcpu,
  withDerivedBounds,
  withDerivedMetrics,
} from "./derived";

describe("effectiveVcpu", () => {
  it("uses the CPU limit when it binds, times replicas", () => {
    expect(effectiveVcpu({ vcpu: 2 })).toBe(2);
    expect(effectiveVcpu({ cpuLimit: 0.05 })).toBe(0.05);
    expect(effectiveVcpu({ vcpu: 4, cpuLimit: 0.5 })).toBe(0.5);
    expect(effectiveVcpu({ vcpu: 2, cpuLimit: 8 })).toBe(2);
    expect(effectiveVcpu({ vcpu: 2, replicas: 4 })).toBe(8);
    expect(effectiveVcpu({})).toBeNull();
  });
});

describe("deriveMetrics", () => {
  it("computes req/s per vCPU from the config snapshot (seed: light app at 0.05 vCPU)", () => {
    const ctx = derivedContext({ cpuLimit: 0.05, replicas: 1 });
    expect(deriveMetrics({ rps: 274.45 }, ctx).rps_per_vcpu).toBeCloseTo(5489, 6);
  });

  it("computes throughput as messages over runtime (seed: chat run 1)", () => {
    expect(deriveMetrics({ messages: 475_866, runtime_ms: 205_800 }, {}).throughput).toBeCloseTo(2312.27, 2);
  });

  it("sums the chosen stages into the gateway overhead, only when all of them were measured", () => {
    const ctx = derivedContext({}, { overheadStages: ["queue_wait", "request_setup"] });
    expect(
      deriveMetrics({ "stage.queue_wait": 0.04713, "stage.request_setup": 0.00659 }, ctx).gateway_overhead,
    ).toBeCloseTo(0.05372, 9);
    expect(deriveMetrics({ "stage.queue_wait": 0.04713 }, ctx).gateway_overhead).toBeUndefined();
  });

  it("computes memory utilization against the instance memory", () => {
    const peak = 1312.79 * 1024 * 1024;
    expect(deriveMetrics({ mem_peak_bytes: peak }, { memoryMb: 4096 }).mem_utilization).toBeCloseTo(32.05, 2);
  });

  it("never takes a derived value from storage, but keeps a measured throughput it cannot derive", () => {
    const merged = withDerivedMetrics({ rps: 100, rps_per_vcpu: 9999, throughput: 50 }, { vcpu: 4 });
    expect(merged.rps_per_vcpu).toBe(25);
    expect(merged.throughput).toBe(50);
    expect(withDerivedMetrics({ rps: 100, rps_per_vcpu: 9999 }, {}).rps_per_vcpu).toBeUndefined();
  });
});

describe("derivation on intervals", () => {
  it("propagates the rounding of published inputs", () => {
    // Chat run 8: 502,000 messages in 240.0 s (runtime printed to 0.1 s).
    const [lo, hi] = deriveBounds({ messages: [502_000, 502_000], runtime_ms: [239_950, 240_050] }, {}).throughput!;
    expect(lo).toBeCloseTo(502_000 / 240.05, 6);
    expect(hi).toBeCloseTo(502_000 / 239.95, 6);
  });

  it("widens stored values by half their step", () => {
    const bounds = withDerivedBounds({ rps: 52, rps_per_vcpu: 1 }, { rps: 1 }, { cpuLimit: 0.05 });
    expect(bounds.rps).toEqual([51.5, 52.5]);
    expect(bounds.rps_per_vcpu![0]).toBeCloseTo(1030, 9);
    expect(bounds.rps_per_vcpu![1]).toBeCloseTo(1050, 9);
  });
});

describe("achievedRate", () => {
  it("reads req/s where measured, else messages per second, and never an offered rate", () => {
    expect(achievedRate({ rps: 512.3, throughput: 9 })).toEqual({ metric: "rps", value: 512.3 });
    // A chat run: 502,000 messages over 240 s.
    const chat = withDerivedMetrics({ messages: 502_000, runtime_ms: 240_000 }, derivedContext(null));
    expect(achievedRate(chat)).toEqual({ metric: "throughput", value: 502_000 / 240 });
    expect(achievedRate({ target_rps: 5000, latency_mean: 2120 })).toBeNull();
  });
});
