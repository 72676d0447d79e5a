import { describe, expect, it } from "vitest";
import { decodeHistogram } from "../histogram";
import { parseGatling } from "./gatling";
import { detectFormat, importRun, resolveImportFormat } from "./index";
import { csvCells, parseJmeter } from "./jmeter";
import { parseOha } from "./oha";
import { fixture, importErrorOf, replaceLine } from "./test-support";

describe("JMeter JTL (CSV), hand-written in JMeter's default CSV layout", () => {
  const text = fixture("jmeter/results.jtl");

  it("reads every sample: statuses, failures judged by JMeter, connection errors, a full histogram", () => {
    const run = parseJmeter(text);
    const { metrics, statusCounts, errors } = run.result;
    expect(metrics).toMatchObject({ requests: 8, success: 5, failed: 3, latency_max: expect.any(Number) });
    expect(statusCounts).toEqual({ "200": 6, "500": 1 });
    expect(errors).toEqual(
      expect.arrayContaining([
        { kind: "status", status: 500, message: "HTTP 500", count: 1 },
        { kind: "assert", message: 'Test failed: text expected to contain /"total":/', count: 1 },
        {
          kind: "connect",
          message:
            "Non HTTP response code: java.net.ConnectException — Non HTTP response message: Connection refused (Connection refused)",
          count: 1,
        },
      ]),
    );
    // 2003 ms within the histogram's 3 significant digits.
    expect(Math.abs(metrics.latency_max! - 2003) / 2003).toBeLessThan(0.001);
    expect(decodeHistogram(run.result.histogram!).totalCount).toBe(8);
    // Eight sends over 1.2 s.
    expect(metrics.rps).toBeCloseTo(8 / 1.2, 6);
    expect(metrics.res_bytes_avg).toBe((512 * 3 + 2048 * 3 + 80 + 0) / 8);
    expect(run.startedAt).toBe("2026-11-20T10:00:00.000Z");
    expect(run.tool?.name).toBe("jmeter");
    expect(detectFormat(text)).toBe("jmeter");
    expect(importRun(resolveImportFormat("JTL")!, text).result.metrics.requests).toBe(8);
  });

  it("names the line of bad input", () => {
    expect(
      importErrorOf(() =>
        parseJmeter(replaceLine(text, 4, "1795168800250,fast,catalog,200,OK,t,text,true,,1,1,1,1,u,1,0,0")),
      ).message,
    ).toBe('jmeter, line 4: elapsed: expected milliseconds, got "fast"');
    expect(importErrorOf(() => parseJmeter(replaceLine(text, 3, '1795168800100,15,"checkout,200'))).message).toBe(
      "jmeter, line 3: a quoted field does not end on its line",
    );
    expect(
      importErrorOf(() =>
        parseJmeter(replaceLine(text, 2, "1795168800000,12,checkout,200,OK,t,text,maybe,,512,180,2,2,u,11,0,1")),
      ).message,
    ).toBe('jmeter, line 2: success: expected true or false, got "maybe"');
    expect(importErrorOf(() => parseJmeter("elapsed,label\n1,a\n")).message).toContain(
      "line 1: the header has no timeStamp column",
    );
    expect(importErrorOf(() => parseJmeter(text.split("\n")[0]!)).message).toContain("has a header but no samples");
    expect(importErrorOf(() => parseJmeter(`${text}1795168801300,10\n`)).message).toBe(
      "jmeter, line 10: has 2 fields, the header 17",
    );
  });

  it("splits CSV in one pass, quotes and doubled quotes included", () => {
    expect(csvCells('a,"b,c","say ""hi""",,e', 1)).toEqual(["a", "b,c", 'say "hi"', "", "e"]);
    expect(importErrorOf(() => csvCells('"x"y', 7)).message).toBe(
      "jmeter, line 7: expected , after a quoted field, at character 4",
    );
  });
});

