import { describe, expect, it } from "vitest";
import { configLabel, loadLabel, runLabel, sweepValueLabel } from "./run-label";

describe("runLabel", () => {
  it("labels a run by the load it really ran, not by its scenario's name", () => {
    // Scenario "300 req/s non-streaming, 20 s", launched with rate 500 and duration 15.
    const label = runLabel({
      scenarioSnapshot: {
        name: "300 req/s non-streaming, 20 s",
        engine: "llm",
        spec: { engine: "llm", rate: 500, durationS: 15, stream: false },
        overrides: { rate: 500, durationS: 15 },
      },
      configSnapshot: { name: "gateway on t3.xlarge", instanceType: "t3.xlarge", vcpu: 4 },
    });
    expect(label).toBe("500 req/s · non-streaming · 15 s · t3.xlarge");
  });

  it("tells runs on two instance types apart", () => {
    const spec = { engine: "http-open", rate: 5000, durationS: 60 };
    const medium = runLabel({ scenarioSnapshot: { spec }, configSnapshot: { instanceType: "t3.medium" } });
    const xlarge = runLabel({ scenarioSnapshot: { spec }, configSnapshot: { instanceType: "t3.xlarge" } });
    expect(medium).toBe("5,000 req/s · 60 s · t3.medium");
    expect(xlarge).toBe("5,000 req/s · 60 s · t3.xlarge");
  });

  it("labels closed-model, chat and uploaded runs", () => {
    expect(loadLabel({ engine: "http-closed", concurrency: 4, requests: 300 })).toBe("4 connections · 300 requests");
    expect(loadLabel({ engine: "http-closed", concurrency: 8, durationS: 120 })).toBe("8 connections · 2 min");
    expect(loadLabel({ engine: "ws-chat", users: 1000, rooms: 20, messagesPerUser: 100 })).toBe(
      "1,000 users · 20 rooms · 100 msgs/user",
    );
    expect(
      loadLabel({
        engine: "ws-chat",
        users: 100,
        rooms: 10,
        messagesPerUser: 20,
        endsAfter: "duration",
        durationS: 20,
      }),
    ).toBe("100 users · 10 rooms · 20 s");
    expect(
      runLabel({ scenarioSnapshot: { engine: "http-closed", spec: { concurrency: 20 } }, configSnapshot: null }),
    ).toBe("20 connections");
    expect(runLabel({ scenarioSnapshot: { name: "upload" }, configSnapshot: null })).toBeUndefined();
    expect(configLabel({ name: "examples", cpuLimit: 0.5 })).toBe("examples 0.5 CPU");
  });

  it("labels sweep values by value", () => {
    expect(sweepValueLabel("knobs.buffer_size", 20000)).toBe("buffer_size = 20000");
    expect(sweepValueLabel("scenario.rate", 250)).toBe("rate = 250");
    expect(sweepValueLabel(null, "t3.xlarge")).toBe("t3.xlarge");
    expect(sweepValueLabel("knobs.buffer_size", null)).toBeUndefined();
  });
});
