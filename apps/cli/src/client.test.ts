import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiClient, ApiError, backoffMs, parseRetryAfter, type RetryPolicy } from "./client";

// The client against a real HTTP server on 127.0.0.1 that misbehaves on purpose: each test's
// server answers from a script of responses, one per request, and records what it received.
type Step = { status: number; headers?: Record<string, string>; body?: unknown } | "drop";

let server: http.Server | undefined;

async function serve(steps: Step[]) {
  const received: { method: string; key: string | undefined; body: string }[] = [];
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      received.push({ method: req.method ?? "", key: req.headers["idempotency-key"] as string | undefined, body });
      const step = steps.shift() ?? { status: 200, body: { ok: true } };
      if (step === "drop") {
        req.socket.destroy();
        return;
      }
      res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
      res.end(JSON.stringify(step.body ?? { error: { message: `status ${step.status}` } }));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received };
}

async function closeServer() {
  const s = server;
  server = undefined;
  if (!s) return;
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
}

afterEach(closeServer);

const ok = z.object({ ok: z.literal(true) });
const fast = { forMs: 10_000, baseDelayMs: 50, maxDelayMs: 200 };

function client(url: string, retry: RetryPolicy = fast) {
  const lines: string[] = [];
  const c = new ApiClient({ url, token: "bb_t" }, { retry, log: (l) => lines.push(l) });
  return { c, lines };
}

describe("ApiClient retries", () => {
  it("waits out 503, 429 and a dropped connection, honouring Retry-After, one line per wait", async () => {
    const { url, received } = await serve([
      { status: 503, headers: { "retry-after": "1" }, body: { error: { message: "the database is unavailable" } } },
      { status: 429, headers: { "retry-after": "0" } },
      "drop",
      { status: 200, body: { ok: true } },
    ]);
    const { c, lines } = client(url);
    const started = Date.now();
    const res = await c.request({ method: "GET", path: "/runs/1", schema: ok, what: "run status" });
    expect(res.body).toEqual({ ok: true });
    expect(received).toHaveLength(4);
    // The 503's Retry-After of 1 s was waited in full.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^benchboard: run status: HTTP 503: the database is unavailable; retrying in 1\.\d s \(attempt 2, giving up \d+ s from now\)\n$/,
    );
    expect(lines[1]).toMatch(/^benchboard: run status: HTTP 429: status 429; retrying in 0\.\d s \(attempt 3,/);
    expect(lines[2]).toMatch(
      /^benchboard: run status: cannot reach the server \(.+\); retrying in 0\.\d s \(attempt 4,/,
    );
  });

  it("resends a POST with an Idempotency-Key after a 502 and a reset, with the same key and body", async () => {
    const { url, received } = await serve([{ status: 502 }, "drop", { status: 201, body: { ok: true } }]);
    const { c } = client(url);
    await c.request({
      method: "POST",
      path: "/runs/launch",
      body: { scenario: "s" },
      headers: { "idempotency-key": "k-1" },
      schema: ok,
      what: "launch",
    });
    expect(received.map((r) => [r.method, r.key, r.body])).toEqual(Array(3).fill(["POST", "k-1", '{"scenario":"s"}']));
  });

  it("does not resend a POST without a key once it may have reached the server, but does after a 503", async () => {
    const gateway = await serve([{ status: 502 }]);
    const { c } = client(gateway.url);
    await expect(
      c.request({ method: "POST", path: "/runs/1/progress", body: {}, schema: ok, what: "progress" }),
    ).rejects.toMatchObject({ status: 502 });
    expect(gateway.received).toHaveLength(1);
    await closeServer();

    // A 503 (and a 429) says the server did nothing: safe to send again.
    const busy = await serve([
      { status: 503, headers: { "retry-after": "0" } },
      { status: 200, body: { ok: true } },
    ]);
    const again = client(busy.url);
    await again.c.request({ method: "POST", path: "/runs/1/progress", body: {}, schema: ok, what: "progress" });
    expect(busy.received).toHaveLength(2);
  });

  it("gives up when the budget is spent, and when a Retry-After is longer than what is left", async () => {
    const { url, received } = await serve(Array(50).fill({ status: 503 }));
    const { c, lines } = client(url, { forMs: 400, baseDelayMs: 50, maxDelayMs: 100 });
    const err = await c
      .request({ method: "GET", path: "/runs/1", schema: ok, what: "run status" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect((err as ApiError).message).toMatch(/^run status refused \(HTTP 503\): status 503 \(after \d+ attempts\)$/);
    expect(received.length).toBe(lines.length + 1);
    expect(received.length).toBeGreaterThanOrEqual(3);
    await closeServer();

    const slow = await serve([{ status: 429, headers: { "retry-after": "30" } }]);
    const short = client(slow.url, { forMs: 5_000 });
    await expect(short.c.request({ method: "GET", path: "/x", schema: ok, what: "read" })).rejects.toMatchObject({
      status: 429,
    });
    expect(short.lines).toEqual([]);
  });

  it("never retries a refusal (4xx other than 429)", async () => {
    const { url, received } = await serve([{ status: 409, body: { error: { message: "taken", field: "name" } } }]);
    const { c, lines } = client(url);
    await expect(c.request({ method: "GET", path: "/x", schema: ok, what: "read" })).rejects.toMatchObject({
      status: 409,
      field: "name",
    });
    expect(received).toHaveLength(1);
    expect(lines).toEqual([]);
  });
});

describe("backoff and Retry-After", () => {
  it("doubles from the base up to the cap with jitter in the upper half", () => {
    const policy = { forMs: 1, baseDelayMs: 1_000, maxDelayMs: 15_000 };
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffMs(n, policy, () => 0))).toEqual([500, 1000, 2000, 4000, 7500, 7500]);
    expect([0, 1, 5].map((n) => backoffMs(n, policy, () => 1))).toEqual([1000, 2000, 15000]);
  });

  it("reads seconds and HTTP dates", () => {
    const now = Date.parse("2026-11-26T08:00:00Z");
    expect(parseRetryAfter("7", now)).toBe(7);
    expect(parseRetryAfter("Thu, 26 Nov 2026 08:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
