import { describe, expect, it } from "vitest";
import { formatDurationMs, formatServerTiming, parseServerTiming } from "./server-timing";

describe("Server-Timing", () => {
  it("formats milliseconds with up to six decimals and never in exponent notation", () => {
    expect(formatDurationMs(0.012)).toBe("0.012");
    expect(formatDurationMs(0.000016)).toBe("0.000016");
    expect(formatDurationMs(1e-7)).toBe("0");
    expect(formatDurationMs(1560.5)).toBe("1560.5");
    expect(formatDurationMs(-1)).toBe("0");
  });

  it("round-trips entries", () => {
    const header = formatServerTiming([
      { name: "queue_wait", dur: 0.047 },
      { name: "key_selection", dur: 0.000016 },
      { name: "upstream_request", dur: 1560, desc: 'mock "provider"' },
    ]);
    expect(header).toBe(
      'queue_wait;dur=0.047, key_selection;dur=0.000016, upstream_request;dur=1560;desc="mock \\"provider\\""',
    );
    expect(parseServerTiming(header)).toEqual([
      { name: "queue_wait", dur: 0.047 },
      { name: "key_selection", dur: 0.000016 },
      { name: "upstream_request", dur: 1560, desc: 'mock "provider"' },
    ]);
  });

  it("parses the forms the spec allows and rejects malformed ones", () => {
    expect(parseServerTiming("cache;desc=hit , db ;dur = 53, miss")).toEqual([
      { name: "cache", desc: "hit" },
      { name: "db", dur: 53 },
      { name: "miss" },
    ]);
    expect(() => parseServerTiming("db;dur=fast")).toThrow(/not a number/);
    expect(() => parseServerTiming("bad name;dur=1")).toThrow(/name/);
    expect(() => parseServerTiming('db;desc="open')).toThrow(/unterminated/);
    expect(() => formatServerTiming([{ name: "has space", dur: 1 }])).toThrow(/invalid/);
  });
});
