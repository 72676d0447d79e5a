import { describe, expect, it } from "vitest";
import { parseStageList, targetOverheadStages, ZOverheadStages } from "./overhead-stages";

describe("overhead stages", () => {
  it("reads a target snapshot's declared stages, ignoring what is not a stage name", () => {
    expect(targetOverheadStages({ name: "gw", overheadStages: ["queue_wait", 3, "Bad Name", "json.m-1"] })).toEqual([
      "queue_wait",
      "json.m-1",
    ]);
    expect(targetOverheadStages({ name: "gw", overheadStages: [] })).toBeNull();
    expect(targetOverheadStages({ name: "gw" })).toBeNull();
    expect(targetOverheadStages(null)).toBeNull();
    expect(targetOverheadStages(["queue_wait"])).toBeNull();
  });

  it("splits a typed list on commas and bounds it", () => {
    expect(parseStageList(" a, ,b ,")).toEqual(["a", "b"]);
    expect(ZOverheadStages.safeParse(Array.from({ length: 32 }, (_, i) => `s${i}`)).success).toBe(true);
    expect(ZOverheadStages.safeParse(Array.from({ length: 33 }, (_, i) => `s${i}`)).success).toBe(false);
    expect(ZOverheadStages.safeParse(["x".repeat(64)]).success).toBe(true);
    expect(ZOverheadStages.safeParse(["x".repeat(65)]).success).toBe(false);
    expect(ZOverheadStages.safeParse(["<script>"]).success).toBe(false);
  });
});
