import { describe, expect, it } from "vitest";
import { PrometheusParseError, parsePrometheusText, selectPrometheusValue } from "./prometheus-text";

const EXPOSITION = String.raw`# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 4.2991616e+07
# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 12.47
# A plain comment line
# HELP gateway_queue_depth Requests waiting.\nSecond line with a backslash \\ here.
# TYPE gateway_queue_depth gauge
gateway_queue_depth{provider="openai",model="gpt-4o-mini"} 17
gateway_queue_depth{provider="anthropic",model="claude"} 3 1700000000000
weird_labels{path="C:\\dir\\file",quote="say \"hi\"",nl="a\nb",} 1
http_request_duration_seconds_bucket{le="0.1"} 8
http_request_duration_seconds_bucket{le="+Inf"} 10
ratio NaN
upper +Inf
lower -Inf
hex_value 0x1F
	indented_metric	  5
`;

describe("parsePrometheusText", () => {
  const parsed = parsePrometheusText(EXPOSITION);

  it("reads every sample with no errors", () => {
    expect(parsed.errors).toEqual([]);
    expect(parsed.samples).toHaveLength(12);
  });

  it("reads types and unescapes help text", () => {
    expect(parsed.families.process_cpu_seconds_total?.type).toBe("counter");
    expect(parsed.families.gateway_queue_depth?.help).toBe("Requests waiting.\nSecond line with a backslash \\ here.");
  });

  it("reads exponents, timestamps and special values", () => {
    const byName = (n: string) => parsed.samples.find((s) => s.name === n)!;
    expect(byName("process_resident_memory_bytes").value).toBe(42_991_616);
    expect(parsed.samples.find((s) => s.labels.provider === "anthropic")?.timestampMs).toBe(1_700_000_000_000);
    expect(byName("ratio").value).toBeNaN();
    expect(byName("upper").value).toBe(Number.POSITIVE_INFINITY);
    expect(byName("lower").value).toBe(Number.NEGATIVE_INFINITY);
    expect(byName("hex_value").value).toBe(31);
    expect(byName("indented_metric").value).toBe(5);
    expect(parsed.samples.find((s) => s.labels.le === "+Inf")?.value).toBe(10);
  });

  it("unescapes label values and accepts a trailing comma", () => {
    expect(parsed.samples.find((s) => s.name === "weird_labels")?.labels).toEqual({
      path: "C:\\dir\\file",
      quote: 'say "hi"',
      nl: "a\nb",
    });
  });

  it("sums matching samples, filtered by labels", () => {
    expect(selectPrometheusValue(parsed.samples, "gateway_queue_depth")).toBe(20);
    expect(selectPrometheusValue(parsed.samples, "gateway_queue_depth", { provider: "openai" })).toBe(17);
    expect(selectPrometheusValue(parsed.samples, "gateway_queue_depth", { provider: "none" })).toBeNull();
    expect(selectPrometheusValue(parsed.samples, "missing_metric")).toBeNull();
    // NaN is not a reading.
    expect(selectPrometheusValue(parsed.samples, "ratio")).toBeNull();
  });

  it("reports bad lines with their numbers and keeps the good ones", () => {
    const r = parsePrometheusText('good 1\nbad{label=unquoted} 2\nalso_bad\nnot_a_number abc\n{"utf8.name",x="1"} 4\n');
    expect(r.samples.map((s) => s.name)).toEqual(["good", "utf8.name"]);
    expect(r.errors.map((e) => e.line)).toEqual([2, 3, 4]);
    expect(() => parsePrometheusText('x{a="1" 2', { strict: true })).toThrow(PrometheusParseError);
  });

  it("ignores OpenMetrics EOF and exemplars", () => {
    const r = parsePrometheusText('a_total 3 # {trace_id="x"} 1.0\n# EOF\n');
    expect(r.errors).toEqual([]);
    expect(r.samples).toEqual([{ name: "a_total", labels: {}, value: 3 }]);
  });
});
