import { describe, expect, it } from "vitest";
import { describeInstanceSize, findInstancePreset, INSTANCE_PRESETS } from "./instance-presets";
import { parseKnobValue, ZKnobs } from "./knobs";
import { ENGINE_KINDS, ZScenarioSpec } from "./scenario";
import { defaultScenarioSpec, describeScenarioSpec } from "./scenario-defaults";

describe("instance presets", () => {
  it("has the reference instance types with their published sizes", () => {
    expect(findInstancePreset("t3.medium")).toMatchObject({ vcpu: 2, memoryMb: 4_096, burstable: true });
    expect(findInstancePreset("t3.xlarge")).toMatchObject({ vcpu: 4, memoryMb: 16_384 });
    expect(findInstancePreset("c6i.xlarge")).toMatchObject({ vcpu: 4, memoryMb: 8_192, burstable: false });
    expect(new Set(INSTANCE_PRESETS.map((p) => p.provider))).toEqual(new Set(["aws", "gcp", "azure"]));
  });

  it("names each type once", () => {
    const names = INSTANCE_PRESETS.map((p) => p.instanceType);
    expect(new Set(names).size).toBe(names.length);
  });

  it("describes sizes in GiB above a GiB", () => {
    expect(describeInstanceSize({ vcpu: 2, memoryMb: 4_096 })).toBe("2 vCPU · 4 GiB");
    expect(describeInstanceSize({ vcpu: null, memoryMb: 512 })).toBe("512 MiB");
  });
});

describe("knobs", () => {
  it("parses typed values and names what is wrong", () => {
    expect(parseKnobValue("number", "15_000")).toEqual({ value: 15_000 });
    expect(parseKnobValue("number", "lots")).toEqual({ error: "must be a number" });
    expect(parseKnobValue("number", " ")).toEqual({ error: "must be a number" });
    expect(parseKnobValue("boolean", "TRUE")).toEqual({ value: true });
    expect(parseKnobValue("boolean", "yes")).toEqual({ error: "must be true or false" });
    expect(parseKnobValue("string", " a ")).toEqual({ value: " a " });
  });

  it("refuses knob names a service could not read as an identifier", () => {
    expect(ZKnobs.safeParse({ PUBLISH_WORKERS: 40, "client.pool": 1 }).success).toBe(true);
    const bad = ZKnobs.safeParse({ "1st": 1 });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["1st"]);
  });
});

describe("scenario defaults", () => {
  it.each(ENGINE_KINDS)("%s defaults are a valid spec", (engine) => {
    const spec = defaultScenarioSpec(engine);
    expect(ZScenarioSpec.parse(spec)).toEqual(spec);
  });

  it("describes the load in one line", () => {
    expect(describeScenarioSpec(ZScenarioSpec.parse({ engine: "http-open", rate: 5_000, durationS: 60 }))).toBe(
      "5,000 req/s · 60 s",
    );
    expect(
      describeScenarioSpec(ZScenarioSpec.parse({ engine: "ws-chat", users: 50, rooms: 20, messagesPerUser: 500 })),
    ).toBe("50 users · 20 rooms · 500 msgs each");
  });
});
