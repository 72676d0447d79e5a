import { withTargetSignals } from "@benchboard/core";
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
  it("is named first when its own queue grows and its queue stage slows", async () => {
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
    // The engine alone sees only that responses fell behind; the reason it gives is its own.
    expect(engine.valid).toBe(false);
    expect(engine.invalidReasons[0]).not.toMatch(/queue/);

    const result = withTargetSignals(engine);
    expect(result.valid).toBe(false);
    expect(result.invalidReasons[0], result.invalidReasons.join("; ")).toMatch(
      /^the target is the limit: its queue \(gauge\.queue_depth\) grew from/,
    );
    expect(result.invalidReasons.join("; ")).toMatch(/its own "queue" stage \(Server-Timing\) slowed/);
    // The steady stage is not blamed, and what the engine said is kept, after the target's part.
    expect(result.invalidReasons.join("; ")).not.toMatch(/"work" stage/);
    for (const r of engine.invalidReasons) expect(result.invalidReasons).toContain(r);
    expect(result.extra?.targetLimits).toHaveLength(2);
  }, 60_000);
});
