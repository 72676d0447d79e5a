import { detectChangePoints } from "@benchboard/core";
import { describe, expect, it } from "vitest";
import { changePointsByBranch } from "./trend";

// Change points are remembered per line by its values: a line seen again answers the same, and
// any new run, exclusion or changed value is detected afresh.
function line(values: number[], branch = "main") {
  return values.map((value, i) => ({ runId: `${branch}-${i}`, number: i + 1, branch, value, excluded: false }));
}

const step = Array.from({ length: 60 }, (_, i) => (i < 30 ? 100 : 110) + ((i * 7) % 5) / 10);

describe("changePointsByBranch", () => {
  it("answers a line seen again exactly as the detection does", () => {
    const first = changePointsByBranch(line(step));
    const again = changePointsByBranch(line(step));
    expect(again).toEqual(first);
    expect(first.map((c) => c.runId)).toEqual(detectChangePoints(step).map((c) => `main-${c.index}`));
    expect(first.map((c) => c.runId)).toEqual(["main-30"]);
  });

  it("detects afresh when a value changes, a run is excluded or a run is added", () => {
    changePointsByBranch(line(step));
    const flat = step.map((v, i) => (i < 30 ? v : v - 10));
    expect(changePointsByBranch(line(flat))).toEqual([]);

    const excluded = line(step).map((p, i) => ({ ...p, excluded: i >= 30 }));
    expect(changePointsByBranch(excluded)).toEqual([]);

    const longer = [...step, ...Array.from({ length: 30 }, () => 130)];
    expect(changePointsByBranch(line(longer)).map((c) => c.runId)).toEqual(
      detectChangePoints(longer).map((c) => `main-${c.index}`),
    );
  });

  it("keeps branches apart: the same values on two branches give each its own points", () => {
    const both = [...line(step, "main"), ...line(step, "dev")];
    expect(changePointsByBranch(both).map((c) => c.runId)).toEqual(["main-30", "dev-30"]);
  });
});
