import { describe, expect, it } from "vitest";
import { runReading } from "./run-state";
import { targetLimitSignals, withTargetSignals } from "./target-limits";

const s = (...values: (number | null)[]) => ({ values });

describe("targetLimitSignals", () => {
  it("names a RabbitMQ queue that grew over the run", () => {
    const reasons = targetLimitSignals({ "queue_depth.orders": s(3, 5, 40, 200, 500, 800, 950, 990) });
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^the target is the limit: its queue \(queue_depth\.orders\) grew from 3\.00 to 970 /);
    expect(reasons[0]).toMatch(/peak 990/);
  });

  it("reads a Prometheus gauge named like a queue, not other gauges", () => {
    const growing = s(0, 0, 10, 30, 60, 90, 120, 150);
    expect(targetLimitSignals({ "gauge.pending_requests": growing })).toHaveLength(1);
    expect(targetLimitSignals({ "gauge.open_files": growing, cpu_cores: growing, mem_bytes: growing })).toEqual([]);
  });

  it("leaves a steady or small queue alone, and too few readings", () => {
    expect(targetLimitSignals({ queue_depth: s(500, 510, 495, 505, 500, 498, 502, 500) })).toEqual([]);
    expect(targetLimitSignals({ queue_depth: s(0, 0, 1, 2, 3, 4, 5, 6) })).toEqual([]);
    expect(targetLimitSignals({ queue_depth: s(null, 1, null, 900) })).toEqual([]);
    // One odd reading is not a trend.
    expect(targetLimitSignals({ queue_depth: s(0, 0, 0, 0, 0, 900, 0, 0, 0, 0, 0, 0) })).toEqual([]);
  });

  it("counts a queue that drained once the load stopped", () => {
    const reasons = targetLimitSignals({ "gauge.queue_depth": s(141, 295, 424, 569, 705, 557, 439, 283, 134, 16) });
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/grew from 141 to 637 \(median of a quarter of the run\) \(peak 705\)/);
  });

  it("names a Server-Timing stage that slowed, not one that stayed put", () => {
    const reasons = targetLimitSignals({
      "stage.db_p50": s(2, 2.1, 2, 3, 6, 9, 12, 14),
      "stage.handler_p50": s(5, 5.2, 4.9, 5, 5.1, 5, 5, 5.2),
      "stage.cache_p50": s(0.1, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7),
      "stage.db_p99": s(2, 2, 2, 2, 90, 90, 90, 90),
    });
    expect(reasons).toEqual([
      'the target is the limit: its own "db" stage (Server-Timing) slowed from p50 2.05 ms to 13.0 ms during the run',
    ]);
  });
});

describe("withTargetSignals", () => {
  const generatorReason =
    "achieved 700.0 req/s, below 99% of the target 1000.0 req/s: the load generator could not send faster (its CPU 40% of a core)";

  it("keeps the generator's reason first on an invalid run and records the target's signal after it", () => {
    const out = withTargetSignals({
      valid: false,
      invalidReasons: [generatorReason],
      series: { queue_depth: s(10, 100, 300, 500, 700, 850, 950, 990) },
    });
    expect(out.valid).toBe(false);
    expect(out.invalidReasons[0]).toBe(generatorReason);
    expect(out.invalidReasons[1]).toMatch(/^the target is the limit: its queue \(queue_depth\)/);
    expect(out.saturationReasons).toEqual([out.invalidReasons[1]]);
    expect(runReading(out)).toBe("invalid");
  });

  it("makes a valid run saturated, still valid; no signal changes nothing", () => {
    const input = { valid: true, invalidReasons: [], series: { "stage.db_p50": s(1, 1, 1, 4, 4, 4, 4, 4) } };
    const out = withTargetSignals(input);
    expect(out.valid).toBe(true);
    expect(out.invalidReasons).toEqual([]);
    expect(out.saturationReasons).toHaveLength(1);
    expect(runReading(out)).toBe("saturated");
    const quiet = { valid: false, invalidReasons: [generatorReason], series: { queue_depth: s(1, 1, 1, 1) } };
    expect(withTargetSignals(quiet)).toEqual({ ...quiet, saturationReasons: [] });
  });

  it("adds a signal the engine already gave only once", () => {
    const series = { queue_depth: s(10, 100, 300, 500, 700, 850, 950, 990) };
    const once = withTargetSignals({ valid: true, invalidReasons: [], series });
    expect(withTargetSignals(once).saturationReasons).toEqual(once.saturationReasons);
  });
});
