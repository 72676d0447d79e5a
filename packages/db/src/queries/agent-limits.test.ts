import { ZScenarioSpec } from "@benchboard/core";
import { describe, expect, it } from "vitest";
import { agentDemands, agentLimitMiss, demandName } from "./agent-limits";

const spec = (raw: object) => ZScenarioSpec.parse(raw);
const none = { maxRate: null, maxConnections: null, engines: [] };

describe("agent limits", () => {
  it("splits a run's demand by shard, as the shards will run it", () => {
    const demands = agentDemands(spec({ engine: "http-open", rate: 40, durationS: 1, maxConnections: 8 }), 4);
    expect(demands.map((d) => [d.shard, d.rate, d.connections])).toEqual([
      [0, 10, 2],
      [1, 10, 2],
      [2, 10, 2],
      [3, 10, 2],
    ]);
    expect(demandName(demands[1]!)).toBe("shard 2 of 4");
    const whole = agentDemands(spec({ engine: "http-closed", concurrency: 12, requests: 100 }), 1);
    expect(whole).toEqual([{ engine: "http-closed", rate: null, connections: 12, shard: null, shardCount: 1 }]);
    expect(demandName(whole[0]!)).toBe("the run");
  });

  it("names the limit a demand exceeds, and takes what fits", () => {
    const [open] = agentDemands(spec({ engine: "http-open", rate: 40, durationS: 1, maxConnections: 50 }), 1);
    expect(agentLimitMiss(none, open!)).toBeNull();
    expect(agentLimitMiss({ ...none, maxRate: 40 }, open!)).toBeNull();
    expect(agentLimitMiss({ ...none, maxRate: 10 }, open!)).toBe(
      "asks for 40 req/s; the agent takes at most 10 req/s (--max-rate)",
    );
    expect(agentLimitMiss({ ...none, maxConnections: 20 }, open!)).toBe(
      "opens 50 connections; the agent opens at most 20 (--max-connections)",
    );
    expect(agentLimitMiss({ ...none, engines: ["http-closed"] }, open!)).toBe(
      "runs the http-open engine; the agent runs only http-closed (--engine)",
    );
    // A closed model paces nothing: a rate limit does not refuse it.
    const [closed] = agentDemands(spec({ engine: "http-closed", concurrency: 4, requests: 10 }), 1);
    expect(agentLimitMiss({ ...none, maxRate: 1 }, closed!)).toBeNull();
  });
});
