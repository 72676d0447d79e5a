import { describe, expect, it } from "vitest";
import { classifyReasons, runReading, saturationHeadline, withTargetReasons } from "./run-state";

const TARGET = "the target is the limit: requests waited for one of the 4 connections (p99 900 ms)";
const GENERATOR = "the load generator, not the target, was late sending: send lag p99 40 ms";

describe("classifyReasons", () => {
  it("keeps a run whose every reason is the target's valid, and saturated", () => {
    const out = classifyReasons({ generator: [], target: [TARGET] });
    expect(out).toEqual({ valid: true, invalidReasons: [], saturationReasons: [TARGET] });
    expect(runReading(out)).toBe("saturated");
  });

  it("makes a run the generator distorted invalid, its reason first even when the target's also applies", () => {
    const out = classifyReasons({ generator: [GENERATOR], target: [TARGET] });
    expect(out.valid).toBe(false);
    expect(out.invalidReasons).toEqual([GENERATOR, TARGET]);
    expect(out.saturationReasons).toEqual([TARGET]);
    expect(runReading(out)).toBe("invalid");
  });

  it("reads a run with no reasons as valid", () => {
    const out = classifyReasons({ generator: [], target: [] });
    expect(runReading(out)).toBe("valid");
    expect(out.invalidReasons).toEqual([]);
  });
});

describe("runReading", () => {
  it("reads unknown validity as valid and an empty reason list as not saturated", () => {
    expect(runReading({})).toBe("valid");
    expect(runReading({ valid: null, saturationReasons: [] })).toBe("valid");
    expect(runReading({ valid: true, saturationReasons: [TARGET] })).toBe("saturated");
    expect(runReading({ valid: false, saturationReasons: [TARGET] })).toBe("invalid");
  });
});

describe("withTargetReasons", () => {
  it("appends the target's reasons after the generator's on an invalid result, once", () => {
    const out = withTargetReasons({ valid: false, invalidReasons: [GENERATOR], saturationReasons: [TARGET] }, [
      TARGET,
      "the target is the limit: its queue grew",
    ]);
    expect(out.invalidReasons).toEqual([GENERATOR, TARGET, "the target is the limit: its queue grew"]);
    expect(out.saturationReasons).toEqual([TARGET, "the target is the limit: its queue grew"]);
  });
});

describe("saturationHeadline", () => {
  it("says the achieved rate of the offered one", () => {
    expect(saturationHeadline({ rps: 1843.6, target_rps: 2500 })).toBe(
      "saturated at ~1,844 req/s achieved of 2,500 offered",
    );
    expect(saturationHeadline({ rps: 42.25, target_rps: 80 })).toBe("saturated at ~42.3 req/s achieved of 80 offered");
  });

  it("says only the achieved rate when no rate was offered", () => {
    expect(saturationHeadline({ rps: 310 })).toBe("saturated at ~310 req/s");
    expect(saturationHeadline({ throughput: 950 })).toBe("saturated at ~950 msg/s");
    expect(saturationHeadline({})).toBe("saturated");
  });
});
