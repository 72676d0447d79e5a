import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ImportError } from "./import-error";
import { IMPORT_FORMATS } from "./index";
import { ZNormalizedRun } from "./normalized-run";
import { readUploadContent } from "./read-upload";
import { fixture } from "./test-support";

// Every importer, on anything: a valid normalized run or an ImportError, never anything else
// (a TypeError or RangeError would be a 500 at the API).
const FORMATS = ["auto", "native", ...IMPORT_FORMATS] as const;
const FIXTURES = [
  "wrk/latency.txt",
  "wrk2/latency.txt",
  "hey/mixed.txt",
  "ab/mixed.txt",
  "drill/stats-verbose.txt",
  "k6/summary-export.json",
  "k6/handle-summary.json",
  "vegeta/mixed.json",
  "bifrost/results.json",
];
const RUNS = { numRuns: 150 };

function readsOrRefuses(format: string, content: string): void {
  try {
    const { run } = readUploadContent({ format, content, provider: format === "bifrost" ? "bifrost" : undefined });
    expect(ZNormalizedRun.safeParse(run).success).toBe(true);
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
    expect(err.message.length).toBeGreaterThan(0);
  }
}

describe("importers on arbitrary input", () => {
  it.each(FORMATS)("%s: arbitrary text", (format) => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme-ascii", maxLength: 2_000 }), (text) => readsOrRefuses(format, text)),
      RUNS,
    );
  });

  it.each(FORMATS)("%s: arbitrary JSON, deeply nested included", (format) => {
    const json = fc.jsonValue({ depthSize: "large", maxDepth: 80 }).map((v) => JSON.stringify(v) ?? "null");
    fc.assert(
      fc.property(json, (text) => readsOrRefuses(format, text)),
      RUNS,
    );
  });

  it.each(FIXTURES)("%s: every truncation reads or is refused", (path) => {
    const text = fixture(path);
    fc.assert(
      fc.property(fc.nat({ max: text.length }), (cut) => readsOrRefuses("auto", text.slice(0, cut))),
      RUNS,
    );
  });

  it.each(FIXTURES)("%s: huge and odd numbers in place of any number", (path) => {
    const text = fixture(path);
    const odd = fc.constantFrom("1e308", "-1e308", "99999999999999999999999", "1e-320", "-0", "NaN", "0.0000001");
    fc.assert(
      fc.property(odd, fc.nat(), (value, pick) => {
        const numbers = [...text.matchAll(/\d+(?:\.\d+)?/g)];
        const m = numbers[pick % Math.max(1, numbers.length)];
        const changed =
          m?.index === undefined ? text : text.slice(0, m.index) + value + text.slice(m.index + m[0].length);
        readsOrRefuses("auto", changed);
      }),
      RUNS,
    );
  });

  it("native: arbitrary results around a valid run", () => {
    const result = fc.record({
      metrics: fc.dictionary(fc.string({ maxLength: 20 }), fc.double()),
      series: fc.dictionary(
        fc.string({ maxLength: 10 }),
        fc.record({ start: fc.double(), intervalMs: fc.double(), values: fc.array(fc.double(), { maxLength: 50 }) }),
      ),
      histogram: fc.option(fc.base64String({ maxLength: 200 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(result, (r) => readsOrRefuses("native", JSON.stringify({ schemaVersion: 1, result: r }))),
      RUNS,
    );
  });
});
