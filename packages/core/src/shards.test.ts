import { describe, expect, it } from "vitest";
import { ZScenarioSpec } from "./scenario";
import { planShards, splitEvenly } from "./shards";

describe("planShards", () => {
  it("splits an open model's rate and connection cap, keeping the duration", () => {
    const spec = ZScenarioSpec.parse({ engine: "http-open", rate: 5000, durationS: 60, maxConnections: 1001 });
    const shards = planShards(spec, 3);
    expect(shards.map((s) => (s.engine === "http-open" ? s.rate : 0)).reduce((a, b) => a + b)).toBeCloseTo(5000, 9);
    expect(shards.map((s) => (s.engine === "http-open" ? s.maxConnections : 0))).toEqual([334, 334, 333]);
    expect(shards.every((s) => s.engine === "http-open" && s.durationS === 60)).toBe(true);
  });

  it("splits a closed model's users and requests so they add up exactly", () => {
    const spec = ZScenarioSpec.parse({ engine: "http-closed", concurrency: 10, requests: 1003 });
    const shards = planShards(spec, 4);
    expect(shards.map((s) => (s.engine === "http-closed" ? s.concurrency : 0))).toEqual([3, 3, 2, 2]);
    expect(shards.map((s) => (s.engine === "http-closed" ? s.requests : 0))).toEqual([251, 251, 251, 250]);
  });

  it("keeps one shard as the scenario itself and refuses impossible splits naming the field", () => {
    const spec = ZScenarioSpec.parse({ engine: "http-closed", concurrency: 2, durationS: 5 });
    expect(planShards(spec, 1)).toEqual([spec]);
    expect(() => planShards(spec, 3)).toThrow("concurrency (2) is below the shard count");
    expect(() => planShards(spec, 0)).toThrow("must be a whole number from 1 to 64");
    const chat = ZScenarioSpec.parse({ engine: "ws-chat", users: 10, rooms: 2, messagesPerUser: 1 });
    expect(() => planShards(chat, 2)).toThrow(/chat scenarios run in one worker/);
  });

  it("splitEvenly sums to the total with parts differing by at most one", () => {
    for (const [total, n] of [
      [7, 3],
      [0, 2],
      [100, 7],
      [5, 5],
    ] as const) {
      const parts = splitEvenly(total, n);
      expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
      expect(Math.max(...parts) - Math.min(...parts)).toBeLessThanOrEqual(1);
    }
  });
});
