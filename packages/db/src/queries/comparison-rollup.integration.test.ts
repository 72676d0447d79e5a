import { type ChartPoint, decodeSeriesRollup, keepsPeak, overlaySeries, rollupSeries } from "@benchboard/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations } from "../migrate";
import { createDatabaseBeforeMigration, createTestDatabase, type TestDatabase } from "../testing";
import { COMPARE_CHART_METRICS, getComparisonView } from "./comparison";
import { applyRetention, retentionPreview } from "./retention";

// The comparison charts long series from their stored reduced copies. Whatever the lengths and
// intervals of the compared runs, the charts must be the ones the full samples give (or, where a
// copy's buckets do not divide the chart's, within one point of them), and a one-second spike
// must still show.

let t: TestDatabase;
let orgId: string;
let projectId: string;
let runNumber = 0;
const samples = new Map<string, { intervalMs: number; values: (number | null)[] }>();

/** A small seeded generator, so the fixture is the same on every run. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Noisy per-interval values with gaps, and one-sample spikes (up) and dips (down) at the given places. */
function line(length: number, seed: number, level: number, spikes: Record<number, number> = {}) {
  const rand = random(seed);
  return Array.from({ length }, (_, i) => {
    if (spikes[i] !== undefined) return spikes[i]!;
    if (i % 97 === 13) return null;
    return Math.round((level + Math.sin(i / 50) * level * 0.1 + rand() * level * 0.05) * 1000) / 1000;
  });
}

async function runWithSeries(intervalMs: number, values: (metric: string) => (number | null)[]): Promise<string> {
  runNumber += 1;
  const run = await t.db.run.create({
    data: { orgId, projectId, number: runNumber, status: "succeeded", startedAt: new Date(Date.UTC(2026, 10, 1)) },
  });
  await t.db.runResult.create({ data: { runId: run.id, metrics: { rps: 1000 + runNumber } } });
  for (const metric of COMPARE_CHART_METRICS) {
    const v = values(metric);
    samples.set(`${run.id}|${metric}`, { intervalMs, values: v });
    await t.db.series.create({
      data: { runId: run.id, metric, start: new Date(Date.UTC(2026, 10, 1)), intervalMs, values: v },
    });
  }
  return run.id;
}

/** The charts as the full samples give them (what the comparison read before). */
function fullCharts(runIds: string[]) {
  const out: Record<string, ChartPoint[]> = {};
  for (const metric of COMPARE_CHART_METRICS) {
    const points = overlaySeries(
      metric,
      runIds.map((runId) => {
        const s = samples.get(`${runId}|${metric}`);
        return { runId, series: s ? { start: 0, intervalMs: s.intervalMs, values: s.values } : null };
      }),
    );
    if (points.length) out[metric] = points;
  }
  return out;
}

/**
 * The run's line in a chart is the one its samples give: peaks (the maximum of each point) exactly,
 * means up to rounding (a point merged from several stored points sums their means by count).
 */
function expectSameLine(metric: string, got: ChartPoint[], want: ChartPoint[], runId: string) {
  expect(got.map((p) => p.t)).toEqual(want.map((p) => p.t));
  const a = got.map((p) => p[runId] ?? null);
  const b = want.map((p) => p[runId] ?? null);
  if (keepsPeak(metric)) {
    expect(a, metric).toEqual(b);
    return;
  }
  expect(a.map((v) => v === null)).toEqual(b.map((v) => v === null));
  a.forEach((v, i) => {
    if (v !== null) expect(Math.abs(v - b[i]!), `${metric} point ${i}`).toBeLessThanOrEqual(Math.abs(b[i]!) * 1e-12);
  });
}

/**
 * The run's line where its copy's buckets do not divide the chart's: every point lies within the
 * samples of its own and the next point's span (`perPoint` samples each), and the chart's peak is
 * the samples' peak.
 */
function expectWithinOnePoint(metric: string, got: ChartPoint[], want: ChartPoint[], runId: string, perPoint: number) {
  const values = samples.get(`${runId}|${metric}`)!.values;
  got.forEach((p, b) => {
    const v = p[runId];
    if (v === null || v === undefined) return;
    const window = values.slice(b * perPoint, (b + 2) * perPoint).filter((x): x is number => x !== null);
    expect(v).toBeGreaterThanOrEqual(Math.min(...window) - 1e-9);
    expect(v).toBeLessThanOrEqual(Math.max(...window) + 1e-9);
  });
  if (keepsPeak(metric)) expect(peakOf(got, runId)).toBe(peakOf(want, runId));
}

const peakOf = (points: ChartPoint[], runId: string) =>
  Math.max(...points.map((p) => p[runId] ?? Number.NEGATIVE_INFINITY));

beforeAll(async () => {
  t = await createTestDatabase();
  orgId = (await t.db.organization.create({ data: { name: "Org", slug: "org" } })).id;
  projectId = (await t.db.project.create({ data: { orgId, name: "gw", slug: "gw" } })).id;
});

afterAll(async () => {
  await t?.drop();
});

