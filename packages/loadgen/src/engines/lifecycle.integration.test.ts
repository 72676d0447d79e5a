import net from "node:net";
import { describe, expect, it } from "vitest";
import { runHttpClosed } from "./http-closed";

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

describe("a target that refuses connections", () => {
  it("counts every closed-model attempt as a connection error and returns (no crash on re-dispatch)", async () => {
    const port = await closedPort();
    const result = await runHttpClosed(
      {
        engine: "http-closed",
        concurrency: 4,
        requests: 200,
        rampUpS: 0,
        timeoutMs: 2_000,
        request: { method: "GET", path: "/", headers: {} },
      },
      { baseUrl: `http://127.0.0.1:${port}` },
    );
    expect(result.metrics.requests).toBe(200);
    expect(result.metrics.failed).toBe(200);
    expect(result.metrics.success).toBe(0);
    expect(result.errors.reduce((n, e) => n + e.count, 0)).toBe(200);
    expect(result.errors[0]?.kind).toBe("connect");
  });
});

describe("checkpoints", () => {
  it("hands out partial results while running that agree with the final counts so far", async () => {
    const { createServer } = await import("node:http");
    const server = createServer((_req, res) => setTimeout(() => res.end("ok"), 5));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as net.AddressInfo;
    const partials: { requests: number; reasons: string[]; seriesLength: number }[] = [];
    const result = await runHttpClosed(
      {
        engine: "http-closed",
        concurrency: 2,
        durationS: 3.5,
        rampUpS: 0,
        timeoutMs: 2_000,
        request: { method: "GET", path: "/", headers: {} },
      },
      {
        baseUrl: `http://127.0.0.1:${port}`,
        checkpointMs: 1_000,
        onCheckpoint: (p) =>
          partials.push({
            requests: p.metrics.requests ?? 0,
            reasons: p.invalidReasons,
            seriesLength: p.series.rps?.values.length ?? 0,
          }),
      },
    );
    server.close();
    expect(partials.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < partials.length; i++)
      expect(partials[i]!.requests).toBeGreaterThanOrEqual(partials[i - 1]!.requests);
    expect(partials.at(-1)!.requests).toBeLessThanOrEqual(result.metrics.requests!);
    expect(partials[0]!.requests).toBeGreaterThan(0);
    expect(partials[0]!.reasons[0]).toMatch(/^partial result: checkpoint after \d+ s/);
    expect(partials.at(-1)!.seriesLength).toBeGreaterThan(0);
    // The final result is whole and valid: checkpoints did not close the recording.
    expect(result.valid).toBe(true);
    expect(result.metrics.requests).toBe(result.metrics.success);
  });
});
