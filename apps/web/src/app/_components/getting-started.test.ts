import { describe, expect, it } from "vitest";
import { gettingStartedSteps } from "./getting-started";

describe("gettingStartedSteps", () => {
  it("starts with creating a project when there is none, every later step pointing at it", () => {
    const steps = gettingStartedSteps(null);
    expect(steps.map((s) => s.done)).toEqual([false, false, false, false, false]);
    expect(new Set(steps.map((s) => s.href))).toEqual(new Set(["/#project-name"]));
  });

  it("links the next steps into the project and ticks what it has", () => {
    const steps = gettingStartedSteps({
      id: "p1",
      counts: { targets: 1, instanceConfigs: 0, scenarios: 2, runs: 0 },
    });
    expect(steps.map((s) => s.done)).toEqual([true, true, false, true, false]);
    expect(steps[2]!.href).toBe("/projects/p1/configs/new");
    expect(steps[4]!.href).toBe("/projects/p1/launch");
  });
});