describe("comparison of long runs from the stored reduced copies", () => {
  it("charts one-hour runs exactly as their full samples do, spikes and dips included", async () => {
    const ids: string[] = [];
    for (let r = 0; r < 3; r++) {
      ids.push(
        await runWithSeries(1000, (metric) =>
          metric === "latency_p99"
            ? line(3_600, 10 + r, 40, { [1_234 + r]: 900 })
            : metric === "rps"
              ? line(3_600, 20 + r, 5_000, { [2_000 + r]: 0 })
              : line(3_600, 30 + r + metric.length, 100),
        ),
      );
    }
    const stored = await t.db.series.findMany({ where: { runId: { in: ids } }, select: { rollup: true } });
    expect(stored).toHaveLength(3 * COMPARE_CHART_METRICS.length);
    for (const s of stored) expect(s.rollup?.byteLength).toBe(16 + 600 * 32);

    const view = await getComparisonView(t.db, orgId, { runIds: ids });
    const expected = fullCharts(ids);
    expect(Object.keys(view.charts).sort()).toEqual(Object.keys(expected).sort());
    for (const metric of Object.keys(expected)) expect(view.charts[metric], metric).toEqual(expected[metric]);

    // One second at 900 ms among ~40 ms: the p99 chart's point holding second 1,234 shows it.
    const p99 = view.charts.latency_p99!;
    expect(p99).toHaveLength(600);
    expect(p99[Math.floor(1_234 / 6)]![ids[0]!]).toBe(900);
    expect(peakOf(p99, ids[0]!)).toBe(900);
    // The rps dip is a mean over its six seconds: lower than both neighbours.
    const dip = Math.floor(2_000 / 6);
    expect(view.charts.rps![dip]![ids[0]!]!).toBeLessThan(view.charts.rps![dip - 1]![ids[0]!]!);
  });

  it("mixes lengths and intervals: exact where the copy divides the chart, within one point elsewhere", async () => {
    // A 2-hour run at 500 ms sets the axis (14,400 intervals, 24 a point). The one-hour run at
    // 1 s (copy of 6 s = 12 intervals) divides it; a 2,000-second run (copy of 4 s = 8 intervals)
    // does not; a 500-point run has no copy at all.
    const long = await runWithSeries(500, (m) => line(14_400, 1 + m.length, 50, { 9000: 700 }));
    const hour = await runWithSeries(1000, (m) => line(3_600, 2 + m.length, 60, { 100: 800 }));
    const odd = await runWithSeries(1000, (m) => line(2_000, 3 + m.length, 70, { 1001: 950 }));
    const short = await runWithSeries(1000, (m) => line(500, 4 + m.length, 80));
    const ids = [long, hour, odd, short];
    const view = await getComparisonView(t.db, orgId, { runIds: ids });
    const expected = fullCharts(ids);
    for (const metric of COMPARE_CHART_METRICS) {
      const got = view.charts[metric]!;
      const want = expected[metric]!;
      for (const id of [long, hour, short]) expectSameLine(metric, got, want, id);
      // 24 half-second intervals a point are 12 one-second samples.
      expectWithinOnePoint(metric, got, want, odd, 12);
    }
    // Spikes of one sample in each long run still show.
    expect(peakOf(view.charts.latency_p99!, long)).toBe(700);
    expect(peakOf(view.charts.latency_p99!, hour)).toBe(800);
    expect(peakOf(view.charts.latency_p99!, odd)).toBe(950);
  });

  it("reads the samples of a copy coarser than the chart (a short run beside a finer, longer one)", async () => {
    // Axis: 1,200 points at 500 ms beside 1,201 seconds = 2,402 intervals, 5 a point; the
    // 1,201-second run's copy is 3 s = 6 intervals, too coarse, so its samples are charted.
    const fine = await runWithSeries(500, (m) => line(1_200, 5 + m.length, 30));
    const coarse = await runWithSeries(1000, (m) => line(1_201, 6 + m.length, 35, { 600: 990 }));
    const view = await getComparisonView(t.db, orgId, { runIds: [fine, coarse] });
    const expected = fullCharts([fine, coarse]);
    for (const metric of COMPARE_CHART_METRICS) {
      // Charted from its samples: exactly what they give.
      expect(view.charts[metric]!.map((p) => p[coarse])).toEqual(expected[metric]!.map((p) => p[coarse]));
      // The finer run's copy (2 samples) does not divide the 5 samples of a point: within one point.
      expectWithinOnePoint(metric, view.charts[metric]!, expected[metric]!, fine, 5);
    }
    expect(peakOf(view.charts.latency_p99!, coarse)).toBe(990);
  });
});

