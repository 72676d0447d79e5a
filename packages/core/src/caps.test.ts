import { describe, expect, it } from "vitest";
import { checkScenarioCaps, DEFAULT_ORG_CAPS, peakLoad, resolveOrgCaps } from "./caps";
import { ZScenarioSpec } from "./scenario";

const caps = { maxRate: 1_000, maxConnections: 100, maxDurationS: 60, maxConcurrentRuns: 2, maxWorkerSlots: 8 };

describe("org caps", () => {
  it("fills missing or malformed keys with the defaults, key by key", () => {
    expect(resolveOrgCaps({})).toEqual(DEFAULT_ORG_CAPS);
    expect(resolveOrgCaps(null)).toEqual(DEFAULT_ORG_CAPS);
    expect(resolveOrgCaps({ maxRate: 500, maxConnections: "lots", maxDurationS: -1 })).toEqual({
      ...DEFAULT_ORG_CAPS,
      maxRate: 500,
    });
  });

  it("takes the peak of a ramp and the warm-up into account for the open model", () => {
    const spec = ZScenarioSpec.parse({ engine: "http-open", rate: 800, rampFromRate: 1_200, rampS: 5, durationS: 59 });
    expect(peakLoad(spec)).toEqual({ rate: 1_200, connections: 1_000, durationS: 60 });
    const violations = checkScenarioCaps(spec, caps);
    expect(violations.map((v) => [v.cap, v.specField])).toEqual([
      ["maxRate", "rate"],
      ["maxConnections", "maxConnections"],
    ]);
    expect(violations[0]?.message).toBe("asks for 1,200 req/s; the organization allows at most 1,000 req/s");
  });

  it("checks closed-model concurrency and leaves a count-bounded run's duration unknown", () => {
    const spec = ZScenarioSpec.parse({ engine: "http-closed", concurrency: 101, requests: 10 });
    expect(peakLoad(spec)).toEqual({ rate: null, connections: 101, durationS: null });
    expect(checkScenarioCaps(spec, caps).map((v) => v.specField)).toEqual(["concurrency"]);
  });

  it("derives a chat scenario's message rate from users and interval", () => {
    const spec = ZScenarioSpec.parse({
      engine: "ws-chat",
      users: 50,
      rooms: 5,
      messagesPerUser: 10,
      messageIntervalMs: 10,
      durationS: 30,
    });
    expect(peakLoad(spec).rate).toBe(5_000);
    expect(checkScenarioCaps(spec, caps).map((v) => v.specField)).toEqual(["messageIntervalMs"]);
  });

  it("accepts a scenario within every cap", () => {
    const spec = ZScenarioSpec.parse({ engine: "llm", rate: 10, durationS: 30, maxConnections: 50 });
    expect(checkScenarioCaps(spec, caps)).toEqual([]);
  });
});

describe("launch footprint", () => {
  it("counts a run once and every shard as a worker slot", async () => {
    const { checkLaunchFootprint, launchFootprint } = await import("./caps");
    expect(launchFootprint({ shards: 64 })).toEqual({ runs: 1, workerSlots: 64, queuedRuns: 1 });
    expect(launchFootprint({ repetitions: 3, sweepValues: 4 })).toEqual({ runs: 1, workerSlots: 1, queuedRuns: 12 });
    const limits = { maxConcurrentRuns: 2, maxWorkerSlots: 64 };
    expect(checkLaunchFootprint({ runs: 0, workerSlots: 0 }, { shards: 64 }, limits)).toBeNull();
    expect(checkLaunchFootprint({ runs: 1, workerSlots: 1 }, { shards: 64 }, limits)).toMatchObject({
      cap: "maxWorkerSlots",
      specField: "shards",
      message: "needs 64 worker slots (one per shard) with 1 in use; the organization may hold 64 at a time",
    });
    expect(checkLaunchFootprint({ runs: 2, workerSlots: 2 }, {}, limits)).toMatchObject({
      cap: "maxConcurrentRuns",
      message: "2 runs are already queued or running; the organization allows 2 at a time",
    });
  });
});
