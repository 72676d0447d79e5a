import { describe, expect, it } from "vitest";
import { filtersToSearch, listInput, readFilters } from "./run-filters";

describe("run list filters in the URL", () => {
  it("round-trips through the query string and leaves the default sort out", () => {
    const filters = { projectId: "p1", tag: "pool-10k", q: "chat users", sort: "newest", status: "succeeded" };
    const search = filtersToSearch(filters);
    expect(search).toBe("?projectId=p1&status=succeeded&tag=pool-10k&q=chat+users");
    expect(readFilters(new URLSearchParams(search))).toEqual({ ...filters, sort: undefined });
  });

  it("ignores unknown keys and values the procedure would refuse", () => {
    const filters = readFilters(new URLSearchParams("status=exploded&sort=fastest&utm=x&configId=c1"));
    expect(filters).toEqual({ status: "exploded", sort: "fastest", configId: "c1" });
    const input = listInput(filters, 50);
    expect(input.status).toBeUndefined();
    expect(input.sort).toBe("newest");
    expect(input.instanceConfigId).toBe("c1");
  });

  it("turns a date range into whole local days, the end day included", () => {
    const input = listInput({ from: "2026-11-01", to: "2026-11-03" }, 50);
    expect(input.from).toEqual(new Date(2026, 10, 1));
    expect(input.to).toEqual(new Date(2026, 10, 4));
    expect(listInput({ from: "yesterday" }, 50).from).toBeUndefined();
  });
});