describe("the stored reduced copy", () => {
  it("is what the samples give, follows every change of the samples, and skips what is not a number", async () => {
    const runId = await runWithSeries(1000, () => [1, 2]);
    const c = new pg.Client({ connectionString: t.url });
    await c.connect();
    try {
      const odd: unknown[] = Array.from({ length: 1_501 }, (_, i) => i * 0.25);
      odd[3] = null;
      odd[4] = "fast";
      odd[5] = { a: 1 };
      odd[7] = -12.5;
      const { rows } = await c.query(
        `INSERT INTO "Series" (id, "runId", metric, start, values) VALUES ('odd', $1, 'gauge.x', now(), $2::jsonb) RETURNING rollup`,
        [runId, JSON.stringify(odd).replace('"fast"', '"fast"').replace("[0,", "[1e400,")],
      );
      const expected = odd.map((v, i) => (i === 0 ? null : typeof v === "number" ? v : null));
      expect(decodeSeriesRollup(rows[0].rollup)).toEqual(rollupSeries(expected));
      // Shortened to 600 points (retention's downsampling does this): no copy left.
      await c.query(
        `UPDATE "Series" SET values = (SELECT jsonb_agg(x) FROM generate_series(1, 600) x) WHERE id = 'odd'`,
      );
      expect((await c.query(`SELECT rollup FROM "Series" WHERE id = 'odd'`)).rows[0].rollup).toBeNull();
      // Lengthened again: a fresh copy.
      await c.query(
        `UPDATE "Series" SET values = (SELECT jsonb_agg(x) FROM generate_series(1, 601) x) WHERE id = 'odd'`,
      );
      const again = (await c.query(`SELECT rollup FROM "Series" WHERE id = 'odd'`)).rows[0].rollup;
      expect(decodeSeriesRollup(again)).toEqual(rollupSeries(Array.from({ length: 601 }, (_, i) => i + 1)));
    } finally {
      await c.end();
    }
  });
});

describe("retention and the reduced copies", () => {
  it("counts a long series' copy in the bytes it would free, and downsampling drops the copy", async () => {
    const endedAt = new Date(Date.now() - 40 * 86_400_000);
    runNumber += 1;
    const run = await t.db.run.create({
      data: { orgId, projectId, number: runNumber, status: "succeeded", startedAt: endedAt, endedAt, shardCount: 1 },
    });
    await t.db.runResult.create({ data: { runId: run.id, metrics: { rps: 1 } } });
    const hour = line(3_600, 77, 40, { 1800: 999 });
    await t.db.series.create({ data: { runId: run.id, metric: "latency_p99", start: endedAt, values: hour } });
    const sizes = await t.db.$queryRaw<{ rollup: number; values: number }[]>`
      SELECT pg_column_size(rollup) AS rollup, pg_column_size("values") AS values FROM "Series" WHERE "runId" = ${run.id}`;
    const preview = await retentionPreview(t.db, 30);
    expect(preview.runs).toBe(1);
    expect(preview.bytes).toBe(sizes[0]!.rollup + sizes[0]!.values - Math.floor(sizes[0]!.values / 10));

    expect(await applyRetention(t.db, 30)).toBe(1);
    const [after] = await t.db.series.findMany({ where: { runId: run.id } });
    expect(after!.intervalMs).toBe(10_000);
    expect((after!.values as number[]).length).toBe(360);
    expect(Math.max(...(after!.values as number[]))).toBe(999);
    expect(after!.rollup).toBeNull();
  });
});

describe("the migration back-fills reduced copies of stored series", () => {
  let scratch: Awaited<ReturnType<typeof createDatabaseBeforeMigration>>;

  beforeAll(async () => {
    scratch = await createDatabaseBeforeMigration("_series_rollup");
  });

  afterAll(async () => {
    await scratch?.drop();
  });

  it("gives every long series its copy, leaves short ones without, and keeps the samples", async () => {
    const c = new pg.Client({ connectionString: scratch.url });
    await c.connect();
    try {
      const hour = line(3_600, 99, 45, { 42: 1_000 });
      await c.query(`
        INSERT INTO "Organization" (id, name, slug, "updatedAt") VALUES ('o1', 'One', 'one', now());
        INSERT INTO "Project" (id, "orgId", name, slug, "updatedAt") VALUES ('p1', 'o1', 'p', 'p', now());
        INSERT INTO "Run" (id, "orgId", "projectId", number, "updatedAt") VALUES ('r1', 'o1', 'p1', 1, now());`);
      await c.query(
        `INSERT INTO "Series" (id, "runId", metric, start, values) VALUES
          ('s1', 'r1', 'latency_p99', now(), $1::jsonb), ('s2', 'r1', 'rps', now(), '[1, 2, 3]'),
          ('s3', 'r1', 'mem_bytes', now(), '{"not": "an array"}')`,
        [JSON.stringify(hour)],
      );
      const { applied } = await applyMigrations(scratch.url);
      expect(applied.some((m) => m.endsWith("_series_rollup"))).toBe(true);
      const { rows } = await c.query(`SELECT id, rollup, values FROM "Series" ORDER BY id`);
      expect(rows.map((r) => r.id)).toEqual(["s1", "s2", "s3"]);
      expect(decodeSeriesRollup(rows[0].rollup)).toEqual(rollupSeries(hour));
      expect(decodeSeriesRollup(rows[0].rollup)?.max[7]).toBe(1_000);
      expect(rows[0].values).toEqual(hour);
      expect(rows[1].rollup).toBeNull();
      expect(rows[2].rollup).toBeNull();
    } finally {
      await c.end();
    }
  });
});
