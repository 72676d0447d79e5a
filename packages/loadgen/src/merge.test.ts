import { decodeHistogram, summarizeHistogram } from "@benchboard/core";
import { describe, expect, it } from "vitest";
import { mergeResults } from "./merge";
import { Recorder } from "./recorder";
import type { EngineResult } from "./types";

/** A deterministic stream of samples: (time offset ms, latency µs, status, server-timing). */
function samples(count: number, seed: number) {
  let x = seed;
  const rnd = () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x / 2 ** 31;
  };
  return Array.from({ length: count }, () => ({
    atMs: rnd() * 4_800,
    micros: Math.round(1_000 + rnd() ** 3 * 400_000),
    status: rnd() < 0.05 ? 500 : 200,
    stageMs: Math.round(rnd() * 5_000) / 1000,
  })).sort((a, b) => a.atMs - b.atMs);
}

function record(rec: Recorder, start: number, list: ReturnType<typeof samples>, fromMs = 0) {
  for (const s of list) {
    const now = start + s.atMs;
    if (s.atMs < fromMs) continue;
    rec.add("requests");
    rec.count("rps", now);
    rec.status(s.status);
    rec.recordLatency(now, s.micros);
    // The open model's latency from the send: the generator was up to 0.5 ms late.
    rec.recordExtra("from_send", s.micros - (s.micros % 500));
    rec.serverTiming(`queue;dur=${s.stageMs}`);
    rec.add("res_bytes_total", 100);
    rec.add("res_bytes_count");
    if (s.status >= 400) {
      rec.add("failed");
      rec.count("errors", now);
      rec.error("status", "HTTP 500", 500);
    } else rec.add("success");
  }
}

function finish(rec: Recorder, end: number): EngineResult {
  return rec.finish(end, { startedAt: new Date(0), endedAt: new Date(1), canceled: false, runtimeMs: 5_000 });
}

describe("mergeResults", () => {
  it("gives exactly what one recorder of all samples gives", () => {
    const start = performance.now();
    const shards = [samples(3_000, 1), samples(2_000, 2), samples(4_000, 3)];
    const single = new Recorder(["rps", "errors"], start);
    for (const list of shards) record(single, start, list);
    const singleResult = finish(single, start + 5_000);

    // The shards start at different moments, like workers picking up jobs.
    const shardResults = shards.map((list, i) => {
      const offset = [0, 350, 1_200][i]!;
      const rec = new Recorder(["rps", "errors"], start + offset);
      record(rec, start, list, offset);
      return { rec, offset, result: finish(rec, start + 5_000) };
    });
    // Samples before a shard's start were dropped above; record them in the single run's
    // counterpart too so both see the same samples.
    const kept = shards.flatMap((list, i) => list.filter((s) => s.atMs >= shardResults[i]!.offset));
    const reference = new Recorder(["rps", "errors"], start);
    record(
      reference,
      start,
      kept.sort((a, b) => a.atMs - b.atMs),
    );
    const expected = finish(reference, start + 5_000);

    const merged = mergeResults(shardResults.map((s) => s.result));
    for (const key of [
      "latency_min",
      "latency_p50",
      "latency_p90",
      "latency_p99",
      "latency_p999",
      "latency_max",
      "latency_mean",
      "latency_from_send_p50",
      "latency_from_send_p99",
    ]) {
      expect(expected.metrics[key], key).toBeGreaterThan(0);
      expect(merged.metrics[key], key).toBe(expected.metrics[key]);
    }
    expect(merged.metrics.requests).toBe(kept.length);
    expect(merged.metrics.failed).toBe(expected.metrics.failed);
    expect(merged.metrics.success_rate).toBe(expected.metrics.success_rate);
    expect(merged.metrics.res_bytes_avg).toBe(100);
    expect(merged.statusCounts).toEqual(expected.statusCounts);
    expect(merged.errors).toEqual(expected.errors);
    expect(merged.stages).toEqual(expected.stages);
    expect(merged.series.rps).toEqual(expected.series.rps);
    expect(merged.series.errors).toEqual(expected.series.errors);
    expect(merged.series.latency_p50).toEqual(expected.series.latency_p50);
    expect(merged.series.latency_p99).toEqual(expected.series.latency_p99);

    // And the merged histogram holds every sample.
    const h = decodeHistogram(merged.histogram!);
    expect(h.totalCount).toBe(kept.length);
    expect(summarizeHistogram(h)?.latency_p99).toBe(expected.metrics.latency_p99);
    // Sanity: the single recorder with every sample differs, so the comparison above is not vacuous.
    expect(singleResult.metrics.requests).toBeGreaterThan(kept.length);
  });

  it("adds rates and keeps validity and cancellation", () => {
    const a = finish(new Recorder(), performance.now());
    const b = finish(new Recorder(), performance.now());
    a.metrics.rps = 100;
    (a.extra as { counters: Record<string, number> }).counters.rps = 100;
    (b.extra as { counters: Record<string, number> }).counters.rps = 250;
    b.valid = false;
    b.invalidReasons = ["fell behind"];
    b.canceled = true;
    const merged = mergeResults([a, b]);
    expect(merged.metrics.rps).toBe(350);
    expect(merged.valid).toBe(false);
    expect(merged.invalidReasons).toEqual(["shard 2: fell behind"]);
    expect(merged.canceled).toBe(true);
  });

  it("reads the whole run saturated, still valid, when a shard's target was the limit", () => {
    const a = finish(new Recorder(), performance.now());
    const b = finish(new Recorder(), performance.now());
    b.saturationReasons = ["the target did not keep up"];
    const merged = mergeResults([a, b]);
    expect(merged.valid).toBe(true);
    expect(merged.saturationReasons).toEqual(["shard 2: the target did not keep up"]);
    // A shard stored before saturation was recorded has none, and merges all the same.
    const older = { ...a, saturationReasons: undefined as unknown as string[] };
    expect(mergeResults([older, b]).saturationReasons).toEqual(["shard 2: the target did not keep up"]);
  });

  it("refuses an empty list", () => {
    expect(() => mergeResults([])).toThrow();
  });
});

describe("mergeResults of shards that stalled", () => {
  it("adds what each shard's stalls dropped and lists the stalls with their shard", () => {
    const start = performance.now();
    const stalled = (dropped: number | null, atS: number) => {
      const rec = new Recorder(["rps", "errors"], start);
      record(rec, start, samples(100, 7));
      const result = finish(rec, start + 5_000);
      if (dropped === null) return result;
      result.metrics.stall_dropped = dropped;
      result.extra = { ...result.extra, schedule: { stalls: [{ atS, gapMs: 400, dropped, confirmMs: 3 }] } };
      return result;
    };
    const merged = mergeResults([stalled(40, 1.5), stalled(null, 0), stalled(25, 2)]);
    expect(merged.metrics.stall_dropped).toBe(65);
    expect((merged.extra as { schedule: { stalls: unknown[] } }).schedule.stalls).toEqual([
      { atS: 1.5, gapMs: 400, dropped: 40, confirmMs: 3, shard: 0 },
      { atS: 2, gapMs: 400, dropped: 25, confirmMs: 3, shard: 2 },
    ]);
    // Shards that never stalled say nothing of it.
    const calm = mergeResults([stalled(null, 0), stalled(null, 0)]);
    expect(calm.metrics.stall_dropped).toBeUndefined();
    expect((calm.extra as { schedule?: unknown }).schedule).toBeUndefined();
  });
});
