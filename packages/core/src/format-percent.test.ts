import { describe, expect, it } from "vitest";
import { formatMetric, formatPercent } from "./metrics";

describe("percentages", () => {
  it("take more decimals only where two would read as 100 % or 0 %", () => {
    expect(formatMetric("success_rate", (3_599_880 / 3_600_000) * 100)).toBe("99.997%");
    expect(formatPercent(100)).toBe("100.00%");
    expect(formatPercent(99.5)).toBe("99.50%");
    expect(formatPercent(0)).toBe("0.00%");
    expect(formatPercent(0.0001)).toBe("0.0001%");
    expect(formatPercent(42.123)).toBe("42.12%");
  });
});
