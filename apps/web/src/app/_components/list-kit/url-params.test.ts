import { describe, expect, it } from "vitest";
import { matchesQuery, pageOf, pageParam, searchWith } from "./url-params";

describe("list kit: state in the address", () => {
  it("changes only the given keys, dropping emptied ones", () => {
    const current = new URLSearchParams("q=large&page=2&sort=oldest");
    expect(searchWith(current, { q: "small", page: undefined })).toBe("?q=small&sort=oldest");
    expect(searchWith(current, { q: "", page: "", sort: undefined })).toBe("");
    expect(current.toString()).toBe("q=large&page=2&sort=oldest");
  });

  it("reads a page number, anything else being page 1", () => {
    expect([
      pageParam("3"),
      pageParam("0"),
      pageParam("-1"),
      pageParam("2.5"),
      pageParam("x"),
      pageParam(null),
    ]).toEqual([3, 1, 1, 1, 1, 1]);
  });

  it("cuts a page, clamping a page past the end to the last one", () => {
    const rows = Array.from({ length: 27 }, (_, i) => i + 1);
    expect(pageOf(rows, 1, 25)).toEqual({ items: rows.slice(0, 25), page: 1, pages: 2 });
    expect(pageOf(rows, 2, 25)).toEqual({ items: [26, 27], page: 2, pages: 2 });
    expect(pageOf(rows, 9, 25).page).toBe(2);
    expect(pageOf([], 1, 25)).toEqual({ items: [], page: 1, pages: 1 });
  });

  it("matches every word of a query anywhere in a row's texts, ignoring case", () => {
    expect(matchesQuery(["Large box 09", "m5.4xlarge"], "LARGE m5")).toBe(true);
    expect(matchesQuery(["Large box 09", null], "small")).toBe(false);
    expect(matchesQuery(["anything"], "   ")).toBe(true);
  });
});
