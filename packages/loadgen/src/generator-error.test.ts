import { describe, expect, it } from "vitest";
import { judgeGenerator, lagBound } from "./generator-error";

const base = {
  sendLagP50Ms: 0.02,
  sendLagP99Ms: 0.1,
  connectionWaitP99Ms: 0,
  latencyP50Ms: 0.1,
  latencyP99Ms: 0.4,
  cpuShare: 0.3,
  maxConnections: 100,
  allBusyShare: 0,
};

describe("judgeGenerator", () => {
  it("scales the bound with the measured latency, with small floors", () => {
    expect(lagBound(50, 0.1, 0.05)).toBeCloseTo(5, 9);
    expect(lagBound(0.1, 0.1, 0.05)).toBe(0.05);
  });

  it("accepts a lag that is small against the latency", () => {
    expect(judgeGenerator(base)).toMatchObject({ generator: null, targetLimited: null });
    // 3 ms of lag is nothing against a 50 ms service...
    expect(
      judgeGenerator({ ...base, sendLagP50Ms: 3, sendLagP99Ms: 9, latencyP50Ms: 50, latencyP99Ms: 60 }).generator,
    ).toBeNull();
  });

  it("names the generator when its lag is material, whatever the absolute size", () => {
    // ...and most of a fast service's figure: 0.6 ms on 0.7 ms is the generator's, not the target's.
    const fast = judgeGenerator({ ...base, sendLagP50Ms: 0.6, latencyP50Ms: 0.7 });
    expect(fast.generator).toMatch(/^the load generator, not the target, was late sending: send lag p50 0\.600 ms/);
    // A busy event loop (p99) on a slow service, far below the old fixed 100 ms.
    const busy = judgeGenerator({
      ...base,
      sendLagP50Ms: 1,
      sendLagP99Ms: 90,
      latencyP50Ms: 60,
      latencyP99Ms: 345,
      cpuShare: 0.98,
    });
    expect(busy.generator).toMatch(/send lag p99 90 ms against latency p99 345 ms/);
    expect(busy.generator).toMatch(/CPU was saturated \(98% of a core\): split the load over more shards/);
  });

  it("blames the target when requests waited for its connections", () => {
    const held = { ...base, connectionWaitP99Ms: 400, latencyP50Ms: 300, latencyP99Ms: 800, maxConnections: 4 };
    // Connections were free: the wait was for new ones to open, not the target holding them.
    expect(judgeGenerator(held).targetLimited).toBeNull();
    const j = judgeGenerator({ ...held, allBusyShare: 0.4 });
    expect(j.targetLimited).toMatch(
      /^the target is the limit: requests waited for one of the 4 connections \(p99 400 ms\)/,
    );
    expect(j.generator).toBeNull();
  });

  it("does not blame the target for connection waits while the generator itself was held up", () => {
    // Measured beside a busy install: send lag p99 35 ms, connections busy until their responses
    // were read, which the held-up event loop did late.
    const j = judgeGenerator({
      ...base,
      sendLagP99Ms: 35,
      latencyP50Ms: 0.13,
      latencyP99Ms: 102,
      connectionWaitP99Ms: 54,
      allBusyShare: 0.05,
      maxConnections: 64,
      cpuShare: 0.18,
    });
    expect(j.generator).toMatch(/^the load generator, not the target, was late sending/);
    expect(j.targetLimited).not.toMatch(/the target is the limit/);
    expect(j.targetLimited).toMatch(/cannot tell whether the target was the limit/);
  });
});
