import { describe, expect, it } from "vitest";
import { parseServerTiming } from "./server-timing";

describe("parseServerTiming", () => {
  it("reads names, durations and descriptions", () => {
    expect(parseServerTiming('db;dur=53.2, app;dur=47.2;desc="render page", cache;desc="Cache Read";dur=23.2')).toEqual(
      [
        { name: "db", dur: 53.2 },
        { name: "app", dur: 47.2, desc: "render page" },
        { name: "cache", dur: 23.2, desc: "Cache Read" },
      ],
    );
  });

  it("keeps metrics without a duration and unquotes escapes", () => {
    expect(parseServerTiming('miss, edge;desc="a \\"quoted\\", comma"')).toEqual([
      { name: "miss" },
      { name: "edge", desc: 'a "quoted", comma' },
    ]);
  });

  it("tolerates whitespace and case in parameter names, keeps the first dur", () => {
    expect(parseServerTiming("  queue_wait ; DUR = 1.5 ; dur=9 ,total;dur=3")).toEqual([
      { name: "queue_wait", dur: 1.5 },
      { name: "total", dur: 3 },
    ]);
  });

  it("skips malformed entries but keeps the rest", () => {
    expect(parseServerTiming("ok;dur=1, ;dur=2, bad name;dur=3, db;dur=abc, last;dur=4")).toEqual([
      { name: "ok", dur: 1 },
      { name: "db" },
      { name: "last", dur: 4 },
    ]);
  });

  it("returns nothing for an empty header", () => {
    expect(parseServerTiming("")).toEqual([]);
  });
});
