import { describe, expect, it } from "vitest";
import { formatBytes } from "./metrics";
import { niceTicks } from "./ticks";

describe("niceTicks", () => {
  it("steps by round numbers up to the first tick at or above the maximum", () => {
    expect(niceTicks(97)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(4_216)).toEqual([0, 1_000, 2_000, 3_000, 4_000, 5_000]);
    expect(niceTicks(0.37)).toEqual([0, 0.1, 0.2, 0.3, 0.4]);
    expect(niceTicks(12.5)).toEqual([0, 2.5, 5, 7.5, 10, 12.5]);
  });

  it("gives bytes ticks that print as round binary units", () => {
    const ticks = niceTicks(120_000_000, { binary: true });
    expect(ticks.map(formatBytes)).toEqual(["0 B", "25.00 MiB", "50.00 MiB", "75.00 MiB", "100.00 MiB", "125.00 MiB"]);
  });

  it("labels binary units as binary: 16 GiB of memory is not 16 GB", () => {
    expect(formatBytes(16 * 1024 ** 3)).toBe("16.00 GiB");
    expect(formatBytes(3340.44 * 1024 ** 2)).toBe("3.26 GiB");
    expect(formatBytes(10.32 * 1024)).toBe("10.32 KiB");
    expect(formatBytes(512)).toBe("512 B");
  });

  it("has an axis even with nothing to show", () => {
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(niceTicks(Number.NaN)).toEqual([0, 1]);
  });
});
