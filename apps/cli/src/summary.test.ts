import { describe, expect, it } from "vitest";
import type { TCompareResult, TRun } from "./api-types";
import { baselineRef } from "./commands/compare";
import { checkName } from "./github";
import { progressLine } from "./progress";
import {
  changePointLines,
  compareMarkdown,
  groupMarkdown,
  groupMetrics,
  notMeasuredHint,
  runGate,
  runMarkdown,
  runNameWithScenario,
  runPasses,
} from "./summary";

const summary = (number: number, branch: string, commit: string) => ({
  id: `run${number}`,
  number,
  url: `https://bench.example.com/runs/run${number}`,
  status: "succeeded" as const,
  scenario: { id: null, name: "checkout" },
  git: { branch, commit, ciUrl: null },
  project: { id: "p", slug: "gw", name: "LLM gateway" },
});

const regression: TCompareResult = {
  base: summary(10, "main", "0123456789abcdef"),
  head: {
    ...summary(12, "feature|x", "fedcba9876543210"),
    title: "Run #12 · 400 req/s · 20 s · rate = 400 (value 3 of 4)",
  },
  tolerancePct: 5,
  metrics: [
    { key: "rps", label: "Achieved rate", base: 1000, head: 900, delta: -0.1, verdict: "regressed" },
    { key: "latency_p99", label: "Latency p99", base: 10, head: 10.2, delta: 0.02, verdict: "unchanged" },
    { key: "ttft_p50", label: "Time to first token p50", base: null, head: 3, delta: null, verdict: "incomparable" },
  ],
  regressed: ["rps"],
  improved: [],
  thresholds: {
    passed: false,
    verdicts: [{ metric: "latency_p99", op: "<", value: 50, actual: 10.2, passed: true, source: "project" }],
    tool: [{ metric: "http_req_failed", expression: "rate<0.01", passed: false }],
  },
  passed: false,
  reasons: ["Achieved rate regressed −10.0% (tolerance 5%)", "tool threshold http_req_failed: rate<0.01 failed"],
};

