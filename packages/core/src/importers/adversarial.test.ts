import { describe, expect, it } from "vitest";
import { RESULT_LIMITS } from "../run-result";
import { ImportError } from "./import-error";
import { detectFormat, type ImportFormat, importRun } from "./index";
import { readUploadContent, splitUploadBody } from "./read-upload";
import { fixture, importErrorOf } from "./test-support";
import { MAX_LINE_CHARS } from "./text";

const TEXT_FORMATS = ["wrk", "hey", "ab", "drill"] as const;

/** Lines just under the cap that make a backtracking pattern work quadratically per line. */
const ADVERSARIAL_LINES: Record<string, string> = {
  "spaces then x": `${" ".repeat(MAX_LINE_CHARS - 1)}x`,
  "a drill label then spaces": `Total requests${" ".repeat(MAX_LINE_CHARS - 20)}x`,
  "words before a URL-like word": `${"a ".repeat((MAX_LINE_CHARS - 10) / 2)}x`,
};

function repeatToBytes(line: string, bytes: number): string {
  return `${line}\n`.repeat(Math.ceil(bytes / (line.length + 1)));
}

function elapsedMs(fn: () => unknown): number {
  const t0 = performance.now();
  try {
    fn();
  } catch (err) {
    if (!(err instanceof ImportError)) throw err;
  }
  return performance.now() - t0;
}

describe("text importers on hostile input", () => {
  // A linear parser reads these 4 MB in well under a second; the bound is loose so that a
  // loaded machine passes, and a quadratic parser (tens of seconds here) fails.
  it.each(
    TEXT_FORMATS.flatMap((format) => Object.entries(ADVERSARIAL_LINES).map(([name, line]) => [format, name, line])),
  )("%s reads 4 MB of '%s' lines without backtracking", (format, _name, line) => {
    const text = repeatToBytes(line as string, 4_000_000);
    expect(elapsedMs(() => importRun(format as (typeof TEXT_FORMATS)[number], text))).toBeLessThan(3_000);
  });

  it("detects formats in linear time, blank lines included", () => {
    const text = `${" \n".repeat(1_000_000)}x`;
    expect(elapsedMs(() => detectFormat(text))).toBeLessThan(3_000);
    expect(detectFormat(text)).toBeUndefined();
  });

  it.each(TEXT_FORMATS)("%s refuses a line longer than the cap, naming the line", (format) => {
    const text = `first line\nsecond line\n${"x".repeat(MAX_LINE_CHARS + 1)}\n`;
    try {
      importRun(format, text);
      expect.unreachable("an over-long line was accepted");
    } catch (err) {
      expect(err).toBeInstanceOf(ImportError);
      expect((err as ImportError).line).toBe(3);
      expect((err as ImportError).format).toBe(format);
      expect((err as ImportError).message).toMatch(/line 3: the line is longer than 8,192 characters/);
    }
  });
});

/** A JSON fixture with `set` applied to its parsed document. */
function edited(path: string, set: (doc: Record<string, Record<string, unknown>>) => void): string {
  const doc = JSON.parse(fixture(path)) as Record<string, Record<string, unknown>>;
  set(doc);
  return JSON.stringify(doc);
}

describe("reserved keys at any depth, in every format", () => {
  // Each would otherwise reach the stored run (extra, settings) and break every view of it.
  const CASES: [ImportFormat | "native", string, string][] = [
    [
      "k6",
      "metrics.constructor",
      edited("k6/summary-export.json", (d) => {
        d.metrics = { ...d.metrics, constructor: { count: 1 } };
      }),
    ],
    [
      "k6",
      "options.a.prototype",
      edited("k6/handle-summary.json", (d) => {
        d.options = { ...d.options, a: { prototype: 1 } };
      }),
    ],
    ["vegeta", "x.0.constructor", edited("vegeta/mixed.json", (d) => Object.assign(d, { x: [{ constructor: 1 }] }))],
    [
      "bifrost",
      "meta.constructor",
      edited("bifrost/results.json", (d) => Object.assign(d, { meta: { constructor: 1 } })),
    ],
    [
      "native",
      "result.extra.a.constructor",
      '{"schemaVersion":1,"result":{"metrics":{"rps":1},"extra":{"a":{"constructor":1}}}}',
    ],
    [
      "native",
      "result.extra.a.0.__proto__",
      '{"schemaVersion":1,"result":{"metrics":{"rps":1},"extra":{"a":[{"__proto__":{"x":1}}]}}}',
    ],
  ];

  it.each(CASES)("%s: refused while read, naming %s", (format, field, content) => {
    const err = importErrorOf(() => readUploadContent({ format, content }));
    expect(err.field).toBe(field);
    expect(err.message).toMatch(/is a reserved name/);
  });

  it("refused in a JSON upload body, naming the path within it", () => {
    const err = importErrorOf(() =>
      splitUploadBody('{"project":"p","run":{"result":{"extra":{"a":{"constructor":1}}}}}'),
    );
    expect(err.field).toBe("run.result.extra.a.constructor");
    expect(err.message).toBe("run.result.extra.a.constructor: constructor is a reserved name");
  });
});

describe("bounds on what an upload may hold", () => {
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

  it("refuses a native run of 200,000 metrics by count, naming the field and the limit", () => {
    const content = JSON.stringify({ schemaVersion: 1, result: { metrics: keys(200_000) } });
    const err = importErrorOf(() => readUploadContent({ format: "native", content }));
    expect(err.field).toBe("result.metrics");
    expect(err.message).toMatch(/has 200,000 metrics; at most 5,000$/);
  });

  it("keeps a foreign tool's report only up to the limit of extra", () => {
    const content = edited("k6/summary-export.json", (d) => {
      const metrics = { ...d.metrics };
      for (let i = 0; i < 20_000; i++) metrics[`custom_${i}`] = { avg: 1, min: 1, med: 1, max: 1, "p(90)": 1 };
      d.metrics = metrics;
    });
    const err = importErrorOf(() => importRun("k6", content));
    expect(err.field).toBe("result.extra");
    expect(err.message).toMatch(new RegExp(`at most ${RESULT_LIMITS.extraChars.toLocaleString("en-US")}$`));
  });

  it("folds a tool's error list beyond the limit, keeping the most frequent and every count", () => {
    const doc = JSON.parse(fixture("oha/mixed.json")) as { errorDistribution: Record<string, number> };
    for (let i = 0; i < 3_000; i++) doc.errorDistribution[`connection reset (local port ${20_000 + i})`] = 1 + (i % 3);
    const run = importRun("oha", JSON.stringify(doc));
    const { errors, metrics } = run.result;
    expect(errors.length).toBeLessThanOrEqual(RESULT_LIMITS.errors);
    expect(errors.some((e) => e.message === "(other messages)")).toBe(true);
    const total = errors.reduce((sum, e) => sum + e.count, 0);
    expect(total).toBe(metrics.failed);
  });

  it("splits a JSON body into the envelope's fields and the run as text, or says it is no envelope", () => {
    expect(splitUploadBody('{"project":"p","run":{"schemaVersion":1}}')).toEqual({
      envelope: { project: "p" },
      run: '{"schemaVersion":1}',
    });
    expect(splitUploadBody('{"project":"p","content":"x"}')).toEqual({ envelope: { project: "p", content: "x" } });
    expect(splitUploadBody('{"project":"p","run":null}')).toEqual({ envelope: { project: "p", run: null } });
    expect(splitUploadBody('{"schemaVersion":1,"result":{}}')).toEqual({ envelope: null });
    expect(importErrorOf(() => splitUploadBody('{"project": "x",\n oops}')).line).toBe(2);
  });
});
