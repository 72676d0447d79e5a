import { runReading } from "@benchboard/core";
import { afterEach, describe, expect, it } from "vitest";
import { startHttpServer, type TestServer } from "../../test/servers";
import { runScenario } from "../index";
import { EngineConfigError } from "../types";
import { warmOpenModelCode } from "./http-open";

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("http-open engine", () => {
  it("measures a 50 ms server at the target rate", async () => {
    let received = 0;
    server = await startHttpServer((_req, res) => {
      received++;
      setTimeout(() => {
        res.setHeader("server-timing", "queue_wait;dur=1.5, handler;dur=48");
        res.end("0123456789");
      }, 50);
    });
    const progress: number[] = [];
    const result = await runScenario(
      { engine: "http-open", rate: 200, durationS: 3, warmupS: 1 },
      { baseUrl: server.url, onProgress: (p) => progress.push(p.requests) },
    );
    // A machine busy enough may make the generator late, which the run must then say (and only
    // that): the target here always keeps up and is never to blame.
    expect(
      result.invalidReasons.filter((r) => !r.startsWith("the load generator")),
      result.invalidReasons.join("; "),
    ).toEqual([]);
    expect(result.metrics.send_lag_p50).toBeGreaterThanOrEqual(0);
    expect(result.metrics.connection_wait_p99).toBeLessThan(result.metrics.latency_p99!);
    // What a stall of the busy machine dropped (over 100 ms late) was never sent, and is counted.
    const dropped = result.metrics.stall_dropped ?? 0;
    expect(result.metrics.requests! + dropped).toBe(600);
    expect(result.metrics.target_rps).toBeCloseTo(200, 6);
    expect(Math.abs(result.metrics.rps! - 200) / 200).toBeLessThan(0.01);
    expect(result.metrics.latency_p50).toBeGreaterThanOrEqual(49.5);
    expect(result.metrics.latency_p50).toBeLessThan(56);
    expect(result.metrics.res_bytes_avg).toBe(10);
    expect(result.statusCounts).toEqual({ "200": 600 - dropped });
    expect(result.stages.queue_wait?.count).toBe(600 - dropped);
    expect(result.stages.queue_wait?.meanMs).toBeCloseTo(1.5, 2);
    expect(result.metrics["stage.handler"]).toBeCloseTo(48, 1);
    // Warm-up requests were sent but not measured, and nothing else reached the target: the
    // process's code warm-up (its first open-model run) goes to a loopback server of its own.
    const warmupRequests = (result.extra?.schedule as { warmupRequests: number }).warmupRequests;
    expect(warmupRequests).toBeGreaterThan(0);
    expect(received).toBe(600 - dropped + warmupRequests);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    // Per-second series cover the run and add up to the totals.
    const rps = result.series.rps!.values as number[];
    expect(rps.reduce((a, b) => a + b, 0)).toBe(600 - dropped);
    expect(result.series.latency_p99!.values.filter((v) => v !== null).length).toBeGreaterThanOrEqual(3);
  });

  it("compiles its code once per process, against a server of its own", async () => {
    const first = warmOpenModelCode();
    expect(warmOpenModelCode()).toBe(first);
    await expect(first).resolves.toBeUndefined();
    // Later runs do not warm again: a run against a fresh target sees only its own requests.
    let received = 0;
    server = await startHttpServer((_req, res) => {
      received++;
      res.end("ok");
    });
    const result = await runScenario(
      { engine: "http-open", rate: 100, durationS: 1, warmupS: 0.5 },
      { baseUrl: server.url },
    );
    const warmupRequests = (result.extra?.schedule as { warmupRequests: number }).warmupRequests;
    expect(result.metrics.requests).toBe(100);
    expect(received).toBe(100 + warmupRequests);
    expect(warmOpenModelCode()).toBe(first);
  });

  it("shows a 1 s server stall in p99 and max (no coordinated omission)", async () => {
    let stallFrom = 0;
    server = await startHttpServer((_req, res) => {
      const now = Date.now();
      if (stallFrom === 0) stallFrom = now + 1500;
      // Everything that arrives during the stall is answered when it ends.
      const wait = now >= stallFrom && now < stallFrom + 1000 ? stallFrom + 1000 - now : 2;
      setTimeout(() => res.end("ok"), wait);
    });
    const result = await runScenario(
      { engine: "http-open", rate: 100, durationS: 4, warmupS: 0 },
      { baseUrl: server.url },
    );
    expect(result.valid, result.invalidReasons.join("; ")).toBe(true);
    expect(result.metrics.requests).toBe(400);
    expect(result.metrics.latency_max).toBeGreaterThan(950);
    expect(result.metrics.latency_p99).toBeGreaterThan(850);
    expect(result.metrics.latency_p50).toBeLessThan(100);
    // The stall shows in the per-second p99 of the second it happened in.
    const p99 = result.series.latency_p99!.values.filter((v): v is number => v !== null);
    expect(Math.max(...p99)).toBeGreaterThan(500);
  });

  it("reads the run saturated, still valid, when the target's connections cannot carry the rate", async () => {
    server = await startHttpServer((_req, res) => setTimeout(() => res.end("slow"), 50));
    // 4 connections × 20 req/s each can't carry 300 req/s.
    const result = await runScenario(
      { engine: "http-open", rate: 300, durationS: 2, warmupS: 0, maxConnections: 4, timeoutMs: 1_500 },
      { baseUrl: server.url },
    );
    expect(result.valid, result.invalidReasons.join("; ")).toBe(true);
    expect(runReading(result)).toBe("saturated");
    expect(result.metrics.rps).toBeLessThan(150);
    expect(result.metrics.target_rps).toBeCloseTo(300, 6);
    // The target holding the connections is the cause: the shortfall is its, not the generator's.
    expect(result.saturationReasons.join(" ")).toMatch(/achieved .* below 99% of the target .*: the target held/);
    expect(result.saturationReasons.join("; ")).toMatch(
      /the target is the limit: requests waited for one of the 4 connections/,
    );
    expect(result.saturationReasons.join("; ")).not.toMatch(/load generator/);
    expect(result.metrics.connection_wait_p99).toBeGreaterThan(100);
    // Waiting for a connection counts as latency, from the due time.
    expect(result.metrics.latency_p99).toBeGreaterThan(500);
    // And from the send too: the target held the request up, not the generator.
    expect(result.metrics.latency_from_send_p99).toBeGreaterThan(result.metrics.connection_wait_p99!);
  });

  it("times each answer from its send as well, leaving the generator's lateness out of that figure only", async () => {
    server = await startHttpServer((_req, res) => setTimeout(() => res.end("ok"), 10));
    await warmOpenModelCode(); // once per process: so that the run starts measuring at once
    // One 60 ms stall of the generator's own process, a second into the run: the ~6 sends due
    // meanwhile leave late, in a burst, and the server answers each in 10 ms. (Sends more than
    // 100 ms late would be dropped instead: see open-loop.ts.)
    const stall = setTimeout(() => {
      const until = performance.now() + 60;
      while (performance.now() < until) {}
    }, 1_000);
    let result: Awaited<ReturnType<typeof runScenario>>;
    try {
      result = await runScenario({ engine: "http-open", rate: 100, durationS: 3, warmupS: 0 }, { baseUrl: server.url });
    } finally {
      clearTimeout(stall);
    }
    const m = result.metrics;
    expect(m.requests! + (m.stall_dropped ?? 0)).toBe(300);
    // From the due time, the stall is in the latency (and in the send lag) ...
    expect(m.send_lag_max).toBeGreaterThan(40);
    expect(m.latency_p99).toBeGreaterThan(40);
    // ... and from the send it is not: the requests left late were answered in ~10 ms.
    expect(m.latency_from_send_p50).toBeGreaterThanOrEqual(9.5);
    expect(m.latency_from_send_p50).toBeLessThanOrEqual(m.latency_p50!);
    expect(m.latency_from_send_p99).toBeLessThan(60);
    // (The run's p99 is about the stall's 60 ms late; from the send, at least 20 ms of it is left out.)
    expect(m.latency_from_send_p99).toBeLessThan(m.latency_p99! - 20);
  });

  it("after a stall of its own drops the overdue sends, asks before sending more, and says the generator stalled", async () => {
    const arrivals: number[] = [];
    server = await startHttpServer((_req, res) => {
      arrivals.push(performance.now());
      setTimeout(() => res.end("ok"), 5);
    });
    await warmOpenModelCode();
    // The generator's process held for 500 ms a second into the run (as a frozen process would be).
    let stalledUntil = 0;
    const stall = setTimeout(() => {
      stalledUntil = performance.now() + 500;
      while (performance.now() < stalledUntil) {}
    }, 1_000);
    const asked: number[] = [];
    let result: Awaited<ReturnType<typeof runScenario>>;
    try {
      result = await runScenario(
        { engine: "http-open", rate: 100, durationS: 3, warmupS: 0 },
        {
          baseUrl: server.url,
          confirmAfterStall: async () => {
            asked.push(performance.now());
            await new Promise((r) => setTimeout(r, 100));
            return true;
          },
        },
      );
    } finally {
      clearTimeout(stall);
    }
    const m = result.metrics;
    expect(asked.length).toBeGreaterThanOrEqual(1);
    // No burst: after the stall, nothing reached the server while the run was being confirmed,
    // and in any 100 ms no more than the schedule's 100 ms and the 100 ms a send may be late
    // (the ~60 overdue sends fired at once would be far more).
    // The server runs in this process, so a request written just before the freeze is read only
    // after it: at most that one arrives before the confirmation ends.
    const after = arrivals.filter((a) => a >= stalledUntil);
    expect(after.filter((a) => a < asked[0]! + 100).length).toBeLessThanOrEqual(1);
    for (const a of after) expect(after.filter((b) => b >= a && b < a + 100).length).toBeLessThanOrEqual(20);
    // The ~60 sends due during the stall and its confirmation were dropped and counted, with when.
    expect(m.stall_dropped).toBeGreaterThanOrEqual(45);
    expect(m.stall_dropped).toBeLessThanOrEqual(80);
    expect(m.requests! + m.stall_dropped!).toBe(300);
    const stalls = (result.extra?.schedule as { stalls: { atS: number; gapMs: number; dropped: number }[] }).stalls;
    expect(stalls.reduce((n, s) => n + s.dropped, 0)).toBe(m.stall_dropped);
    // A second after the test set it off, less the run's own start (its pacing thread starting).
    expect(stalls.some((s) => s.atS >= 0.5 && s.atS <= 1.1 && s.gapMs >= 400)).toBe(true);
    expect(result.valid).toBe(false);
    expect(result.invalidReasons[0]).toMatch(/^the load generator stalled/);
  });

  it("stops sending after a stall when the run is no longer running", async () => {
    let received = 0;
    server = await startHttpServer((_req, res) => {
      received++;
      res.end("ok");
    });
    await warmOpenModelCode();
    const stall = setTimeout(() => {
      const until = performance.now() + 300;
      while (performance.now() < until) {}
    }, 500);
    let at = 0;
    try {
      const result = await runScenario(
        { engine: "http-open", rate: 100, durationS: 3, warmupS: 0 },
        {
          baseUrl: server.url,
          confirmAfterStall: async () => {
            at = received;
            return false;
          },
        },
      );
      expect(result.canceled).toBe(true);
    } finally {
      clearTimeout(stall);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(at).toBeGreaterThan(20);
    // At most what was on its way at the stall (the ~30 overdue sends fired at once would be more).
    expect(received - at).toBeLessThanOrEqual(3);
  });

  it("records a blocked event loop as the generator's send lag and names the generator", async () => {
    server = await startHttpServer((_req, res) => setTimeout(() => res.end("ok"), 20));
    // The generator's own process is busy for 60 ms of every 200: the target is never slow, and
    // no send need be 100 ms late (which is all a fixed bound would see).
    const blocker = setInterval(() => {
      const until = performance.now() + 60;
      while (performance.now() < until) {}
    }, 200);
    let result: Awaited<ReturnType<typeof runScenario>>;
    try {
      result = await runScenario({ engine: "http-open", rate: 100, durationS: 3, warmupS: 0 }, { baseUrl: server.url });
    } finally {
      clearInterval(blocker);
    }
    const m = result.metrics;
    expect(m.requests).toBe(300);
    // The lateness is recorded as send lag, and still counted in latency (measured from the due time).
    expect(m.send_lag_max).toBeGreaterThan(40);
    expect(m.send_lag_p99).toBeGreaterThan(30);
    expect(m.latency_p99).toBeGreaterThan(m.send_lag_p99!);
    expect(result.valid).toBe(false);
    expect(result.invalidReasons.join("; ")).toMatch(
      /the load generator, not the target, was late sending: send lag p(50|99)/,
    );
    expect(result.invalidReasons.some((r) => r.startsWith("the target is the limit"))).toBe(false);
  });

  it("records the garbage collector's pauses as the generator's own", async () => {
    server = await startHttpServer((_req, res) => res.end("ok"));
    // Short-lived garbage made beside the run: the young generation fills and is collected, and
    // every collection holds the process that sends the load.
    let kept = 0;
    const churn = setInterval(() => {
      for (let i = 0; i < 20_000; i++) kept += new Array(16).fill(i).length;
    }, 20);
    let result: Awaited<ReturnType<typeof runScenario>>;
    try {
      result = await runScenario({ engine: "http-open", rate: 100, durationS: 2, warmupS: 0 }, { baseUrl: server.url });
    } finally {
      clearInterval(churn);
    }
    expect(kept).toBeGreaterThan(0);
    const generator = (result.extra as { generator: { gcPauses: number; gcPauseTotalMs: number } }).generator;
    expect(generator.gcPauses).toBeGreaterThan(0);
    expect(result.metrics.gc_pause_max).toBeGreaterThan(0);
    expect(result.metrics.gc_pause_max).toBeLessThanOrEqual(generator.gcPauseTotalMs);
    expect(result.metrics.gc_pause_share).toBeGreaterThan(0);
    expect(result.metrics.gc_pause_share).toBeLessThan(100);
  });

  it("stops within a second of cancellation and keeps what it measured", async () => {
    server = await startHttpServer((_req, res) => setTimeout(() => res.end("ok"), 20));
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 1500);
    const result = await runScenario(
      { engine: "http-open", rate: 100, durationS: 30, warmupS: 0 },
      { baseUrl: server.url, signal: controller.signal },
    );
    const took = performance.now() - started;
    expect(took).toBeLessThan(2500);
    expect(result.canceled).toBe(true);
    expect(result.metrics.requests).toBeGreaterThan(100);
    expect(result.metrics.requests).toBeLessThan(200);
    expect(result.metrics.runtime_ms).toBeLessThan(2_000);
  });

  it("counts refused connections as errors", async () => {
    const closed = await startHttpServer((_req, res) => res.end());
    const url = closed.url;
    await closed.close();
    const result = await runScenario({ engine: "http-open", rate: 50, durationS: 1, warmupS: 0 }, { baseUrl: url });
    expect(result.metrics.requests).toBe(50);
    expect(result.metrics.failed).toBe(50);
    expect(result.errors[0]?.kind).toBe("connect");
    expect(result.metrics.latency_p50).toBeUndefined();
  });

  it("refuses rates above the caller's cap before sending anything", async () => {
    let received = 0;
    server = await startHttpServer((_req, res) => {
      received++;
      res.end();
    });
    await expect(
      runScenario({ engine: "http-open", rate: 500, durationS: 1 }, { baseUrl: server.url, limits: { maxRate: 100 } }),
    ).rejects.toThrow(EngineConfigError);
    await expect(
      runScenario({ engine: "http-open", rate: 500_000, durationS: 1 }, { baseUrl: server.url }),
    ).rejects.toThrow(/rate/);
    expect(received).toBe(0);
  });
});