describe("compareMarkdown", () => {
  it("leads with the verdict, then the table, thresholds and reasons", () => {
    const md = compareMarkdown(regression);
    expect(md.split("\n")[0]).toBe("## ❌ Benchboard: 1 regression, 1 failed threshold");
    expect(md).toContain(
      "**checkout** in LLM gateway: head [Run #12 · 400 req/s · 20 s · rate = 400 (value 3 of 4)](https://bench.example.com/runs/run12) `feature|x` @ `fedcba9876` against base [Run #10](https://bench.example.com/runs/run10) `main` @ `0123456789`. A regression is worse than the base run by more than ±5%.",
    );
    expect(md).toContain("| Achieved rate | 1,000 req/s | 900 req/s | −10.0% | — | ❌ regressed |");
    expect(md).toContain("| Latency p99 | 10 ms | 10.2 ms | +2.0% | — | unchanged |");
    expect(md).toContain("| Time to first token p50 | — | 3 ms | — | — | ⚠️ not comparable |");
    expect(md).toContain("- ✅ Latency p99 < 50 ms (10.2 ms; project threshold)");
    expect(md).toContain("- ❌ `http_req_failed` `rate<0.01` (the load tool's own threshold)");
    expect(md).toContain("**Why the gate failed**\n\n- Achieved rate regressed −10.0% (tolerance 5%)");
  });

  it("says so plainly when the gate passes", () => {
    const md = compareMarkdown({
      ...regression,
      regressed: [],
      passed: true,
      reasons: [],
      thresholds: { passed: true, verdicts: [], tool: [] },
    });
    expect(md.split("\n")[0]).toBe("## ✅ Benchboard: no regression beyond ±5%");
    expect(md).not.toContain("Why the gate failed");
  });

  it("keeps table cells intact when a label holds a pipe", () => {
    const md = compareMarkdown({
      ...regression,
      metrics: [{ key: "custom.a|b", label: "A|b", base: 1, head: 1, delta: 0, verdict: "unchanged" }],
    });
    expect(md).toContain("| A\\|b | 1 | 1 | 0.0% | — | unchanged |");
  });

  const baseline = {
    branch: "main",
    required: 5,
    runs: [6, 7, 8, 9, 10].map((n) => ({ id: `run${n}`, number: n })),
  };

  it("shows the baseline's runs, median and noise bound under the default gate", () => {
    const md = compareMarkdown({
      ...regression,
      gate: "noise",
      alpha: 0.01,
      baseline,
      outcome: "fail",
      metrics: [
        {
          key: "latency_p99",
          label: "Latency p99",
          base: 10,
          head: 20,
          delta: 1,
          verdict: "regressed",
          noise: { n: 5, scale: "log", low: 8.1, high: 12.3, pWorse: 0.0001 },
        },
        {
          key: "rps",
          label: "Achieved rate",
          base: 1000,
          head: 900,
          delta: -0.1,
          verdict: "noise",
          noise: { n: 5, scale: "log", low: 850, high: 1170, pWorse: 0.04 },
          note: "beyond the tolerance, within the baseline's noise",
        },
      ],
    });
    expect(md).toContain("against the last 5 runs of `main` (#6–#10, newest [Run #10]");
    expect(md).toContain(
      "by more than ±5% and beyond the baseline's noise (a bound one more run of the baseline passes 1 time in 100)",
    );
    expect(md).toContain("| Metric | Base (median) | Head | Change | Noise bound | Verdict |");
    expect(md).toContain("| Latency p99 | 10 ms | 20 ms | +100.0% | ≤ 12.3 ms | ❌ regressed |");
    expect(md).toContain("| Achieved rate | 1,000 req/s | 900 req/s | −10.0% | ≥ 850 req/s | within noise |");
  });

  it("says inconclusive, never ✅, when the gate could not judge", () => {
    const md = compareMarkdown({
      ...regression,
      gate: "noise",
      baseline: { ...baseline, runs: baseline.runs.slice(3) },
      outcome: "inconclusive",
      passed: false,
      regressed: [],
      reasons: [],
      inconclusiveReasons: ["the baseline has 2 of the 5 runs of main it needs"],
      thresholds: { passed: true, verdicts: [], tool: [] },
      metrics: [{ key: "rps", label: "Achieved rate", base: 1000, head: 500, delta: -0.5, verdict: "inconclusive" }],
    });
    expect(md.split("\n")[0]).toBe("## ⚠️ Benchboard: inconclusive, 2 of 5 baseline runs");
    expect(md).not.toContain("✅");
    expect(md).toContain("| Achieved rate | 1,000 req/s | 500 req/s | −50.0% | — | ⚠️ can't tell (noise unknown) |");
    expect(md).toContain("**Why the gate could not judge**\n\n- the baseline has 2 of the 5 runs of main it needs");
  });

  it("claims no noise judgement it did not make: 2 baseline runs asked for pass by the tolerance alone", () => {
    const md = compareMarkdown({
      ...regression,
      gate: "noise",
      baseline: { branch: "main", required: 2, runs: baseline.runs.slice(3) },
      outcome: "pass",
      passed: true,
      regressed: [],
      reasons: [],
      thresholds: { passed: true, verdicts: [], tool: [] },
      metrics: [{ key: "rps", label: "Achieved rate", base: 1000, head: 990, delta: -0.01, verdict: "unchanged" }],
    });
    expect(md.split("\n")[0]).toBe(
      "## ✅ Benchboard: no regression beyond ±5% (2 runs of main; the baseline's noise not estimated from 2 runs)",
    );
    expect(md).toContain("2 runs cannot show that noise (3 needed), so a change beyond ±5% is inconclusive.");
  });
});

