import { describe, expect, it } from "vitest";
import { countOf } from "./words";

describe("countOf", () => {
  it("names one thing in the singular and every other count in the plural", () => {
    expect(countOf(1, "target")).toBe("1 target");
    expect(countOf(0, "target")).toBe("0 targets");
    expect(countOf(2, "instance config")).toBe("2 instance configs");
    expect(countOf(12_500, "run")).toBe("12,500 runs");
    expect(countOf(3, "repetition", "repetitions of it")).toBe("3 repetitions of it");
  });
});
