import { describe, expect, it } from "vitest";
import { parsePrometheusText } from "./prometheus-text";

// The strict reader is what the integration tests trust to call /metrics valid, so it must
// reject each way the format can be broken.
describe("parsePrometheusText", () => {
  const valid = [
    "# HELP h Latency.",
    "# TYPE h histogram",
    'h_bucket{le="0.1"} 1',
    'h_bucket{le="+Inf"} 2',
    "h_sum 0.3",
    "h_count 2",
    "# TYPE c counter",
    'c{a="x\\"y"} 4 1700000000000',
    "",
  ].join("\n");

  it("reads a valid exposition", () => {
    const families = parsePrometheusText(valid);
    expect(families.get("h")?.samples).toHaveLength(4);
    expect(families.get("c")?.samples[0]?.labels).toEqual({ a: 'x"y' });
  });

  it.each([
    ["a missing final newline", "# TYPE g gauge\ng 1"],
    ["TYPE after samples", "g 1\n# TYPE g gauge\n"],
    ["two TYPE lines", "# TYPE g gauge\n# TYPE g gauge\ng 1\n"],
    ["a family split by another", "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na 2\n"],
    ["a bad escape", '# TYPE g gauge\ng{a="\\t"} 1\n'],
    ["an unterminated label", '# TYPE g gauge\ng{a="x} 1\n'],
    ["a repeated series", "# TYPE g gauge\ng 1\ng 2\n"],
    ["a bad value", "# TYPE g gauge\ng one\n"],
    ["a negative counter", "# TYPE c counter\nc -1\n"],
    ["a histogram without +Inf", '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'],
    ["non-cumulative buckets", '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
    ["+Inf disagreeing with _count", '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n'],
    ["a histogram without _sum", '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_count 1\n'],
    ["a bucket without le", "# TYPE h histogram\nh_bucket 1\nh_sum 1\nh_count 1\n"],
    [
      "a histogram split by another family",
      '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_count 1\n# TYPE g gauge\ng 1\nh_sum 1\n',
    ],
  ])("rejects %s", (_, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
