import { describe, expect, it } from "vitest";
import { type Config, fieldsFromState, stateFromConfig } from "./config-form";

const config = {
  id: "c1",
  name: "t3.xlarge",
  instanceType: "t3.xlarge",
  vcpu: 4,
  memoryMb: 16_384,
  cpuLimit: null,
  replicas: 2,
  knobs: { buffer_size: 20_000, streaming: true, log_level: "info" },
} as unknown as Config;

describe("instance config ↔ form", () => {
  it("opens a config (memory in GiB, knobs sorted and typed) and saves it back unchanged", () => {
    const state = stateFromConfig(config);
    expect(state).toMatchObject({ vcpu: "4", memoryGiB: "16", cpuLimit: "", replicas: "2" });
    expect(state.knobs.map((k) => [k.name, k.type, k.value])).toEqual([
      ["buffer_size", "number", "20000"],
      ["log_level", "string", "info"],
      ["streaming", "boolean", "true"],
    ]);
    const errors: Record<string, string> = {};
    expect(fieldsFromState(state, errors)).toEqual({
      name: "t3.xlarge",
      instanceType: "t3.xlarge",
      vcpu: 4,
      memoryMb: 16_384,
      cpuLimit: null,
      replicas: 2,
      knobs: { buffer_size: 20_000, streaming: true, log_level: "info" },
    });
    expect(errors).toEqual({});
  });

  it("starts a new config with one replica and nothing else", () => {
    const errors: Record<string, string> = {};
    expect(fieldsFromState({ ...stateFromConfig(undefined), name: "laptop" }, errors)).toEqual({
      name: "laptop",
      instanceType: null,
      vcpu: null,
      memoryMb: null,
      cpuLimit: null,
      replicas: 1,
      knobs: {},
    });
  });

  it("refuses what it can see, at the field: no replicas, a word for vCPU, a knob twice or unnamed", () => {
    const state = stateFromConfig(config);
    state.replicas = "";
    state.vcpu = "four";
    state.memoryGiB = "0.5";
    state.knobs.push({ ...state.knobs[0]!, key: -1 }, { ...state.knobs[0]!, key: -2, name: " " });
    const errors: Record<string, string> = {};
    expect(fieldsFromState(state, errors)).toBeNull();
    expect(errors).toEqual({
      replicas: "required",
      vcpu: "must be a number",
      "knobs.3.name": "each knob once",
      "knobs.4.name": "knob name is required",
    });
  });
});

describe("instance config form checks with the server's schema", () => {
  it("says what the server would, at the field, before anything is sent", () => {
    const state = { ...stateFromConfig(config), name: "  ", vcpu: "-2", replicas: "1.5", cpuLimit: "2000" };
    const errors: Record<string, string> = {};
    expect(fieldsFromState(state, errors)).toBeNull();
    expect(errors).toEqual({
      name: "name is required",
      vcpu: "must be more than 0",
      replicas: "must be a whole number",
      cpuLimit: expect.stringMatching(/1024/),
    });
  });

  it("reports the memory the user typed in GiB at the GiB field", () => {
    const errors: Record<string, string> = {};
    expect(fieldsFromState({ ...stateFromConfig(config), memoryGiB: "-1" }, errors)).toBeNull();
    expect(errors).toEqual({ memoryGiB: "must be more than 0" });
  });
});
