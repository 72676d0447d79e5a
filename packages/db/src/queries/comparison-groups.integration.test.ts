import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../testing";
import { getComparisonView } from "./comparison";

// A repeated run stands for its group on the compare page: the table shows the group's mean, and
// the "Over time" charts must plot the same thing, not the group's first run.

let t: TestDatabase;
let orgId: string;
let projectId: string;
let runNumber = 0;

beforeAll(async () => {
  t = await createTestDatabase();
  const org = await t.db.organization.create({ data: { name: "Acme", slug: "acme" } });
  orgId = org.id;
  projectId = (await t.db.project.create({ data: { orgId, name: "Checkout", slug: "checkout" } })).id;
});

afterAll(async () => {
  await t?.drop();
});

/** A succeeded run whose p50 is `level` throughout its three seconds. */
async function run(level: number, group?: { id: string; index: number }) {
  runNumber += 1;
  const start = new Date(Date.UTC(2026, 10, 1));
  const created = await t.db.run.create({
    data: {
      orgId,
      projectId,
      number: runNumber,
      status: "succeeded",
      startedAt: start,
      ...(group ? { groupId: group.id, groupIndex: group.index } : {}),
    },
  });
  await t.db.runResult.create({ data: { runId: created.id, metrics: { latency_p50: level } } });
  await t.db.series.create({
    data: { runId: created.id, metric: "latency_p50", start, intervalMs: 1000, values: [level, level, level] },
  });
  return created.id;
}

describe("comparison of repetition groups", () => {
  it("charts a repeated run's group mean, the figure its table cell shows", async () => {
    const single = await run(15);
    const first = await run(10, { id: "g1", index: 0 });
    await run(20, { id: "g1", index: 1 });
    await run(30, { id: "g1", index: 2 });

    const view = await getComparisonView(t.db, orgId, { runIds: [single, first], baselineRunId: single });
    const row = view.table.find((r) => r.key === "latency_p50")!;
    expect(row.cells[1]).toMatchObject({ value: 20, repetitions: 3 });
    const chart = view.charts.latency_p50!;
    expect(chart).toHaveLength(3);
    for (const point of chart) {
      // The group's mean (10, 20, 30 → 20), not its first run's 10; the single run as it is.
      expect(point[first]).toBe(20);
      expect(point[single]).toBe(15);
      // Only the compared runs have lines.
      expect(Object.keys(point).sort()).toEqual([first, single, "t"].sort());
    }
  });
});
