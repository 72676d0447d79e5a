import { describe, expect, it } from "vitest";
import { buildCompareTable } from "./compare";
import { comparisonCsv, sweepCsv } from "./table-export";

const lines = (csv: string) => csv.trimEnd().split("\r\n");

describe("comparisonCsv", () => {
  it("has a line per metric and run, with deltas against the baseline only for the others", () => {
    const columns = [
      { runId: "a", metrics: { rps: 1_000, latency_p99: 20 } },
      { runId: "b", metrics: { rps: 1_200, latency_p99: 25 } },
    ];
    const table = buildCompareTable(columns as Parameters<typeof buildCompareTable>[0], 0);
    const csv = comparisonCsv(
      [
        { id: "a", label: "#1, baseline" },
        { id: "b", label: '#2 "tuned"' },
      ],
      "a",
      table,
    );
    const [header, ...rest] = lines(csv);
    expect(header).toBe("metric,label,unit,run_id,run,baseline,value,delta_vs_baseline,verdict");
    expect(rest).toHaveLength(table.length * 2);
    const rps = rest.filter((l) => l.startsWith("rps,"));
    expect(rps[0]).toMatch(/^rps,.*,a,"#1, baseline",true,1000,,$/);
    expect(rps[1]).toMatch(/^rps,.*,b,"#2 ""tuned""",false,1200,0\.2,\w+$/);
  });
});

describe("sweepCsv", () => {
  it("puts the swept value first and a column per measured metric with its unit", () => {
    const csv = sweepCsv("rate", [
      {
        runId: "r1",
        label: "#8",
        value: 500,
        status: "succeeded",
        valid: true,
        saturationReasons: [],
        excluded: false,
        meetsTargets: true,
        best: true,
        metrics: { rps: 499.5, latency_p99: 12 },
      },
      {
        runId: "r2",
        label: "#9",
        value: 1_000,
        status: "succeeded",
        valid: false,
        excluded: false,
        meetsTargets: false,
        best: false,
        metrics: { rps: 800 },
      },
      {
        runId: "r3",
        label: "#10",
        value: 2_000,
        status: "failed",
        excluded: true,
        meetsTargets: null,
        best: false,
        metrics: {},
      },
    ]);
    const [header, ...rest] = lines(csv);
    expect(header).toBe("rate,run_id,run,status,reading,excluded,meets_thresholds,best,rps (req/s),latency_p99 (ms)");
    expect(rest).toEqual([
      "500,r1,#8,succeeded,valid,false,true,true,499.5,12",
      "1000,r2,#9,succeeded,invalid,false,false,false,800,",
      "2000,r3,#10,failed,,true,,false,,",
    ]);
  });
});
