import { describe, expect, it } from "vitest";
import { derivedContext, withDerivedBounds, withDerivedMetrics } from "./derived";
import {
  checkPublishedFigures,
  type PublishedRunFacts,
  publicationDateText,
  publishedHeadline,
  publishedTallyText,
  stepsFromFigures,
  type TPublishedFigure,
  tallyPublishedChecks,
} from "./published";

function facts(
  runId: string,
  metrics: Record<string, number>,
  figures: TPublishedFigure[],
  config: Record<string, unknown> | null = null,
  scenario: Record<string, unknown> | null = null,
  meetsTargets: boolean | null = null,
): PublishedRunFacts {
  const ctx = derivedContext(config, scenario);
  return {
    runId,
    label: `#${runId}`,
    metrics: withDerivedMetrics(metrics, ctx),
    bounds: withDerivedBounds(metrics, stepsFromFigures(figures, runId), ctx),
    context: ctx,
    snapshots: { config, scenario },
    meetsTargets,
  };
}

describe("checkPublishedFigures", () => {
  it("accepts a derived figure explained by the rounding of its inputs", () => {
    // Chat run 8: 502,000 messages in 240.0 s is 2,091.67 msg/s; the log prints 2,091.
    const figures: TPublishedFigure[] = [
      { kind: "value", label: "Runtime", text: "240.0s", runId: "8", metric: "runtime_ms", value: 240_000, step: 100 },
      {
        kind: "value",
        label: "Throughput",
        text: "2,091 msg/s",
        runId: "8",
        metric: "throughput",
        value: 2091,
        step: 1,
      },
    ];
    const run = facts("8", { messages: 502_000, runtime_ms: 240_000 }, figures);
    const checks = checkPublishedFigures(figures, new Map([["8", run]]));
    expect(checks.map((c) => c.status)).toEqual(["match", "match"]);
    expect(checks[1]!.computedText).toBe("2,091.67 msg/s");
  });

  it("flags a figure no rounding explains, with both numbers", () => {
    // The chat log's tuned-config summary prints 2,077 msg/s for the Run 8 configuration.
    const figures: TPublishedFigure[] = [
      { kind: "value", label: "Runtime", text: "240.0s", runId: "8", metric: "runtime_ms", value: 240_000, step: 100 },
      {
        kind: "value",
        label: "Throughput",
        text: "2,077 msg/s",
        runId: "8",
        metric: "throughput",
        value: 2077,
        step: 1,
      },
    ];
    const run = facts("8", { messages: 502_000, runtime_ms: 240_000 }, figures);
    const [, throughput] = checkPublishedFigures(figures, new Map([["8", run]]));
    expect(throughput).toMatchObject({ status: "mismatch", computedText: "2,091.67 msg/s" });
    expect(throughput!.figure.text).toBe("2,077 msg/s");
  });

  it("tells a figure derived from rounded inputs apart from a disagreement", () => {
    // Medium app at 0.05 vCPU: drill measured 51.72 req/s; the results table rounds it to 52 and
    // prints 52 / 0.05 = 1,040 req/s per vCPU.
    const run: TPublishedFigure[] = [
      { kind: "value", label: "rps", text: "51.72", runId: "m", metric: "rps", value: 51.72, step: 0.01 },
    ];
    const table: TPublishedFigure[] = [
      { kind: "value", label: "req/s", text: "52", runId: "m", metric: "rps", value: 52, step: 1 },
      { kind: "value", label: "req/s / vCPU", text: "1040", runId: "m", metric: "rps_per_vcpu", value: 1040, step: 1 },
      { kind: "value", label: "req/s / vCPU", text: "1100", runId: "m", metric: "rps_per_vcpu", value: 1100, step: 1 },
    ];
    const m = facts("m", { rps: 51.72 }, run, { cpuLimit: 0.05 });
    const checks = checkPublishedFigures(table, new Map([["m", m]]));
    expect(checks.map((c) => c.status)).toEqual(["match", "rounded", "mismatch"]);
    expect(checks[1]!.computedText).toBe("1,034.4 req/s/vCPU");
    expect(checks[1]!.detail).toContain("req/s 52");
  });

  it("checks deltas as (b − a) / a and explains a disagreement from the published inputs", () => {
    const stages = { overheadStages: ["queue_wait"] };
    const figures: TPublishedFigure[] = [
      {
        kind: "value",
        label: "Overhead",
        text: "59 µs",
        runId: "m",
        metric: "gateway_overhead",
        value: 0.059,
        step: 0.001,
      },
      {
        kind: "value",
        label: "Overhead",
        text: "11 µs",
        runId: "x",
        metric: "gateway_overhead",
        value: 0.011,
        step: 0.001,
      },
      {
        kind: "delta",
        label: "Overhead",
        text: "-81%",
        runId: "x",
        baseRunId: "m",
        metric: "gateway_overhead",
        value: -0.81,
        step: 0.01,
      },
      {
        kind: "delta",
        label: "Overhead",
        text: "+81% slower",
        runId: "m",
        baseRunId: "x",
        metric: "gateway_overhead",
        value: 0.81,
        step: 0.01,
      },
    ];
    const m = facts("m", { "stage.queue_wait": 0.059 }, figures, null, stages);
    const x = facts("x", { "stage.queue_wait": 0.0139 }, figures, null, stages);
    const checks = checkPublishedFigures(
      figures,
      new Map([
        ["m", m],
        ["x", x],
      ]),
    );
    expect(checks.map((c) => c.status)).toEqual(["match", "mismatch", "mismatch", "mismatch"]);
    expect(checks[2]!.computedText).toBe("−76.4%");
    expect(checks[2]!.detail).toContain("from the published 59 µs → 11 µs: −81.4%");
    expect(checks[3]!.computedText).toBe("+324.5%");
  });

  it("checks ratios, ranges, configuration, verdicts and the best mark", () => {
    const figures: TPublishedFigure[] = [
      {
        kind: "ratio",
        label: "Response size",
        text: "+7.5x",
        runId: "x",
        baseRunId: "m",
        metric: "res_bytes_avg",
        value: 7.5,
        step: 0.1,
      },
      {
        kind: "value",
        label: "Peak queue",
        text: "~35–40",
        runId: "x",
        metric: "queue_depth_peak",
        value: 40,
        step: 1,
        range: [35, 40],
      },
      { kind: "config", label: "Workers", text: "40", runId: "x", path: "knobs.PUBLISH_WORKERS", value: 40 },
      { kind: "verdict", label: "Meets target", text: "✓", runId: "x", value: true },
      { kind: "best", label: "optimal", text: "← optimal", runId: "m" },
    ];
    const m = facts("m", { res_bytes_avg: 1.37 * 1024 }, figures);
    const x = facts(
      "x",
      { res_bytes_avg: 10.32 * 1024, queue_depth_peak: 40 },
      figures,
      { knobs: { PUBLISH_WORKERS: 40 } },
      null,
      false,
    );
    const checks = checkPublishedFigures(
      figures,
      new Map([
        ["m", m],
        ["x", x],
      ]),
      "x",
    );
    expect(checks.map((c) => c.status)).toEqual(["match", "match", "match", "mismatch", "mismatch"]);
    expect(checks[0]!.computedText).toBe("7.53×");
  });

  it("reports figures it cannot compute as unavailable", () => {
    const figures: TPublishedFigure[] = [
      {
        kind: "value",
        label: "Consumer lag",
        text: "< 100ms",
        runId: "a",
        metric: "custom.consumer_lag",
        value: 100,
        step: 1,
      },
      { kind: "value", label: "x", text: "1", runId: "zzz", metric: "rps", value: 1, step: 1 },
    ];
    const checks = checkPublishedFigures(figures, new Map([["a", facts("a", {}, [])]]));
    expect(checks.map((c) => c.status)).toEqual(["unavailable", "unavailable"]);
  });
});

