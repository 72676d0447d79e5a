import { defaultScenarioSpec, resolveOrgCaps, type TScenarioSpec, ZScenarioSpec } from "@benchboard/core";
import { describe, expect, it } from "vitest";
import { capErrors, rowsFromThresholds, specFromState, stateFromSpec, thresholdsFromRows } from "./scenario-form";

function roundTrip(spec: TScenarioSpec) {
  const errors: Record<string, string> = {};
  const back = specFromState(stateFromSpec(spec), errors);
  return { back: ZScenarioSpec.parse(back), errors };
}

describe("scenario spec ↔ form", () => {
  it("opens every engine's default spec and saves it back unchanged", () => {
    for (const engine of ["http-open", "http-closed", "llm", "ws-chat", "capacity-search"] as const) {
      const spec = ZScenarioSpec.parse(defaultScenarioSpec(engine));
      const { back, errors } = roundTrip(spec);
      expect(errors).toEqual({});
      expect(back).toEqual(spec);
    }
  });

  it("keeps how a chat ends, and changes it when the form does", () => {
    const chat = ZScenarioSpec.parse({ ...defaultScenarioSpec("ws-chat"), endsAfter: "duration", durationS: 20 });
    expect(roundTrip(chat).back).toMatchObject({ endsAfter: "duration", durationS: 20 });
    const state = stateFromSpec(chat);
    expect(state.endsAfter).toBe("duration");
    const errors: Record<string, string> = {};
    expect(specFromState({ ...state, endsAfter: "messages" }, errors)).toMatchObject({ endsAfter: "messages" });
    expect(errors).toEqual({});
  });

  it("keeps plan settings the form does not show (assign, asserts, variables)", () => {
    const spec = ZScenarioSpec.parse({
      engine: "http-closed",
      request: { method: "GET", path: "/", headers: {} },
      concurrency: 4,
      requests: 100,
      timeoutMs: 5_000,
      variables: { user: "alice" },
      plan: [
        {
          name: "login",
          request: { method: "POST", path: "/login", headers: { "x-a": "1" }, body: '{"u":"{{user}}"}' },
          assign: "session",
          asserts: [{ key: "status", value: 200 }],
        },
      ],
    });
    const { back, errors } = roundTrip(spec);
    expect(errors).toEqual({});
    expect(back).toEqual(spec);
  });

  it("reads headers from `Name: value` lines and the numbers typed with separators", () => {
    const state = stateFromSpec(ZScenarioSpec.parse(defaultScenarioSpec("http-open")));
    state.headers = "Authorization: Bearer x\n\ncontent-type: application/json";
    state.numbers.rate = "5,000";
    state.numbers.warmupS = "";
    const errors: Record<string, string> = {};
    const spec = specFromState(state, errors) as { rate: number; warmupS?: number; request: { headers: object } };
    expect(errors).toEqual({});
    expect(spec.rate).toBe(5_000);
    expect("warmupS" in spec).toBe(false);
    expect(spec.request.headers).toEqual({ Authorization: "Bearer x", "content-type": "application/json" });
  });

  it("records what the form can see at the spec path: required, not a number, a bad header line", () => {
    const state = stateFromSpec(ZScenarioSpec.parse(defaultScenarioSpec("http-open")));
    state.numbers.rate = "";
    state.numbers.durationS = "ten";
    state.headers = "no colon here";
    const errors: Record<string, string> = {};
    specFromState(state, errors);
    expect(errors).toEqual({
      "spec.rate": "required",
      "spec.durationS": "must be a number",
      "spec.request.headers": "one header per line: Name: value",
    });
  });

  it("turns threshold rows into thresholds and back, refusing a value that is not a number", () => {
    const rows = rowsFromThresholds([{ metric: "latency_p99", op: "<", value: 500 }]);
    expect(rows).toMatchObject([{ metric: "latency_p99", op: "<", value: "500" }]);
    const errors: Record<string, string> = {};
    expect(thresholdsFromRows([...rows, { ...rows[0]!, key: -1, value: "fast" }], errors)[0]).toEqual({
      metric: "latency_p99",
      op: "<",
      value: 500,
    });
    expect(errors).toEqual({ "thresholds.1.value": "must be a number" });
  });

  it("puts a cap the scenario goes over at the field that sets it", () => {
    const caps = resolveOrgCaps({});
    const spec = ZScenarioSpec.parse({ ...defaultScenarioSpec("http-open"), durationS: 3_600 });
    // The warm-up second counts towards the run's length.
    expect(capErrors(spec, caps)).toEqual({
      "spec.durationS": "this scenario runs for 3,601 s; the organization allows at most 1,800 s",
    });
    expect(capErrors(ZScenarioSpec.parse(defaultScenarioSpec("http-open")), caps)).toEqual({});
  });

  it("edits a capacity search's nested SLO and names its fields", () => {
    const spec = ZScenarioSpec.parse(defaultScenarioSpec("capacity-search"));
    const state = stateFromSpec(spec);
    expect(state.numbers["slo.p99Ms"]).toBe("100");
    const errors: Record<string, string> = {};
    const edited = specFromState(
      { ...state, path: "/pay", numbers: { ...state.numbers, "slo.p99Ms": "250", "slo.errorRatePct": "" } },
      errors,
    );
    expect(errors).toEqual({ "spec.slo.errorRatePct": "required" });
    expect(edited).toMatchObject({ slo: { p99Ms: 250 }, request: { path: "/pay" } });
    expect((edited.slo as Record<string, unknown>).errorRatePct).toBeUndefined();
    const caps = resolveOrgCaps({ maxRate: 500 });
    expect(capErrors(spec, caps)).toEqual({
      "spec.maxRate": "this scenario asks for 1,000 req/s; the organization allows at most 500 req/s",
    });
  });
});
