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
