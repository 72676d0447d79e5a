import { describe, expect, it } from "vitest";
import { activeNavHref } from "./nav";

describe("activeNavHref", () => {
  it("highlights one entry: the longest prefix of the path", () => {
    expect(activeNavHref("/runs/upload")).toBe("/runs/upload");
    expect(activeNavHref("/runs")).toBe("/runs");
    expect(activeNavHref("/runs/abc123")).toBe("/runs");
    expect(activeNavHref("/")).toBe("/");
    expect(activeNavHref("/projects/p1/targets")).toBeNull();
    expect(activeNavHref("/runsx")).toBeNull();
  });
});
