import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSavedComparison } from "../queries/comparison";
import { getRunView } from "../queries/run-detail";
import { getSweepView } from "../queries/sweep";
import { createTestDatabase, type TestDatabase } from "../testing";
import { DEMO_ORG_SLUG, PUBLISHED_SOURCE, seedPublishedDemo } from "./index";
import { checkSeedTable, PUBLISHED_RUNS, PUBLISHED_TABLES } from "./published";
import { BIFROST_OVERHEAD_STAGES } from "./published/bifrost";

let t: TestDatabase;
let orgId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  // An account that exists before the demo is seeded (it reads the demo without joining it).
  await t.db.user.create({ data: { email: "early@example.com" } });
  orgId = (await seedPublishedDemo(t.db)).orgId;
});
afterAll(async () => {
  await t?.drop();
});

describe("seedPublishedDemo", () => {
  it("creates the demo organization with the published runs as imported runs", async () => {
    const org = await t.db.organization.findUniqueOrThrow({ where: { slug: DEMO_ORG_SLUG } });
    expect(org).toMatchObject({ name: "Published benchmarks", demo: true });
    const runs = await t.db.run.findMany({ where: { orgId }, select: { source: true, status: true } });
    expect(runs).toHaveLength(PUBLISHED_RUNS.length);
    expect(new Set(runs.map((r) => `${r.source}/${r.status}`))).toEqual(new Set([`${PUBLISHED_SOURCE}/succeeded`]));
    // Accounts read the demo as public data: the seed makes nobody a member of it.
    expect(await t.db.membership.count({ where: { orgId } })).toBe(0);
  });

  it("is idempotent: a second seed keeps every id and adds nothing", async () => {
    const before = await snapshot();
    await seedPublishedDemo(t.db);
    expect(await snapshot()).toEqual(before);
  });

  it("judges imported runs against the project's targets, on derived metrics too", async () => {
    const project = await t.db.project.findFirstOrThrow({ where: { orgId, slug: "chat-service" } });
    const verdicts = async (n: number) =>
      (await t.db.runResult.findFirstOrThrow({ where: { run: { projectId: project.id, number: n } } }))
        .thresholdResults as {
        metric: string;
        passed: boolean;
      }[];
    expect((await verdicts(8)).every((v) => v.passed)).toBe(true);
    expect((await verdicts(10)).find((v) => v.metric === "queue_depth_peak")?.passed).toBe(false);
    expect((await verdicts(1)).find((v) => v.metric === "failed_connections")?.passed).toBe(false);
    const status = async (n: number, metric: string) =>
      ((await verdicts(n)) as { metric: string; status?: string }[]).find((v) => v.metric === metric)?.status;
    expect(await status(6, "queue_depth_peak")).toBe("not_measured");
    expect(await status(1, "message_loss")).toBe("fail");
    expect(await status(3, "message_loss")).toBe("fail");
  });

  it("stores one saved comparison or sweep per published table, reproducing the checks of the data module", async () => {
    for (const table of PUBLISHED_TABLES) {
      const expected = checkSeedTable(table).map(
        (c) => `${c.figure.label}: ${c.figure.text} → ${c.computedText} ${c.status}`,
      );
      let checks: { figure: { label: string; text: string }; computedText: string; status: string }[];
      if (table.kind === "comparison") {
        const saved = await t.db.comparison.findFirstOrThrow({ where: { orgId, title: table.title } });
        checks = (await getSavedComparison(t.db, orgId, saved.id))!.view.published!.checks;
      } else {
        const saved = await t.db.sweep.findFirstOrThrow({ where: { orgId, name: table.title } });
        checks = (await getSweepView(t.db, orgId, saved.id))!.published!.checks;
      }
      expect(
        checks.map((c) => `${c.figure.label}: ${c.figure.text} → ${c.computedText} ${c.status}`),
        table.key,
      ).toEqual(expected);
    }
  });

  it("computes the comparison deltas as (b − a) / a against the saved baseline", async () => {
    const saved = await t.db.comparison.findFirstOrThrow({
      where: { orgId, title: { startsWith: "t3.xlarge against" } },
    });
    const { view } = (await getSavedComparison(t.db, orgId, saved.id))!;
    const row = view.table.find((r) => r.key === "latency_mean")!;
    expect(row.cells[0]).toMatchObject({ value: 2120, delta: null });
    expect(row.cells[1]!.delta).toBeCloseTo((1610 - 2120) / 2120, 12);
    expect(row.cells[1]!.verdict).toBe("better");
    expect(view.table.find((r) => r.key === "gateway_overhead")!.cells[1]!.value).toBeCloseTo(0.013899, 6);
    expect(view.configDiff.map((d) => d.path)).toEqual(
      expect.arrayContaining(["config.instanceType", "config.knobs.buffer_size", "config.knobs.initial_pool_size"]),
    );
  });

  it("builds the pool sweep with Run 8 included, Run 18 kept but excluded, and 16 as the best value", async () => {
    const saved = await t.db.sweep.findFirstOrThrow({ where: { orgId, name: { startsWith: "Pool sweep" } } });
    const view = (await getSweepView(t.db, orgId, saved.id))!;
    expect(view.rows.map((r) => [r.value, r.label])).toEqual([
      [16, "#17"],
      [32, "#16"],
      [64, "#12"],
      [128, "#13"],
      [256, "#14"],
      [512, "#15"],
      [1000, "#8"],
      [1024, "#18"],
    ]);
    expect(view.rows.find((r) => r.label === "#8")?.included).toBe(true);
    // Run 18 printed no queue depth: its verdict is "not measured", not a fail (✗).
    expect(view.rows.find((r) => r.label === "#18")).toMatchObject({
      excluded: true,
      best: false,
      meetsTargets: null,
      thresholdsOutcome: "not_measured",
      failedTargets: [],
      notMeasuredTargets: ["Peak queue depth < 1,000"],
      passedOver: "excluded from the sweep",
    });
    expect(view.rows.find((r) => r.best)?.value).toBe(16);
    expect(view.thresholds.map((th) => th.metric)).toEqual(["queue_depth_peak", "message_loss", "failed_connections"]);
  });

  it("shows a run's own printed figures on its run page, derived ones included", async () => {
    const run = await t.db.run.findFirstOrThrow({ where: { orgId, project: { slug: "llm-gateway" }, number: 2 } });
    const view = (await getRunView(t.db, orgId, run.id))!;
    const overhead = view.published!.checks.find(
      (c) => c.figure.kind === "value" && c.figure.metric === "gateway_overhead",
    );
    expect(overhead).toMatchObject({ status: "mismatch", computedText: "13.9 µs" });
    expect(view.result!.metrics.mem_utilization).toBeCloseTo(20.39, 2);
    expect(view.overheadStages).toHaveLength(7);
  });

  it("declares Bifrost's overhead stages on its target, so they are ticked without a scenario list", async () => {
    const runs = await t.db.run.findMany({ where: { orgId }, select: { targetSnapshot: true, project: true } });
    const gateway = runs.filter((r) => r.project.slug === "llm-gateway");
    expect(gateway.length).toBeGreaterThan(0);
    for (const r of gateway) expect(r.targetSnapshot).toMatchObject({ overheadStages: BIFROST_OVERHEAD_STAGES });
    for (const r of runs.filter((r) => r.project.slug !== "llm-gateway"))
      expect(r.targetSnapshot).not.toHaveProperty("overheadStages");
    // Without the scenario's own list, the run page ticks what the target declared.
    const run = await t.db.run.findFirstOrThrow({ where: { orgId, project: { slug: "llm-gateway" }, number: 2 } });
    const { overheadStages: _s, ...scenario } = run.scenarioSnapshot as Record<string, unknown>;
    await t.db.run.update({ where: { id: run.id }, data: { scenarioSnapshot: scenario as never } });
    expect((await getRunView(t.db, orgId, run.id))!.overheadStages).toEqual(BIFROST_OVERHEAD_STAGES);
    await t.db.run.update({ where: { id: run.id }, data: { scenarioSnapshot: run.scenarioSnapshot as never } });
  });
});

async function snapshot() {
  const [runs, comparisons, sweeps, configs, projects] = await Promise.all([
    t.db.run.findMany({ where: { orgId }, select: { id: true, number: true, sweepId: true }, orderBy: { id: "asc" } }),
    t.db.comparison.findMany({ where: { orgId }, select: { id: true, runIds: true }, orderBy: { id: "asc" } }),
    t.db.sweep.findMany({ where: { orgId }, select: { id: true, includedRunIds: true }, orderBy: { id: "asc" } }),
    t.db.instanceConfig.count({ where: { orgId } }),
    t.db.project.findMany({ where: { orgId }, select: { id: true, runCounter: true }, orderBy: { id: "asc" } }),
  ]);
  return { runs, comparisons, sweeps, configs, projects };
}
