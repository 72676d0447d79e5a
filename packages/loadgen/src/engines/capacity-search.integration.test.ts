import { capacitySearchOf, ZScenarioSpec } from "@benchboard/core";
import { afterEach, describe, expect, it } from "vitest";
import { type BoundedServer, startBoundedServer } from "../../test/bounded-server";
import { runScenario } from "../index";
import { EngineConfigError } from "../types";

let server: BoundedServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const search = (over: Record<string, unknown>) =>
  ZScenarioSpec.parse({
    engine: "capacity-search",
    slo: { p99Ms: 400, errorRatePct: 1 },
    minRate: 5,
    maxRate: 80,
    stepFactor: 2,
    resolutionPct: 10,
    plateauS: 3,
    warmupS: 0.5,
    maxConnections: 200,
    timeoutMs: 5_000,
    ...over,
  });

describe("capacity search", () => {
  it("finds the knee of a target that serves 4 requests at a time for 100 ms each (~40 req/s)", async () => {
    server = await startBoundedServer({ slots: 4, serviceMs: 100 });
    const result = await runScenario(search({}), { baseUrl: server.url });
    const found = capacitySearchOf(result.extra);
    expect(found).not.toBeNull();
    const summary = found!;
    // Stepped 5 → 10 → 20 → 40 → 80 (past the knee), then bisected.
    expect(summary.plateaus.length).toBeGreaterThan(2);
    // (A plateau a busy host distorted is run once more.)
    const judged = summary.plateaus.filter((p) => p.verdict !== "invalid");
    expect(summary.plateaus.length - judged.length).toBeLessThanOrEqual(1);
    expect(judged.slice(0, 3).map((p) => p.offeredRps)).toEqual([5, 10, 20]);
    expect(judged.some((p) => p.phase === "bisect")).toBe(true);
    // The knee is the target's: it stopped at the SLO or the target's saturation, not the generator.
    expect(["saturated", "slo-broken"]).toContain(summary.stop.kind);
    expect(summary.stop.message).toMatch(/^(target saturated at ~|SLO broken at )\d+ req\/s/);
    // Broad bracket around the known capacity (timers make each request take a little over 100 ms).
    expect(summary.sustainableRps).not.toBeNull();
    expect(summary.sustainableRps!).toBeGreaterThanOrEqual(15);
    expect(summary.sustainableRps!).toBeLessThanOrEqual(server.capacityRps * 1.1);
    expect(summary.bracket.firstBadRps!).toBeGreaterThan(summary.bracket.lastGoodRps!);
    // The run's figures are the sustainable plateau's, and say so.
    expect(result.metrics.capacity_rps).toBe(summary.sustainableRps);
    expect(result.metrics.target_rps).toBeCloseTo(summary.sustainableRps!, 0);
    expect(result.valid).toBe(true);
    // Every plateau is evidence, and the series cover them all on one axis.
    const passing = summary.plateaus.filter((p) => p.verdict === "pass");
    expect(passing.every((p) => p.p99Ms! <= 400 && p.achievedRps! >= 0.98 * p.offeredRps)).toBe(true);
    const failing = summary.plateaus.filter((p) => p.verdict === "fail");
    expect(failing.length).toBeGreaterThan(0);
    expect(result.series.rps!.values.length).toBeGreaterThanOrEqual(summary.plateaus.length * 2);
    expect(server.answered()).toBeGreaterThan(summary.plateaus.length * 5);
  }, 120_000);

  it("stops at the range's maximum when the target keeps up", async () => {
    server = await startBoundedServer({ slots: 10, serviceMs: 100 });
    const result = await runScenario(search({ minRate: 10, maxRate: 20 }), { baseUrl: server.url });
    const summary = capacitySearchOf(result.extra)!;
    expect(summary.plateaus.filter((p) => p.verdict !== "invalid").map((p) => p.offeredRps)).toEqual([10, 20]);
    expect(summary.stop.kind).toBe("range-max");
    expect(summary.stop.message).toMatch(/^reached the range's maximum: 20 req\/s/);
    expect(summary.sustainableRps).toBe(20);
  }, 60_000);

  it("refuses, before sending anything, a search whose worst case exceeds the duration cap", async () => {
    server = await startBoundedServer({ slots: 5, serviceMs: 2 });
    const attempt = runScenario(search({}), { baseUrl: server.url, limits: { maxDurationS: 20 } });
    await expect(attempt).rejects.toBeInstanceOf(EngineConfigError);
    await expect(attempt).rejects.toThrow(/^plateauS: [\d.]+ is above the limit of 20 seconds for the whole search/);
    const rate = runScenario(search({}), { baseUrl: server.url, limits: { maxRate: 50 } });
    await expect(rate).rejects.toThrow(/^maxRate: 80 is above the limit of 50 req\/s/);
    expect(server.answered() + server.refused()).toBe(0);
  });
});