describe("runMarkdown and runPasses", () => {
  const run: TRun = {
    ...summary(7, "main", "abc1234"),
    source: "launched",
    error: null,
    progress: null,
    result: { metrics: { requests: 400, rps: 199.5, latency_p99: 12.5 } },
    thresholds: {
      passed: false,
      verdicts: [{ metric: "latency_p99", op: "<", value: 10, actual: 12.5, passed: false, source: "scenario" }],
      tool: [],
    },
  };

  it("shows a failed threshold and fails the gate", () => {
    const md = runMarkdown(run);
    expect(md.split("\n")[0]).toBe("## ❌ Benchboard: 1 failed threshold");
    expect(md).toContain("| Requests | 400 |");
    expect(md).toContain("- ❌ Latency p99 < 10 ms (12.5 ms; scenario threshold)");
    expect(runPasses(run)).toBe(false);
  });

  it("fails a run that did not succeed even without thresholds", () => {
    const failed = { ...run, status: "failed" as const, error: "target refused every request", thresholds: null };
    expect(runPasses(failed)).toBe(false);
    expect(runMarkdown(failed)).toContain("> target refused every request");
    expect(runPasses({ ...run, thresholds: { passed: true, verdicts: [], tool: [] } })).toBe(true);
  });

  it("prints no ✅ for a run no threshold judged", () => {
    for (const thresholds of [null, { passed: true, verdicts: [], tool: [] }]) {
      const md = runMarkdown({ ...run, thresholds });
      expect(md.split("\n")[0]).toBe("## Benchboard: run succeeded, no thresholds judged it");
      expect(md).not.toContain("✅");
    }
  });
});

describe("gates: not measured and invalid runs", () => {
  const base: TRun = {
    ...summary(8, "main", "abc1234"),
    source: "launched",
    error: null,
    progress: null,
    result: { metrics: { throughput: 1599 } },
    thresholds: {
      passed: false,
      verdicts: [
        {
          metric: "queue_depth_peak",
          op: "<",
          value: 1000,
          actual: null,
          status: "not_measured",
          passed: false,
          source: "project",
        },
      ],
      tool: [],
    },
    valid: true,
    invalidReasons: [],
  };

  it("fails a threshold that was not measured unless allowed, and says which", () => {
    expect(runGate(base)).toEqual({
      passed: false,
      reasons: ["run #8 did not measure threshold Peak queue depth < 1,000"],
    });
    expect(runGate(base, { allowNotMeasured: true })).toEqual({ passed: true, reasons: [] });
    const md = runMarkdown(base);
    expect(md.split("\n")[0]).toBe("## ❌ Benchboard: 1 threshold not measured");
    expect(md).toContain("- ⚠️ not measured: Peak queue depth < 1,000 (not measured; project threshold)");
    // A server that predates the third state sends no status: a null actual still reads as not measured.
    const { status: _status, ...old } = base.thresholds!.verdicts[0]!;
    expect(runPasses({ ...base, thresholds: { ...base.thresholds!, verdicts: [old] } })).toBe(false);
  });

  it("says how to get k6's p99 when its summary export had none", () => {
    const k6Run: TRun = {
      ...base,
      source: "import:k6",
      thresholds: {
        passed: false,
        verdicts: [
          {
            metric: "latency_p99",
            op: "<",
            value: 250,
            actual: null,
            status: "not_measured",
            passed: false,
            source: "project",
          },
          {
            metric: "latency_p999",
            op: "<",
            value: 900,
            actual: null,
            status: "not_measured",
            passed: false,
            source: "project",
          },
        ],
        tool: [],
      },
    };
    const [p99, p999] = runGate(k6Run).reasons;
    expect(p99).toBe(
      'run #8 did not measure threshold Latency p99 < 250 ms: k6\'s summary only has the percentiles of --summary-trend-stats (by default up to p(95)): run k6 with --summary-trend-stats "avg,min,med,max,p(90),p(95),p(99)", or upload its --out json stream, which has every request',
    );
    expect(p999).toContain('--summary-trend-stats "avg,min,med,max,p(90),p(95),p(99.9)"');
    // Other sources and other metrics get no k6 advice.
    expect(notMeasuredHint("import:k6-json", "latency_p99")).toBeUndefined();
    expect(notMeasuredHint("import:k6", "queue_depth_peak")).toBeUndefined();
  });

  it("passes a saturated run on its thresholds and says where the target topped out", () => {
    const saturated: TRun = {
      ...base,
      thresholds: { passed: true, verdicts: [], tool: [] },
      valid: true,
      reading: "saturated",
      saturation: "saturated at ~1,840 req/s achieved of 2,500 offered",
    };
    expect(runGate(saturated)).toEqual({ passed: true, reasons: [] });
    const md = runMarkdown(saturated);
    expect(md).toContain(
      "> ℹ️ The run saturated at ~1,840 req/s achieved of 2,500 offered: the target was the limit; the figures are a valid measurement of it.",
    );
    expect(md).not.toContain("Not a valid measurement");
  });

  it("never passes an invalid run unless allowed, even when every threshold passes", () => {
    const invalid: TRun = {
      ...base,
      thresholds: { passed: true, verdicts: [], tool: [] },
      valid: false,
      invalidReasons: ["5000 req/s not held: 99.9% of sends more than 100 ms late"],
    };
    expect(runGate(invalid)).toEqual({
      passed: false,
      reasons: ["run #8 is not a valid measurement: 5000 req/s not held: 99.9% of sends more than 100 ms late"],
    });
    expect(runGate(invalid, { allowInvalid: true }).passed).toBe(true);
    expect(runMarkdown(invalid)).toContain(
      "> ⚠️ Not a valid measurement: 5000 req/s not held: 99.9% of sends more than 100 ms late",
    );
  });

  it("reports change points as 'change point at run N, +x %'", () => {
    const lines = changePointLines({
      changePoints: [
        { metric: "rps", label: "Achieved rate", runId: "r20", runNumber: 20, change: 0.152, pValue: 0.002 },
      ],
    });
    expect(lines).toEqual(["- Achieved rate: change point at run 20, +15.2 % (p = 0.0020)"]);
    const md = compareMarkdown({
      ...regression,
      changePoints: [
        { metric: "rps", label: "Achieved rate", runId: "r20", runNumber: 20, change: 0.152, pValue: 0.002 },
      ],
      valid: false,
      invalidReasons: ["rate not held"],
    });
    expect(md.split("\n")[0]).toBe("## ❌ Benchboard: head run not valid, 1 regression, 1 failed threshold");
    expect(md).toContain("**Change points in head's history**\n\n- Achieved rate: change point at run 20, +15.2 %");
  });
});