describe("figures copied from the document into the run", () => {
  // Chat run 8 as the tuning log prints it: every stored value is the log's own.
  const figures: TPublishedFigure[] = [
    { kind: "value", label: "Runtime", text: "240.0s", runId: "8", metric: "runtime_ms", value: 240_000, step: 100 },
    { kind: "value", label: "Messages", text: "502,000", runId: "8", metric: "messages", value: 502_000, step: 0 },
    { kind: "value", label: "Throughput", text: "2,091 msg/s", runId: "8", metric: "throughput", value: 2091, step: 1 },
    { kind: "config", label: "Pool size", text: "1,000", runId: "8", path: "scenario.poolSize", value: 1000 },
    { kind: "value", label: "Runtime", text: "250.0s", runId: "9", metric: "runtime_ms", value: 250_000, step: 100 },
    { kind: "value", label: "Messages", text: "502,000", runId: "9", metric: "messages", value: 502_000, step: 0 },
    {
      kind: "delta",
      label: "Runtime",
      text: "+4%",
      runId: "9",
      baseRunId: "8",
      metric: "runtime_ms",
      value: 0.04,
      step: 0.01,
    },
  ];
  const run = (id: string, runtime: number, transcribed: boolean) => ({
    ...facts(id, { messages: 502_000, runtime_ms: runtime }, figures, null, { spec: { poolSize: 1000 } }),
    transcribed,
  });

  it("are shown as published and never counted as agreeing", () => {
    const checks = checkPublishedFigures(
      figures,
      new Map([
        ["8", run("8", 240_000, true)],
        ["9", run("9", 250_000, true)],
      ]),
    );
    // Stored runtime and messages are the figures themselves; throughput (messages over runtime)
    // and the runtime delta are Benchboard's own arithmetic.
    expect(checks.map((c) => c.status)).toEqual([
      "carried",
      "carried",
      "match",
      "carried",
      "carried",
      "carried",
      "match",
    ]);
    const tally = tallyPublishedChecks(checks);
    expect(tally).toEqual({ computed: 2, agree: 2, rounded: 0, disagree: 0, carried: 5, unavailable: 0 });
    expect(publishedTallyText(tally)).toBe("2 figures computed: 2 agree; 5 carried as published");
  });

  it("a copy that differs from the stored value is still a disagreement", () => {
    const checks = checkPublishedFigures(figures.slice(0, 1), new Map([["8", run("8", 250_000, true)]]));
    expect(checks[0]!.status).toBe("mismatch");
    expect(publishedTallyText(tallyPublishedChecks(checks))).toBe("1 figure computed: 0 agree, 1 disagrees");
  });

  it("measured runs check every figure", () => {
    const checks = checkPublishedFigures(
      figures,
      new Map([
        ["8", run("8", 240_000, false)],
        ["9", run("9", 250_000, false)],
      ]),
    );
    expect(checks.every((c) => c.status === "match")).toBe(true);
    expect(publishedTallyText(tallyPublishedChecks(checks))).toBe("7 figures computed: 7 agree");
  });
});

describe("headline figures of a published run", () => {
  it("are formatted from the metric vocabulary, never the printed string", () => {
    const mib = 1024 ** 2;
    expect(publishedHeadline("mem_peak_bytes", 1312.79 * mib, { date: undefined })).toEqual({
      text: "1.28 GiB",
      source: "as published, undated",
    });
    expect(publishedHeadline("latency_p99", 0.04713, { date: "2024-02-15" })).toEqual({
      text: "47.1 µs",
      source: "as published, 15 Feb 2024",
    });
    expect(publishedHeadline("rps", 1234.5, null)).toEqual({ text: "1,234.5 req/s", source: null });
    // "~35–40" and "~20" stay approximate, in the metric's own formatting.
    expect(publishedHeadline("queue_depth_peak", 40, { range: [35, 40], approximate: true }).text).toBe("~35–40");
    expect(publishedHeadline("latency_p50", 20, { approximate: true }).text).toBe("~20 ms");
  });

  it("name the publication's date or say it has none", () => {
    expect(publicationDateText("2024-02-15")).toBe("15 Feb 2024");
    expect(publicationDateText(undefined)).toBe("undated");
    expect(publicationDateText("February 2024")).toBe("undated");
  });
});
