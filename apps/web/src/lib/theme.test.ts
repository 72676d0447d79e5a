import { describe, expect, it } from "vitest";
import { parseTheme, themeClass } from "./theme";

describe("theme cookie", () => {
  it("reads the three choices and treats anything else as the system's", () => {
    expect(parseTheme("dark")).toBe("dark");
    expect(parseTheme("light")).toBe("light");
    expect(parseTheme("system")).toBe("system");
    expect(parseTheme("DARK")).toBe("system");
    expect(parseTheme(undefined)).toBe("system");
  });

  it("puts a class on <html> only for an explicit choice", () => {
    expect(themeClass("dark")).toBe("dark");
    expect(themeClass("light")).toBe("light");
    expect(themeClass("system")).toBeUndefined();
  });
});
