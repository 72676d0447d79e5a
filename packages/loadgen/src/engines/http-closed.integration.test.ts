import { afterEach, describe, expect, it } from "vitest";
import { readBody, startHttpServer, type TestServer } from "../../test/servers";
import { importDrillPlan, runScenario } from "../index";
import { EngineConfigError } from "../types";

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe("http-closed engine", () => {
  it("sends exactly the requested count at the given concurrency", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let received = 0;
    const bodies = new Set<string>();
    server = await startHttpServer(async (req, res) => {
      const n = ++received;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      bodies.add(await readBody(req));
      setTimeout(() => {
        inFlight--;
        res.statusCode = n % 50 === 0 ? 503 : 200;
        res.setHeader("Server-Timing", "db;dur=2.5");
        res.end("x".repeat(100));
      }, 2);
    });
    const result = await runScenario(
      {
        engine: "http-closed",
        concurrency: 8,
        requests: 500,
        request: { method: "POST", path: "/p?q=1", body: "hello" },
      },
      { baseUrl: server.url },
    );
    expect(received).toBe(500);
    expect(maxInFlight).toBe(8);
    expect([...bodies]).toEqual(["hello"]);
    expect(result.metrics.requests).toBe(500);
    expect(result.statusCounts).toEqual({ "200": 490, "503": 10 });
    expect(result.metrics.failed).toBe(10);
    expect(result.metrics.success_rate).toBe(98);
    expect(result.errors).toEqual([{ kind: "status", status: 503, message: "HTTP 503", count: 10 }]);
    expect(result.metrics.req_bytes_avg).toBe(5);
    expect(result.metrics.res_bytes_avg).toBe(100);
    expect(result.stages.db).toMatchObject({ count: 500 });
    expect(result.metrics.latency_p50).toBeGreaterThan(1.5);
    expect(result.canceled).toBe(false);
  });

  it("runs for a duration with ramp-up", async () => {
    const arrivals: number[] = [];
    server = await startHttpServer((_req, res) => {
      arrivals.push(performance.now());
      setTimeout(() => res.end("ok"), 5);
    });
    const started = performance.now();
    const result = await runScenario(
      { engine: "http-closed", concurrency: 4, durationS: 1.6, rampUpS: 1.2 },
      { baseUrl: server.url },
    );
    const took = performance.now() - started;
    expect(took).toBeGreaterThan(1500);
    expect(took).toBeLessThan(2600);
    expect(result.metrics.requests).toBe(arrivals.length);
    // One user for the first 300 ms, all four at the end: the rate grows about fourfold.
    const first = arrivals[0]!;
    const early = arrivals.filter((t) => t - first < 250).length;
    const late = arrivals.filter((t) => t - first >= 1300 && t - first < 1550).length;
    expect(late).toBeGreaterThan(early * 2.5);
  });

  it("runs a multi-step plan with items, assigns and variables", async () => {
    const seen: string[] = [];
    server = await startHttpServer(async (req, res) => {
      const body = await readBody(req);
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""} ${body}`);
      if (req.url === "/login") {
        res.setHeader("content-type", "application/json");
        res.setHeader("x-session", "s-1");
        res.end(JSON.stringify({ token: `tok-${JSON.parse(body).user}`, ok: true }));
      } else res.end("{}");
    });
    const result = await runScenario(
      {
        engine: "http-closed",
        concurrency: 2,
        requests: 3,
        variables: { user: "ada" },
        plan: [
          {
            name: "login",
            request: { method: "POST", path: "/login", body: '{"user":"{{ user }}"}' },
            assign: "login",
            asserts: [{ key: "login.body.ok", value: true }],
          },
          {
            name: "items",
            request: {
              path: "/items/{{ item }}?i={{ index }}&it={{ iteration }}&s={{ login.headers.x-session }}",
              headers: { Authorization: "Bearer {{ login.body.token }}" },
            },
            withItems: ["a", 7],
          },
        ],
      },
      { baseUrl: server.url },
    );
    expect(result.metrics.requests).toBe(9);
    expect(result.metrics.failed).toBe(0);
    expect(seen.filter((s) => s.startsWith("POST /login"))).toEqual(Array(3).fill('POST /login  {"user":"ada"}'));
    for (const it of [0, 1, 2]) {
      expect(seen).toContain(`GET /items/a?i=0&it=${it}&s=s-1 Bearer tok-ada `);
      expect(seen).toContain(`GET /items/7?i=1&it=${it}&s=s-1 Bearer tok-ada `);
    }
    const steps = (result.extra as { steps: Record<string, { requests: number }> }).steps;
    expect(steps.login?.requests).toBe(3);
    expect(steps.items?.requests).toBe(6);
  });

  it("counts failed asserts and stops the iteration", async () => {
    let itemRequests = 0;
    server = await startHttpServer((req, res) => {
      if (req.url === "/status") res.end(JSON.stringify({ ready: false }));
      else {
        itemRequests++;
        res.end();
      }
    });
    const result = await runScenario(
      {
        engine: "http-closed",
        concurrency: 1,
        requests: 4,
        plan: [
          {
            name: "status",
            request: { path: "/status" },
            assign: "s",
            asserts: [{ key: "s.body.ready", value: true }],
          },
          { name: "next", request: { path: "/next" } },
        ],
      },
      { baseUrl: server.url },
    );
    expect(itemRequests).toBe(0);
    expect(result.metrics.requests).toBe(4);
    expect(result.metrics.failed).toBe(4);
    expect(result.errors[0]).toMatchObject({ kind: "assert", count: 4 });
  });

  it("runs an imported drill plan", async () => {
    const paths: string[] = [];
    server = await startHttpServer((req, res) => {
      paths.push(req.url ?? "");
      res.end(JSON.stringify({ id: 42 }));
    });
    const spec = importDrillPlan(`
base: http://localhost:3000
iterations: 5
concurrency: 2
plan:
  - name: Fetch account
    request:
      url: /api/account
    assign: account
  - name: Fetch orders
    request:
      url: '{{ base }}/api/accounts/{{ account.body.id }}/orders/{{ item }}'
    with_items_range:
      start: 1
      stop: 3
`);
    const result = await runScenario(spec, { baseUrl: server.url });
    expect(result.metrics.requests).toBe(20);
    expect(result.metrics.failed).toBe(0);
    expect(paths.filter((p) => p === "/api/account")).toHaveLength(5);
    expect(paths.filter((p) => p === "/api/accounts/42/orders/3")).toHaveLength(5);
  });

  it("refuses a plan with an unknown variable before sending", async () => {
    let received = 0;
    server = await startHttpServer((_req, res) => {
      received++;
      res.end();
    });
    await expect(
      runScenario(
        {
          engine: "http-closed",
          concurrency: 1,
          requests: 1,
          plan: [{ name: "a", request: { path: "/{{ secret }}" } }],
        },
        { baseUrl: server.url },
      ),
    ).rejects.toThrow(EngineConfigError);
    expect(received).toBe(0);
  });

  it("sends a multi-byte body intact on every request and records each response once", async () => {
    const body = "héllo ✓"; // 7 characters, 10 bytes in UTF-8
    const seen = new Map<string, number>();
    let received = 0;
    server = await startHttpServer(async (req, res) => {
      received++;
      const key = `${req.method} ${req.headers["content-length"]} ${await readBody(req)}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      res.end("ok");
    });
    const result = await runScenario(
      { engine: "http-closed", concurrency: 4, requests: 300, request: { method: "POST", path: "/b", body } },
      { baseUrl: server.url },
    );
    expect(received).toBe(300);
    expect([...seen]).toEqual([[`POST 10 ${body}`, 300]]);
    expect(result.metrics.requests).toBe(300);
    expect(result.metrics.req_bytes_avg).toBe(10);
    expect(result.metrics.res_bytes_avg).toBe(2);
    expect(result.statusCounts).toEqual({ "200": 300 });
    // No Server-Timing header: no stages.
    expect(result.stages).toEqual({});
    // Every response is in the per-second rps series and the latency histogram exactly once.
    expect((result.series.rps?.values ?? []).reduce<number>((a, v) => a + (v ?? 0), 0)).toBe(300);
    expect(result.metrics.latency_p50).toBeGreaterThan(0);
    const intervals = result.intervalHistograms?.values.filter((v) => v !== null).length ?? 0;
    expect(intervals).toBeGreaterThan(0);
  });

  it("stops within a second of cancellation against a fast server, counting only answered requests", async () => {
    let received = 0;
    server = await startHttpServer((_req, res) => {
      received++;
      res.end("ok");
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = performance.now();
    const result = await runScenario(
      { engine: "http-closed", concurrency: 4, durationS: 60 },
      { baseUrl: server.url, signal: controller.signal },
    );
    expect(performance.now() - started).toBeLessThan(1_300);
    expect(result.canceled).toBe(true);
    expect(result.metrics.requests).toBeGreaterThan(0);
    expect(result.metrics.failed).toBe(0);
    // Requests torn down by the abort (at most one per user) are not measurements.
    expect(received - (result.metrics.requests ?? 0)).toBeGreaterThanOrEqual(0);
    expect(received - (result.metrics.requests ?? 0)).toBeLessThanOrEqual(4);
    expect((result.series.rps?.values ?? []).reduce<number>((a, v) => a + (v ?? 0), 0)).toBe(result.metrics.requests);
  });

  it("sends nothing when canceled before it starts", async () => {
    let received = 0;
    server = await startHttpServer((_req, res) => {
      received++;
      res.end();
    });
    const controller = new AbortController();
    controller.abort();
    const result = await runScenario(
      { engine: "http-closed", concurrency: 4, durationS: 60 },
      { baseUrl: server.url, signal: controller.signal },
    );
    expect(received).toBe(0);
    expect(result.canceled).toBe(true);
    expect(result.metrics.requests).toBe(0);
  });

  it("stops within a second of cancellation against a hung server", async () => {
    server = await startHttpServer(() => {
      // never answers
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = performance.now();
    const result = await runScenario(
      { engine: "http-closed", concurrency: 4, durationS: 60, timeoutMs: 30_000 },
      { baseUrl: server.url, signal: controller.signal },
    );
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(result.canceled).toBe(true);
    expect(result.metrics.requests).toBe(0);
    expect(result.metrics.failed).toBe(0);
  });

  describe("after a stall of its own (the process held, as a frozen one would be)", () => {
    /** Holds the test's (and the engine's) thread for `ms`, `atMs` into the run. */
    const holdAt = (atMs: number, ms: number) =>
      setTimeout(() => {
        const until = performance.now() + ms;
        while (performance.now() < until) {}
      }, atMs);
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

    for (const plan of [false, true]) {
      const what = plan ? "a plan's users" : "single-request users";
      it(`${what} send nothing until the run is confirmed, and stop when it no longer runs`, async () => {
        let received = 0;
        server = await startHttpServer((_req, res) => {
          received++;
          setTimeout(() => res.end("ok"), 5);
        });
        const asked: { gapMs: number; received: number }[] = [];
        const hold = holdAt(1_000, 400);
        let result: Awaited<ReturnType<typeof runScenario>>;
        try {
          result = await runScenario(
            {
              engine: "http-closed",
              concurrency: 4,
              durationS: 5,
              ...(plan ? { plan: [{ name: "one", request: { method: "GET", path: "/p" } }] } : {}),
            } as never,
            {
              baseUrl: server.url,
              confirmAfterStall: async (stall) => {
                asked.push({ gapMs: stall.gapMs, received });
                await pause(100);
                return false;
              },
            },
          );
        } finally {
          clearTimeout(hold);
        }
        await pause(300);
        expect(asked).toHaveLength(1);
        expect(asked[0]!.gapMs).toBeGreaterThanOrEqual(300);
        expect(asked[0]!.received).toBeGreaterThan(20);
        // At most what was on its way at the stall (one request per user); each user's next
        // request, sent as its answer came in, would be more, and the run went on for 3.5 s.
        expect(received - asked[0]!.received).toBeLessThanOrEqual(4);
        expect(result.canceled).toBe(true);
        const stalls = (result.extra as { stalls?: { gapMs: number; confirmMs: number }[] }).stalls ?? [];
        expect(stalls).toHaveLength(1);
        expect(stalls[0]!.confirmMs).toBeGreaterThanOrEqual(90);
      });
    }

    it("go on once the run is confirmed to run, and end at the run's end", async () => {
      const arrivals: number[] = [];
      server = await startHttpServer((_req, res) => {
        arrivals.push(performance.now());
        setTimeout(() => res.end("ok"), 5);
      });
      let answeredAt = 0;
      const hold = holdAt(500, 300);
      let result: Awaited<ReturnType<typeof runScenario>>;
      const started = performance.now();
      try {
        result = await runScenario(
          { engine: "http-closed", concurrency: 4, durationS: 2 },
          {
            baseUrl: server.url,
            confirmAfterStall: async () => {
              await pause(100);
              answeredAt = performance.now();
              return true;
            },
          },
        );
      } finally {
        clearTimeout(hold);
      }
      expect(answeredAt).toBeGreaterThan(0);
      expect(result.canceled).toBe(false);
      expect(arrivals.filter((a) => a > answeredAt).length).toBeGreaterThan(20);
      expect(arrivals.filter((a) => a > started + 2_200)).toEqual([]);
      expect(result.metrics.requests).toBe(arrivals.length);
    });
  });
});
