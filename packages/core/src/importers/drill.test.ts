import { describe, expect, it } from "vitest";
import { parseDrill } from "./drill";
import { ZNormalizedRun } from "./normalized-run";
import { fixture, importErrorOf, replaceLine, truncateAtLine } from "./test-support";

const stepMetrics = (
  requests: number,
  success: number,
  ms: [number, number, number, number, number, number, number],
) => {
  const [median, average, stddev, p99, p995, p999, max] = ms;
  return {
    metrics: {
      requests,
      success,
      failed: requests - success,
      latency_p50: median,
      latency_mean: average,
      latency_stddev: stddev,
      latency_p99: p99,
      latency_p999: p999,
      latency_max: max,
    },
    latencyPercentilesMs: { "99": p99, "99.5": p995, "99.9": p999 },
  };
};

describe("parseDrill", () => {
  it("reads the global block, the header and each request's block (drill/stats.txt)", () => {
    const run = parseDrill(fixture("drill/stats.txt"));
    expect(ZNormalizedRun.parse(run)).toEqual(run);
    expect(run.tool).toEqual({ name: "drill" });
    expect(run.durationS).toBe(0.1);
    expect(run.target).toEqual({ url: "http://127.0.0.1:18080" });
    expect(run.scenario).toEqual({
      name: "drill",
      engine: "http-closed",
      spec: { concurrency: 4, iterations: 500, rampupS: 0 },
    });
    expect(run.result.metrics).toEqual({
      requests: 1500,
      success: 1459,
      failed: 41,
      success_rate: expect.closeTo((1459 / 1500) * 100, 6),
      rps: 13051.95,
      runtime_ms: 100,
      latency_p50: 0,
      latency_mean: 0,
      latency_stddev: 1,
      latency_p99: 4,
      latency_p999: 8,
      latency_max: 8,
    });
    expect(run.result.errors).toEqual([
      { kind: "status", message: "non-2xx response or connection error (drill does not say which)", count: 41 },
    ]);
    expect(run.result.extra).toEqual({
      latencyPercentilesMs: { "99": 4, "99.5": 5, "99.9": 8 },
      steps: [
        { name: "Fetch home", ...stepMetrics(500, 500, [0, 0, 1, 4, 4, 6, 6]) },
        { name: "Fetch mixed", ...stepMetrics(500, 459, [0, 0, 1, 5, 8, 8, 8]) },
        { name: "Post echo", ...stepMetrics(500, 500, [0, 0, 1, 4, 4, 5, 5]) },
      ],
    });
  });

  it("strips ANSI colours (drill/stats-color.txt)", () => {
    const run = parseDrill(fixture("drill/stats-color.txt"));
    expect(run.result.metrics).toEqual({
      requests: 1500,
      success: 1461,
      failed: 39,
      success_rate: expect.closeTo((1461 / 1500) * 100, 6),
      rps: 6529.45,
      runtime_ms: 200,
      latency_p50: 0,
      latency_mean: 1,
      latency_stddev: 5,
      latency_p99: 8,
      latency_p999: 101,
      latency_max: 101,
    });
    expect(run.target).toEqual({ url: "http://127.0.0.1:18080" });
    const steps = run.result.extra?.steps as { name: string }[];
    expect(steps.map((s) => s.name)).toEqual(["Fetch home", "Fetch mixed", "Post echo"]);
    expect(run.result.extra?.unrecognizedLines).toBeUndefined();
  });

  it("converts --nanosec times to ms (drill/stats-nanosec.txt)", () => {
    const run = parseDrill(fixture("drill/stats-nanosec.txt"));
    expect(run.result.metrics).toEqual({
      requests: 1500,
      success: 1453,
      failed: 47,
      success_rate: expect.closeTo((1453 / 1500) * 100, 6),
      rps: 17832.9,
      runtime_ms: 100,
      latency_p50: 0.099,
      latency_mean: 0.209434,
      latency_stddev: 0.692446,
      latency_p99: 3.935,
      latency_p999: 9.599,
      latency_max: 9.727,
    });
    expect(run.result.extra?.steps).toEqual([
      { name: "Fetch home", ...stepMetrics(500, 500, [0.098, 0.188116, 0.766972, 2.623, 9.407, 9.599, 9.599]) },
      { name: "Fetch mixed", ...stepMetrics(500, 453, [0.099, 0.231518, 0.710289, 3.935, 4.351, 9.727, 9.727]) },
      { name: "Post echo", ...stepMetrics(500, 500, [0.1, 0.208668, 0.587151, 3.967, 4.511, 4.543, 4.543]) },
    ]);
  });

  it("counts statuses from the request lines printed without --quiet (drill/stats-verbose.txt)", () => {
    const run = parseDrill(fixture("drill/stats-verbose.txt"));
    expect(run.scenario?.spec).toEqual({ concurrency: 2, iterations: 20, rampupS: 0 });
    expect(run.result.metrics).toEqual({
      requests: 60,
      success: 56,
      failed: 4,
      success_rate: expect.closeTo((56 / 60) * 100, 6),
      rps: 4680.07,
      runtime_ms: 0,
      latency_p50: 0,
      latency_mean: 0,
      latency_stddev: 1,
      latency_p99: 4,
      latency_p999: 4,
      latency_max: 4,
    });
    expect(run.result.statusCounts).toEqual({ "200": 56, "404": 1, "500": 3 });
    expect(run.result.errors).toEqual([
      { kind: "status", status: 404, message: "HTTP 404", count: 1 },
      { kind: "status", status: 500, message: "HTTP 500", count: 3 },
    ]);
  });

  describe("bad input", () => {
    const text = fixture("drill/stats.txt");
    const lines = text.split("\n");
    const globalStart = lines.findIndex((l) => l.startsWith("Time taken for tests")) + 1;

    it("names the last line when the global block is cut off", () => {
      const err = importErrorOf(() => parseDrill(truncateAtLine(text, globalStart + 4)));
      expect(err.line).toBe(globalStart + 3);
      expect(err.message).toBe(
        `drill --stats output, line ${globalStart + 3}: no global "Requests per second" line (output truncated, or not run with --stats?)`,
      );
    });

    it("names the line of a malformed value", () => {
      const err = importErrorOf(() => parseDrill(replaceLine(text, globalStart + 1, "Total requests            many")));
      expect(err.line).toBe(globalStart + 1);
      expect(err.message).toContain("Total requests            many");
    });

    it("names the line of a count given as a time", () => {
      const err = importErrorOf(() => parseDrill(replaceLine(text, globalStart + 1, "Total requests            12ms")));
      expect(err.line).toBe(globalStart + 1);
      expect(err.message).toContain('"Total requests" should be a whole number, got "12ms"');
    });

    it("rejects another tool's output", () => {
      const err = importErrorOf(() => parseDrill(fixture("wrk/latency.txt")));
      expect(err.message).toContain('no global "Time taken for tests" line');
    });
  });
});
