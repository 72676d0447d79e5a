import { runReading, saturationHeadline, withTargetSignals } from "@benchboard/core";
import { parseAllowList } from "@benchboard/core/address";
import { afterEach, describe, expect, it } from "vitest";
import { startHttpServer, type TestServer } from "../../test/servers";
import { runScenario } from "../index";
import { startMonitors } from "../monitors";

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const WORKER = { policy: { allowList: parseAllowList("127.0.0.1").list }, allowProcess: true };

describe("a target that is the limit", () => {
  it("reads saturated, still valid, when its own queue grows and its queue stage slows", async () => {
    // One request at a time, 5 ms each: at 300 req/s the backlog grows by about 100 a second.
    // The server reports the backlog as a Prometheus gauge and each request's wait in line as a
    // Server-Timing stage, as a real service with a work queue would.
    const waiting: Array<{ at: number; done: () => void }> = [];
    let busy = false;
    const next = () => {
      const job = waiting.shift();
      if (!job) {
        busy = false;
        return;
      }
      busy = true;
      setTimeout(() => {
        job.done();
        next();
      }, 5);
    };
    server = await startHttpServer((req, res) => {
      if (req.url === "/metrics") {
        res.setHeader("content-type", "text/plain; version=0.0.4");
        res.end(`# TYPE app_queue_depth gauge\napp_queue_depth ${waiting.length}\n`);
        return;
      }
      const at = performance.now();
      waiting.push({
        at,
        done: () => {
          res.setHeader("server-timing", `queue;dur=${(performance.now() - at).toFixed(3)}, work;dur=5`);
          res.end("ok");
        },
      });
      if (!busy) next();
    });

    const monitors = startMonitors(
      [
        {
          kind: "prometheus",
          url: `${server.url}/metrics`,
          gauges: [{ name: "queue_depth", metric: "app_queue_depth" }],
        },
      ],
      WORKER,
    );
    let engine: Awaited<ReturnType<typeof runScenario>>;
    try {
      engine = await runScenario(
        { engine: "http-open", rate: 300, durationS: 5, warmupS: 0, maxConnections: 2000, timeoutMs: 30_000 },
        { baseUrl: server.url },
      );
    } finally {
      const watched = await monitors.stop();
      Object.assign(engine!.series, watched.series);
    }
    // The engine alone sees that responses fell behind: the target's reason, so the run is a
    // measurement of a saturated target, not an invalid run.
    expect(engine.valid, engine.invalidReasons.join("; ")).toBe(true);
    expect(engine.invalidReasons).toEqual([]);
    expect(engine.saturationReasons[0]).toMatch(/^the target (did not keep up|is the limit)/);
    expect(runReading(engine)).toBe("saturated");

    const result = withTargetSignals(engine);
    expect(result.valid).toBe(true);
    expect(runReading(result)).toBe("saturated");
    const said = result.saturationReasons.join("; ");
    expect(said).toMatch(/the target is the limit: its queue \(gauge\.queue_depth\) grew from/);
    expect(said).toMatch(/its own "queue" stage \(Server-Timing\) slowed/);
    // The steady stage is not blamed, and what the engine said is kept.
    expect(said).not.toMatch(/"work" stage/);
    for (const r of engine.saturationReasons) expect(result.saturationReasons).toContain(r);
  }, 60_000);

  it("reads saturated at the rate a fixed-concurrency server tops out at, and says so", async () => {
    // Two requests in service at a time, 10 ms each: the server finishes at most ~200 a second
    // and keeps the rest waiting in a bounded queue (503 past 5,000), whatever is offered.
    const CONCURRENCY = 2;
    const waiting: Array<() => void> = [];
    let inService = 0;
    const release = () => {
      while (inService < CONCURRENCY && waiting.length) {
        inService++;
        const done = waiting.shift()!;
        setTimeout(() => {
          inService--;
          done();
          release();
        }, 10);
      }
    };
    server = await startHttpServer((_req, res) => {
      if (waiting.length >= 5_000) {
        res.statusCode = 503;
        res.end("queue full");
        return;
      }
      waiting.push(() => res.end("ok"));
      release();
    });
    const result = await runScenario(
      { engine: "http-open", rate: 400, durationS: 3, warmupS: 0, maxConnections: 32, timeoutMs: 20_000 },
      { baseUrl: server.url },
    );
    expect(result.valid, result.invalidReasons.join("; ")).toBe(true);
    expect(runReading(result)).toBe("saturated");
    expect(result.saturationReasons.join("; ")).toMatch(/requests waited for one of the 32 connections/);
    expect(result.saturationReasons.every((r) => !r.includes("load generator"))).toBe(true);
    // It topped out near the server's capacity, well short of what was offered, and says so.
    expect(result.metrics.target_rps).toBeCloseTo(400, 6);
    expect(result.metrics.rps).toBeLessThan(300);
    expect(result.metrics.rps).toBeGreaterThan(50);
    expect(saturationHeadline(result.metrics)).toMatch(/^saturated at ~\d+ req\/s achieved of 400 offered$/);
  }, 60_000);

  it("reads invalid, the generator's reason first, when the generator's own loop was blocked as well", async () => {
    // The server answers at once and hands each request to a background queue drained at 50 a
    // second: its queue grows at any rate above that, so the target says it is the limit.
    let backlog = 0;
    const drain = setInterval(() => {
      backlog = Math.max(0, backlog - 5);
    }, 100);
    server = await startHttpServer((req, res) => {
      if (req.url === "/metrics") {
        res.setHeader("content-type", "text/plain; version=0.0.4");
        res.end(`# TYPE jobs_pending gauge\njobs_pending ${backlog}\n`);
        return;
      }
      backlog++;
      res.end("accepted");
    });
    const watchAndRun = async () => {
      const monitors = startMonitors(
        [
          {
            kind: "prometheus",
            url: `${server!.url}/metrics`,
            gauges: [{ name: "jobs_pending", metric: "jobs_pending" }],
          },
        ],
        WORKER,
      );
      let engine: Awaited<ReturnType<typeof runScenario>>;
      try {
        engine = await runScenario(
          { engine: "http-open", rate: 100, durationS: 5, warmupS: 0 },
          { baseUrl: server!.url },
        );
      } finally {
        const watched = await monitors.stop();
        Object.assign(engine!.series, watched.series);
      }
      return withTargetSignals(engine);
    };
    try {
      // Quiet: only the target's signal, so the run is valid and saturated.
      const quiet = await watchAndRun();
      expect(quiet.saturationReasons.join("; ")).toMatch(/its queue \(gauge\.jobs_pending\) grew/);
      // A busy machine may make the generator late; then it must say so first, as below.
      if (quiet.valid) expect(runReading(quiet)).toBe("saturated");
      else expect(quiet.invalidReasons[0]).toMatch(/load generator/);

      // The engine's own process busy 60 ms of every 200: its sends leave late.
      backlog = 0;
      const blocker = setInterval(() => {
        const until = performance.now() + 60;
        while (performance.now() < until) {}
      }, 200);
      let blocked: Awaited<ReturnType<typeof watchAndRun>>;
      try {
        blocked = await watchAndRun();
      } finally {
        clearInterval(blocker);
      }
      expect(blocked.valid).toBe(false);
      expect(runReading(blocked)).toBe("invalid");
      // The generator's own reason first: late sends, or a stall it dropped sends after.
      expect(blocked.invalidReasons[0]).toMatch(/^the load generator(, not the target, was late sending| stalled)/);
      // The target's signal is kept, after the generator's reason.
      const queueReason = blocked.invalidReasons.findIndex((r) => /its queue \(gauge\.jobs_pending\) grew/.test(r));
      expect(queueReason).toBeGreaterThan(0);
      expect(blocked.saturationReasons).toContain(blocked.invalidReasons[queueReason]);
    } finally {
      clearInterval(drain);
    }
  }, 60_000);
});
