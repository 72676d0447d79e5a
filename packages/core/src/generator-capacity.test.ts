import { describe, expect, it } from "vitest";
import { GENERATOR_HEADROOM, suggestedShards, workerCapacity } from "./generator-capacity";

describe("worker capacity", () => {
  it("reads what one worker drives from measured runs: rate per shard over its CPU, with headroom", () => {
    const capacity = workerCapacity("http-open", [
      { rps: 4_000, generatorCpu: 0.4, shards: 1 }, // 10,000 per core
      { rps: 8_000, generatorCpu: 0.4, shards: 2 }, // 10,000 per core
      { rps: 2_000, generatorCpu: 0.1, shards: 1 }, // 20,000 per core
      { rps: 50, generatorCpu: 0.01, shards: 1 }, // idle: says nothing
    ])!;
    expect(capacity.ratePerWorker).toBe(Math.floor(10_000 * GENERATOR_HEADROOM));
    expect(capacity.basis).toBe("measured on 3 recent runs of this engine");
  });

  it("falls back to the benchmark's figure, and has none for engines without one", () => {
    expect(workerCapacity("http-open", [])?.basis).toBe("measured by the engine benchmark");
    expect(workerCapacity("llm", [])).toBeNull();
  });

  it("suggests the fewest shards that keep each worker within it", () => {
    const capacity = { ratePerWorker: 6_000, basis: "" };
    expect(suggestedShards(5_000, capacity)).toBe(1);
    expect(suggestedShards(6_001, capacity)).toBe(2);
    expect(suggestedShards(20_000, capacity)).toBe(4);
  });
});
