import { describe, expect, it } from "vitest";
import { checkScenarioCaps, resolveOrgCaps } from "./caps";
import { ENGINE_KINDS, ZScenarioSpec } from "./scenario";
import { defaultScenarioSpec } from "./scenario-defaults";

const SELF_SERVE = { maxRate: 1_000, maxConnections: 200, maxDurationS: 300 };

describe("defaultScenarioSpec", () => {
  it("keeps the defaults when no caps are given", () => {
    expect(defaultScenarioSpec("http-open")).toMatchObject({ rate: 100, maxConnections: 1_000, durationS: 30 });
  });

  it.each(ENGINE_KINDS)("brings the %s defaults within a self-serve organization's caps", (engine) => {
    const spec = defaultScenarioSpec(engine, SELF_SERVE);
    expect(ZScenarioSpec.parse(spec)).toEqual(spec);
    expect(checkScenarioCaps(spec, resolveOrgCaps(SELF_SERVE))).toEqual([]);
    // Without the caps, the http-open and llm defaults would be refused.
    if (engine === "http-open" || engine === "llm") {
      expect(checkScenarioCaps(defaultScenarioSpec(engine), resolveOrgCaps(SELF_SERVE))).not.toEqual([]);
    }
  });

  it("lowers only what exceeds the caps", () => {
    expect(defaultScenarioSpec("http-open", SELF_SERVE)).toMatchObject({
      rate: 100,
      maxConnections: 200,
      durationS: 30,
    });
    expect(defaultScenarioSpec("llm", { maxRate: 10, maxConnections: 5, maxDurationS: 20 })).toMatchObject({
      rate: 10,
      maxConnections: 5,
      durationS: 20,
    });
  });
});
