import { describe, expect, it } from "vitest";
import {
  detectFormat,
  IMPORT_FORMATS,
  type ImportFormat,
  importRun,
  importRuns,
  parseWrk,
  resolveImportFormat,
  ZNormalizedRun,
} from "./index";
import { fixture, importErrorOf } from "./test-support";

const FIXTURES: [string, ImportFormat][] = [
  ["wrk/latency.txt", "wrk"],
  ["wrk/mixed-status.txt", "wrk"],
  ["wrk/no-latency.txt", "wrk"],
  ["wrk/timeouts.txt", "wrk"],
  ["wrk/read-errors.txt", "wrk"],
  ["wrk2/latency.txt", "wrk"],
  ["wrk2/uncorrected.txt", "wrk"],
  ["hey/mixed.txt", "hey"],
  ["hey/post-duration.txt", "hey"],
  ["hey/refused.txt", "hey"],
  ["ab/basic.txt", "ab"],
  ["ab/mixed.txt", "ab"],
  ["ab/keepalive-post.txt", "ab"],
  ["ab/closed-without-response.txt", "ab"],
  ["vegeta/mixed.json", "vegeta"],
  ["vegeta/buckets.json", "vegeta"],
  ["vegeta/refused.json", "vegeta"],
  ["k6/summary-export.json", "k6"],
  ["k6/handle-summary.json", "k6"],
  ["k6/machine-readable.json", "k6"],
  ["drill/stats.txt", "drill"],
  ["drill/stats-color.txt", "drill"],
  ["drill/stats-nanosec.txt", "drill"],
  ["drill/stats-verbose.txt", "drill"],
  ["bifrost/results.json", "bifrost"],
  ["k6-json/points.jsonl", "k6-json"],
  ["k6-json/mixed.jsonl", "k6-json"],
  ["vegeta-results/mixed.jsonl", "vegeta-results"],
  ["vegeta-results/refused.jsonl", "vegeta-results"],
  ["gatling/stats.json", "gatling"],
  ["jmeter/results.jtl", "jmeter"],
  ["oha/mixed.json", "oha"],
];

describe("detectFormat", () => {
  it.each(FIXTURES)("recognises %s as %s", (path, format) => {
    expect(detectFormat(fixture(path))).toBe(format);
  });

  it("covers every format", () => {
    expect(new Set(FIXTURES.map(([, f]) => f))).toEqual(new Set(IMPORT_FORMATS));
  });

  it("recognises k6's --out json stream as the stream format", () => {
    expect(detectFormat('{"type":"Metric","data":{"name":"vus"},"metric":"vus"}\n{"type":"Point"}\n')).toBe("k6-json");
  });

  it.each([
    ["empty input", ""],
    ["prose", "hello\nworld\n"],
    ["other JSON", '{"name":"benchboard"}'],
    ["a JSON array", "[1, 2, 3]"],
    ["broken JSON", '{"requests": '],
  ])("returns undefined for %s", (_, text) => {
    expect(detectFormat(text)).toBeUndefined();
  });
});

describe("importRun and importRuns", () => {
  it.each(FIXTURES.filter(([, f]) => f !== "bifrost"))("imports %s with auto detection", (path, format) => {
    const text = fixture(path);
    const run = importRun("auto", text);
    expect(ZNormalizedRun.parse(run)).toEqual(run);
    expect(run).toEqual(importRun(format, text));
  });

  it("imports every provider of a bifrost-benchmarking file, or the one asked for", () => {
    const text = fixture("bifrost/results.json");
    expect(importRuns("auto", text)).toHaveLength(3);
    expect(importRuns("bifrost", text, { provider: "litellm" }).map((r) => r.target?.name)).toEqual(["litellm"]);
    expect(importRun("bifrost", text, { provider: "openai" }).target).toEqual({ name: "openai" });
  });

  it("asks which provider when a bifrost-benchmarking file holds several", () => {
    const err = importErrorOf(() => importRun("auto", fixture("bifrost/results.json")));
    expect(err.message).toBe(
      'bifrost-benchmarking results, field "(document)": holds results for 3 providers (bifrost, litellm, openai): choose one',
    );
  });

  it("fails clearly when auto detection finds nothing", () => {
    const err = importErrorOf(() => importRun("auto", "nothing to see here\n"));
    expect(err.message).toMatch(/^input: could not tell the format/);
  });

  it("names the format when the wrong importer is chosen", () => {
    const err = importErrorOf(() => importRun("vegeta", fixture("wrk/latency.txt")));
    expect(err.format).toBe("vegeta");
    expect(err.message).toBe(
      'vegeta JSON report, line 1: not JSON: expected "{", got "Running 3s test @ http://127.0.0.1:18080…"',
    );
  });

  it("gives the same result as the format's own parser", () => {
    const text = fixture("wrk2/latency.txt");
    expect(importRun("wrk", text)).toEqual(parseWrk(text));
  });
});

describe("resolveImportFormat", () => {
  it("accepts format names and their aliases in any case", () => {
    expect(resolveImportFormat("k6")).toBe("k6");
    expect(resolveImportFormat("WRK2")).toBe("wrk");
    expect(resolveImportFormat("apachebench")).toBe("ab");
    expect(resolveImportFormat("bifrost-benchmarking")).toBe("bifrost");
    expect(resolveImportFormat("locust")).toBeUndefined();
  });
});
