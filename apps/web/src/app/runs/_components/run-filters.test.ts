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

  it("sorts and filters by any metric from the URL, ignoring bounds that are not numbers", () => {
    const filters = readFilters(
      new URLSearchParams("sort=metric&metric=stage.queue_wait&order=desc&mkey=latency_p99&mmin=&mmax=20"),
    );
    expect(listInput(filters, 50)).toMatchObject({
      sort: "metric",
      sortMetric: "stage.queue_wait",
      order: "desc",
      metrics: [{ key: "latency_p99", max: 20 }],
    });
    expect(listInput({ sort: "metric" }, 50).sort).toBe("newest");
    expect(listInput({ mkey: "rps", mmin: "fast" }, 50).metrics).toBeUndefined();
  });
});
