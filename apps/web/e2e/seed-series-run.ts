import { createHistogram, encodeHistogram, recordMicros, summarizeHistogram } from "@benchboard/core";
import type { Db } from "@benchboard/db";

/**
 * A finished 30-minute run as a launched run leaves it: summary figures, a latency histogram and
 * per-second series of rate, latency percentiles, errors and the target's memory and CPU — the
 * charts a run page draws, from 1,800 points per line.
 */
export async function seedRunWithSeries(db: Db, orgId: string, projectId: string): Promise<string> {
  const seconds = 1_800;
  const endedAt = new Date();
  const startedAt = new Date(endedAt.getTime() - seconds * 1000);
  const last = await db.run.findFirst({ where: { projectId }, orderBy: { number: "desc" }, select: { number: true } });
  const run = await db.run.create({
    data: {
      orgId,
      projectId,
      number: (last?.number ?? 0) + 1,
      status: "succeeded",
      scenarioName: "steady 2k req/s",
      createdAt: startedAt,
      startedAt,
      endedAt,
    },
  });
  const histogram = createHistogram();
  // A deterministic spread around 4 ms with a tail, so every run of the benchmark draws the same page.
  for (let i = 0; i < 20_000; i++) recordMicros(histogram, 2_000 + ((i * 7919) % 4_000) + (i % 97 === 0 ? 40_000 : 0));
  const requests = seconds * 2_000;
  await db.runResult.create({
    data: {
      runId: run.id,
      metrics: {
        ...summarizeHistogram(histogram),
        requests,
        success: requests - 120,
        failed: 120,
        success_rate: ((requests - 120) / requests) * 100,
        rps: 2_000,
        runtime_ms: seconds * 1000,
      },
      histogram: encodeHistogram(histogram),
      statusCounts: { "200": requests - 120, "503": 120 },
    },
  });
  const wave = (i: number, base: number, swing: number) => base + swing * Math.sin(i / 60) + ((i * 31) % 7);
  const series: Record<string, (i: number) => number> = {
    rps: (i) => wave(i, 2_000, 40),
    latency_p50: (i) => wave(i, 4, 0.5),
    latency_p90: (i) => wave(i, 6, 1),
    latency_p99: (i) => wave(i, 12, 4),
    errors: (i) => (i % 300 === 0 ? 8 : 0),
    mem_bytes: (i) => 180 * 1024 * 1024 + i * 4096,
    cpu_cores: (i) => 1.2 + 0.2 * Math.sin(i / 90),
  };
  for (const [metric, value] of Object.entries(series)) {
    await db.series.create({
      data: {
        runId: run.id,
        metric,
        start: startedAt,
        intervalMs: 1000,
        values: Array.from({ length: seconds }, (_, i) => value(i)),
      },
    });
  }
  return run.id;
}
