import { describe, expect, it } from "vitest";
import { configLabel, loadLabel, runLabel, runTitle, sweepValueLabel } from "./run-label";

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

describe("runTitle", () => {
  // Scenario "checkout 200 rps, 20 s" swept over rate 100, 200, 400, 800, each value twice.
  const sweep = { parameter: "scenario.rate", values: [100, 200, 400, 800], repetitions: 2 };
  const scenario = (rate: number) => ({
    name: "checkout 200 rps, 20 s",
    spec: { engine: "http-open", rate, durationS: 20 },
  });

  it("names the load a sweep value ran, with its place among the values and its repetition", () => {
    const title = runTitle({
      number: 24,
      scenarioName: "checkout 200 rps, 20 s",
      scenarioSnapshot: scenario(400),
      configSnapshot: { name: "gateway", instanceType: "t3.xlarge" },
      sweep,
      sweepValue: 400,
      groupIndex: 5,
    });
    expect(title).toBe("Run #24 · 400 req/s · 20 s · t3.xlarge · rate = 400 (value 3 of 4) · repetition 2 of 2");
    expect(title).not.toContain("200");
  });

  it("says which load fields were set at launch, and the repetition of a repeated run", () => {
    expect(
      runTitle({
        number: 7,
        scenarioSnapshot: { ...scenario(500), overrides: { rate: 500 } },
        configSnapshot: null,
        groupIndex: 0,
        groupSize: 3,
      }),
    ).toBe("Run #7 · 500 req/s · 20 s · rate set at launch · repetition 1 of 3");
  });

  it("falls back to the scenario's name for a run that recorded no load", () => {
    expect(
      runTitle({ number: 3, scenarioName: "k6 import", scenarioSnapshot: { name: "k6 import" }, configSnapshot: null }),
    ).toBe("Run #3 · k6 import");
    expect(runTitle({ number: 3, scenarioSnapshot: null, configSnapshot: null })).toBe("Run #3");
  });
});
