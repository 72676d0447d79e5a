import { describe, expect, it } from "vitest";
import { metricDef, stageName } from "./metrics";

describe("stage names", () => {
  it("print the same on every page: acronyms in capitals, separators as spaces", () => {
    expect(stageName("json_parse")).toBe("JSON parse");
    expect(stageName("db-query")).toBe("DB query");
    expect(stageName("upstream")).toBe("Upstream");
    expect(stageName("tls handshake")).toBe("TLS handshake");
  });

  it("are what a stage metric is called, in milliseconds", () => {
    expect(metricDef("stage.json_parse")).toMatchObject({ label: "Stage: JSON parse", unit: "ms", direction: "lower" });
  });
});
