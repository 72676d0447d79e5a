import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, readRunDetail, type TestDatabase } from "../testing";
import { applyRetention, retentionPreview, setRunPinned } from "./retention";

// Retention against real PostgreSQL: old runs lose per-second detail (series to 10 s, interval
// histograms dropped) but keep metrics and the merged histogram; runs that a comparison, its
// baseline, a live share link or a pin refers to, published runs and recent runs keep everything.
let t: TestDatabase;
const ids: Record<string, string> = {};
const day = 86_400_000;
const now = new Date("2026-11-26T08:00:00Z");
const perSecond = Array.from({ length: 60 }, (_, i) => (i === 25 ? null : 100 + i));
const p99 = Array.from({ length: 60 }, (_, i) => (i === 33 ? 900 : 10 + (i % 10)));

beforeAll(async () => {
  t = await createTestDatabase();
  const db = t.db;
  const org = await db.organization.create({ data: { name: "Org", slug: "org" } });
  const demo = await db.organization.create({ data: { name: "Published", slug: "published", demo: true } });
  const project = await db.project.create({ data: { orgId: org.id, name: "gw", slug: "gw" } });
  const demoProject = await db.project.create({ data: { orgId: demo.id, name: "gw", slug: "gw" } });
  const names = ["old", "compared", "baseline", "shared", "pinned", "published", "recent", "revokedShare"];
  let n = 0;
  for (const name of names) {
    const inDemo = name === "published";
    const endedAt = new Date(now.getTime() - (name === "recent" ? 5 : 40) * day);
    const run = await db.run.create({
      data: {
        orgId: inDemo ? demo.id : org.id,
        projectId: inDemo ? demoProject.id : project.id,
        number: ++n,
        status: "succeeded",
        startedAt: endedAt,
        endedAt,
        shardCount: 1,
      },
    });
    ids[name] = run.id;
    await db.runResult.create({
      data: { runId: run.id, metrics: { rps: 130, latency_p99: 19 }, histogram: "HISTmerged" },
    });
    await db.series.createMany({
      data: [
        { runId: run.id, metric: "rps", start: endedAt, intervalMs: 1000, values: perSecond },
        { runId: run.id, metric: "latency_p99", start: endedAt, intervalMs: 1000, values: p99 },
      ],
    });
    await db.runShard.create({
      data: {
        runId: run.id,
        index: 0,
        status: "succeeded",
        result: { histogram: "HISTshard", intervalHistograms: { intervalMs: 1000, histograms: ["a", "b", null] } },
      },
    });
  }
  await db.comparison.create({
    data: { orgId: org.id, title: "c", runIds: [ids.compared!, ids.recent!], baselineRunId: ids.baseline! },
  });
  await db.shareLink.create({ data: { orgId: org.id, tokenHash: "h1", runId: ids.shared! } });
  await db.shareLink.create({ data: { orgId: org.id, tokenHash: "h2", runId: ids.revokedShare!, revokedAt: now } });
  expect(await setRunPinned(db, org.id, ids.pinned!, true)).toBe(true);
  // Pinning is per organization: another organization's id changes nothing.
  expect(await setRunPinned(db, demo.id, ids.old!, true)).toBe(false);
});

afterAll(async () => {
  await t?.drop();
});

const detail = (name: string) => readRunDetail(t.db, ids[name]!);

describe("detail retention", () => {
  it("previews the runs it would trim and the bytes it would free, changing nothing", async () => {
    const preview = await retentionPreview(t.db, 30, now);
    expect(preview.runs).toBe(2);
    expect(preview.bytes).toBeGreaterThan(500);
    expect((await detail("old")).series[0]!.intervalMs).toBe(1000);
  });

  it("downsamples old runs to 10 s and drops interval histograms, keeping metrics and the merged histogram", async () => {
    expect(await applyRetention(t.db, 30, now)).toBe(2);
    for (const name of ["old", "revokedShare"]) {
      const { series, shard, result } = await detail(name);
      const [latency, rps] = series;
      expect(rps!.intervalMs).toBe(10_000);
      // Means of each 10 s (the missing second left out), and each 10 s's worst p99.
      expect(rps!.values).toEqual([104.5, 114.5, 124.444444, 134.5, 144.5, 154.5]);
      expect(latency!.intervalMs).toBe(10_000);
      expect(latency!.values).toEqual([19, 19, 19, 900, 19, 19]);
      expect(shard.result).toEqual({ histogram: "HISTshard" });
      expect(result.metrics).toEqual({ rps: 130, latency_p99: 19 });
      expect(result.histogram).toBe("HISTmerged");
      expect(result.detailTrimmedAt).toEqual(now);
    }
  });

  it.each([
    "compared",
    "baseline",
    "shared",
    "pinned",
    "published",
    "recent",
  ])("never touches the %s run", async (name) => {
    const { series, shard, result } = await detail(name);
    expect(series.map((s) => [s.intervalMs, s.values])).toEqual([
      [1000, p99],
      [1000, perSecond],
    ]);
    expect(shard.result).toMatchObject({ intervalHistograms: { histograms: ["a", "b", null] } });
    expect(result.detailTrimmedAt).toBeNull();
  });

  it("is done once: a second pass trims nothing and the preview is empty", async () => {
    expect(await applyRetention(t.db, 30, now)).toBe(0);
    expect(await retentionPreview(t.db, 30, now)).toMatchObject({ runs: 0, bytes: 0 });
  });
});
