import { describe, expect, it } from "vitest";
import { badPathReason } from "./request-path";

describe("request paths", () => {
  it.each([
    ["/share/%F0%9F", "malformed"],
    ["/share/%E0%A4%A", "malformed"],
    ["/runs/%zz", "malformed"],
    ["/share/abc%00def", "NUL"],
  ])("refuses %s", (path, why) => {
    expect(badPathReason(path)).toContain(why);
  });

  it("lets ordinary and well-escaped paths through", () => {
    expect(badPathReason("/share/Abc-123_x")).toBeNull();
    expect(badPathReason("/projects/caf%C3%A9")).toBeNull();
  });
});
