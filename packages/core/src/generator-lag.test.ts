import { describe, expect, it } from "vitest";
import { LAG_FLOOR_P99_MS, lagBound, liveLagWarning } from "./generator-lag";

describe("liveLagWarning", () => {
  it("warns once the send lag p99 passes a quarter of latency p99", () => {
    expect(liveLagWarning({ sendLagP99Ms: 4, latencyP99Ms: 20 })).toBeNull();
    expect(liveLagWarning({ sendLagP99Ms: 5, latencyP99Ms: 20 })).toBeNull();
    expect(liveLagWarning({ sendLagP99Ms: 5.5, latencyP99Ms: 20 })).toEqual({
      lagP99Ms: 5.5,
      boundMs: 5,
      latencyP99Ms: 20,
    });
  });

  it("never warns below the floor, however fast the target", () => {
    expect(lagBound(0.4, 0.25, LAG_FLOOR_P99_MS)).toBe(LAG_FLOOR_P99_MS);
    expect(liveLagWarning({ sendLagP99Ms: 0.45, latencyP99Ms: 0.4 })).toBeNull();
    expect(liveLagWarning({ sendLagP99Ms: 0.6, latencyP99Ms: 0.4 })).not.toBeNull();
  });

  it("says nothing for engines that report no lag, or before any latency", () => {
    expect(liveLagWarning({ latencyP99Ms: 20 })).toBeNull();
    expect(liveLagWarning({ sendLagP99Ms: null, latencyP99Ms: 20 })).toBeNull();
    expect(liveLagWarning({ sendLagP99Ms: 9, latencyP99Ms: null })).toBeNull();
  });
});