describe("baselineRef", () => {
  it("tells a branch from a run id, and honours explicit prefixes", () => {
    expect(baselineRef("main")).toBe("branch:main");
    expect(baselineRef("release/1.2")).toBe("branch:release/1.2");
    expect(baselineRef("cmif8x2ra0001pq5sbk3w0m9z")).toBe("cmif8x2ra0001pq5sbk3w0m9z");
    expect(baselineRef("run:abc")).toBe("abc");
    expect(baselineRef("branch:cmif8x2ra0001pq5sbk3w0m9z")).toBe("branch:cmif8x2ra0001pq5sbk3w0m9z");
  });
});

describe("progressLine", () => {
  it("draws the fraction done with the counts", () => {
    expect(
      progressLine({
        number: 3,
        status: "running",
        progress: { fraction: 0.5, requests: 1234, errors: 2, rps: 987.4 },
      }),
    ).toBe("run #3 running [############------------] 50% 1,234 req 2 err 987 req/s");
    expect(progressLine({ number: 3, status: "queued", progress: null })).toBe(`run #3 queued [${"·".repeat(24)}]`);
  });
});

describe("groupMarkdown: a repetition group judged as one", () => {
  const rep = (number: number, rps: number, p99: number, extra: Partial<TRun> = {}): TRun => ({
    ...summary(number, "main", "abc1234"),
    source: "launched",
    error: null,
    progress: null,
    result: { metrics: { rps, latency_p99: p99 } },
    thresholds: {
      passed: p99 < 20,
      verdicts: [{ metric: "latency_p99", op: "<", value: 20, actual: p99, passed: p99 < 20, source: "scenario" }],
      tool: [],
    },
    title: `Run #${number} · 200 req/s · 20 s · repetition ${number - 1} of 4`,
    valid: true,
    invalidReasons: [],
    ...extra,
  });

  it("averages the counting runs, gives the spread, and passes when every run passes", () => {
    const runs = [rep(1, 100, 10), rep(2, 110, 12), rep(3, 90, 14)];
    const metrics = groupMetrics(runs);
    const rps = metrics.find((m) => m.key === "rps")!;
    expect(rps).toMatchObject({ n: 3, mean: 100, min: 90, max: 110 });
    expect(rps.sd).toBeCloseTo(10, 10);
    const md = groupMarkdown(runs);
    expect(md.split("\n")[0]).toBe("## ✅ Benchboard: all 3 repetitions passed");
    expect(md).toContain("Side by side: https://bench.example.com/compare?runs=run1,run2,run3");
    expect(md).toContain("| Latency p99 | 12 ms | 2 ms | 16.7 % | 10 ms | 14 ms |");
    expect(md).toContain(
      "| [Run #2 · 200 req/s · 20 s · repetition 1 of 4](https://bench.example.com/runs/run2) | succeeded | ✅ passed |",
    );
  });

  it("leaves failed and invalid runs out of the mean, flags them, and fails the group", () => {
    const runs = [
      rep(1, 100, 10),
      rep(2, 120, 30),
      rep(3, 5, 900, { valid: false, invalidReasons: ["the generator fell behind"] }),
      rep(4, 0, 0, { status: "failed", error: "target down", result: null, thresholds: null }),
    ];
    const rps = groupMetrics(runs).find((m) => m.key === "rps")!;
    expect(rps).toMatchObject({ n: 2, mean: 110 });
    const md = groupMarkdown(runs);
    expect(md.split("\n")[0]).toBe("## ❌ Benchboard: 3 of 4 repetitions failed the gate");
    expect(md).toContain("left out: #3 (not valid), #4 (failed)");
    expect(md).toContain(
      "| [Run #2 · 200 req/s · 20 s · repetition 1 of 4](https://bench.example.com/runs/run2) | succeeded | ❌ failed threshold Latency p99 < 20 ms (was 30 ms) |",
    );
    expect(md).toContain(
      "| [Run #3 · 200 req/s · 20 s · repetition 2 of 4](https://bench.example.com/runs/run3) | succeeded, ⚠️ not valid | ❌ is not a valid measurement: the generator fell behind; failed threshold",
    );
    expect(md).toContain(
      "| [Run #4 · 200 req/s · 20 s · repetition 3 of 4](https://bench.example.com/runs/run4) | failed | ❌ failed: target down |",
    );
    // Allowed invalid runs pass the gate but stay flagged and out of the mean.
    const allowed = groupMarkdown([rep(1, 100, 10), rep(3, 5, 15, { valid: false })], { allowInvalid: true });
    expect(allowed.split("\n")[0]).toBe("## ✅ Benchboard: all 2 repetitions passed");
    expect(allowed).toContain("| succeeded, ⚠️ not valid | ✅ passed (not valid: allowed) |");
    expect(allowed).toContain("| Achieved rate | 100 req/s | — | — | 100 req/s | 100 req/s |");
  });

  it("prints no ✅ for a group no threshold judged", () => {
    const runs = [rep(1, 100, 10, { thresholds: null }), rep(2, 110, 12, { thresholds: null })];
    const md = groupMarkdown(runs);
    expect(md.split("\n")[0]).toBe("## Benchboard: all 2 repetitions ended, no thresholds judged them");
    expect(md).not.toContain("## ✅");
  });
});

describe("run names: the title the web app gives a run", () => {
  const scenario = { id: null, name: "checkout 200 rps" };
  it("says the load that ran, with the scenario when the title does not name it", () => {
    const swept = { number: 24, scenario, title: "Run #24 · 400 req/s · 20 s · rate = 400 (value 3 of 4)" };
    expect(runNameWithScenario(swept, "launched")).toBe(
      "Run #24 · 400 req/s · 20 s · rate = 400 (value 3 of 4) (launched, scenario checkout 200 rps)",
    );
    expect(checkName({ head: swept })).toBe(
      "Benchboard: checkout 200 rps · 400 req/s · 20 s · rate = 400 (value 3 of 4)",
    );
    // A run whose load is unknown is titled by its scenario: said once.
    const plain = { number: 3, scenario, title: "Run #3 · checkout 200 rps" };
    expect(runNameWithScenario(plain, "import:hey")).toBe("Run #3 · checkout 200 rps (import:hey)");
    expect(checkName({ head: plain })).toBe("Benchboard: checkout 200 rps");
    // A server that sends no title.
    expect(runNameWithScenario({ number: 3, scenario }, "upload")).toBe("Run #3 (upload, scenario checkout 200 rps)");
  });
});
