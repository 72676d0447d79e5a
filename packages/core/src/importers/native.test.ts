import { describe, expect, it } from "vitest";
import { ImportError } from "./import-error";
import { looksLikeNativeRun, parseNativeRun } from "./native";

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected an error");
}

const run = {
  schemaVersion: 1,
  tool: { name: "custom" },
  result: { metrics: { requests: 10, rps: 5 } },
};

describe("parseNativeRun", () => {
  it("reads a normalized run, filling defaults", () => {
    const parsed = parseNativeRun(JSON.stringify(run));
    expect(parsed.result.metrics).toEqual({ requests: 10, rps: 5 });
    expect(parsed.result.statusCounts).toEqual({});
    expect(looksLikeNativeRun(run)).toBe(true);
    expect(looksLikeNativeRun({ metrics: {} })).toBe(false);
  });

  it("names the field of an invalid value", () => {
    const bad = { ...run, result: { metrics: { rps: "fast" } } };
    const error = caught(() => parseNativeRun(JSON.stringify(bad)));
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).field).toBe("result.metrics.rps");
    expect((error as ImportError).message).toMatch(/^Benchboard run JSON, field "result.metrics.rps": /);
  });

  it("names the line of malformed JSON", () => {
    expect(() => parseNativeRun('{\n  "schemaVersion": 1,\n  "result": {\n')).toThrow(/line \d+: the JSON ends early/);
    const error = caught(() => parseNativeRun('{\n  "schemaVersion": 1,\n  oops\n}'));
    expect((error as ImportError).line).toBe(3);
  });
});