describe("Gatling stats.json, hand-written in the layout of a report's js/stats.json", () => {
  const text = fixture("gatling/stats.json");

  it("reads the global figures, the default percentiles and the per-request counts", () => {
    const run = parseGatling(text);
    expect(run.result.metrics).toEqual({
      requests: 1200,
      success: 1188,
      failed: 12,
      success_rate: 99,
      rps: 39.87,
      latency_min: 3,
      latency_max: 912,
      latency_mean: 48,
      latency_stddev: 61,
      latency_p50: 31,
      latency_p95: 140,
      latency_p99: 310,
    });
    expect(run.result.extra).toMatchObject({
      latencyPercentilesMs: { "50": 31, "75": 55, "95": 140, "99": 310 },
      responseTimeGroups: { "t < 800 ms": 1185, "800 ms <= t < 1200 ms": 3, "t >= 1200 ms": 0, failed: 12 },
      requestsByName: {
        checkout: { requests: 600, ko: 12, meanMs: 80 },
        catalog: { requests: 600, ko: 0, meanMs: 16 },
      },
    });
    expect(detectFormat(text)).toBe("gatling");
  });

  it("takes other percentiles when told, and names the field of bad input", () => {
    expect(parseGatling(text, { percentiles: [50, 90, 95, 99.9] }).result.metrics).toMatchObject({
      latency_p90: 55,
      latency_p999: 310,
    });
    const doc = JSON.parse(text);
    doc.stats.numberOfRequests.ko = 13;
    expect(importErrorOf(() => parseGatling(JSON.stringify(doc))).message).toBe(
      'gatling, field "stats.numberOfRequests": ok 1188 and ko 13 add up to 1201, but total is 1200',
    );
    doc.stats.numberOfRequests.ko = 12;
    doc.stats.meanResponseTime.total = "fast";
    expect(importErrorOf(() => parseGatling(JSON.stringify(doc))).field).toBe("stats.meanResponseTime.total");
    expect(importErrorOf(() => parseGatling('{"type":"GROUP"}')).message).toContain("expected js/stats.json");
  });
});

describe("oha --output-format json", () => {
  const text = fixture("oha/mixed.json");
  const own = JSON.parse(text) as {
    summary: { total: number; slowest: number; fastest: number; average: number; requestsPerSec: number };
    latencyPercentiles: Record<string, number | null>;
    statusCodeDistribution: Record<string, number>;
    errorDistribution: Record<string, number>;
  };

  it("gives oha's own figures in the vocabulary's units, 5xx counted as failed", () => {
    const run = parseOha(text);
    const { metrics, statusCounts, errors } = run.result;
    const statuses = Object.values(own.statusCodeDistribution).reduce((a, b) => a + b, 0);
    const transport = Object.values(own.errorDistribution).reduce((a, b) => a + b, 0);
    const failedStatuses = Object.entries(own.statusCodeDistribution)
      .filter(([code]) => Number(code) >= 400)
      .reduce((a, [, n]) => a + n, 0);
    expect(metrics.requests).toBe(statuses + transport);
    expect(metrics.failed).toBe(failedStatuses + transport);
    expect(statusCounts).toEqual(own.statusCodeDistribution);
    expect(metrics.rps).toBe(own.summary.requestsPerSec);
    expect(metrics.latency_max).toBeCloseTo(own.summary.slowest * 1000, 6);
    expect(metrics.latency_mean).toBeCloseTo(own.summary.average * 1000, 6);
    expect(metrics.latency_p99).toBeCloseTo(own.latencyPercentiles.p99! * 1000, 6);
    expect(metrics.latency_p50).toBeCloseTo(own.latencyPercentiles.p50! * 1000, 6);
    for (const [message, count] of Object.entries(own.errorDistribution)) {
      expect(errors).toContainEqual(expect.objectContaining({ message, count }));
    }
    expect(detectFormat(text)).toBe("oha");
  });

  it("names the field of bad input", () => {
    const doc = JSON.parse(text);
    doc.statusCodeDistribution.OK = 1;
    expect(importErrorOf(() => parseOha(JSON.stringify(doc))).field).toBe("statusCodeDistribution.OK");
    const bad = JSON.parse(text);
    bad.latencyPercentiles.median = 0.1;
    expect(importErrorOf(() => parseOha(JSON.stringify(bad))).message).toContain("expected a key like p50 or p99.9");
    expect(importErrorOf(() => parseOha('{"rps":{}}')).message).toContain(
      "expected the output of `oha --output-format json`",
    );
  });
});
