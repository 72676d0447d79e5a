import { describe, expect, it } from "vitest";
import { safeNextPath } from "./safe-next";

const origin = "https://bench.example.com";

describe("safeNextPath", () => {
  it.each([
    ["/\\evil.example", "/"],
    ["//evil.example/path", "/"],
    ["https://evil.example/", "/"],
    ["/\t/evil.example", "/"],
    ["/.//evil.example", "/"],
    ["/..//evil.example/x", "/"],
    ["/%2e//evil.example", "/"],
    ["/%2E%2E//evil.example", "/"],
    ["/a/../..//evil.example", "/"],
    ["javascript:alert(1)", "/"],
    ["", "/"],
    [undefined, "/"],
  ])("sends %j home", (next, expected) => {
    expect(safeNextPath(next, origin)).toBe(expected);
  });

  it("never returns a path the browser would read as another host", () => {
    for (const next of ["/.//evil.example", "/./\\evil.example", "/x/..//evil.example"]) {
      const path = safeNextPath(next, origin);
      expect(new URL(path, origin).origin, next).toBe(origin);
    }
  });

  it("keeps a page of the app with its query and fragment", () => {
    expect(safeNextPath("/runs/abc?tab=series#top", origin)).toBe("/runs/abc?tab=series#top");
    expect(safeNextPath("https://bench.example.com/compare", origin)).toBe("/compare");
  });
});
