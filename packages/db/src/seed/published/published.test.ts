import { DERIVED_KEYS, publishedTallyText, tallyPublishedChecks } from "@benchboard/core";
import { describe, expect, it } from "vitest";
import { verdictsFor } from "../index";
import {
  approximateOf,
  checkSeedTable,
  configSnapshot,
  judgeSeedTable,
  PUBLISHED_PROJECTS,
  PUBLISHED_RUNS,
  PUBLISHED_TABLES,
  scenarioSnapshot,
  seedRun,
  storedMetrics,
} from "./index";

/**
 * Every transcribed table checked against values computed from its transcribed runs. A figure
 * "agrees" when the rounding of its inputs explains it; everything else is listed here, so a
 * transcription slip (or a change in how Benchboard computes) shows up as a failing test.
 */
type Known = [table: string, run: string, label: string, printed: string, computed: string];

/** Printed figures that disagree with the figures they are derived from. */
const DISAGREEMENTS: Known[] = [
  // Bifrost's overhead on t3.xlarge: the seven stages the t3.medium figure sums (59.2 µs) add up
  // to 13.9 µs on t3.xlarge, not 11 µs.
  ["bifrost-summary", "gateway#2", "Bifrost's Overhead", "11 µs", "13.9 µs"],
  ["bifrost-medium-vs-xlarge", "gateway#2", "Bifrost Overhead", "11 µs", "13.9 µs"],
  // The t3.medium page prints t3.xlarge's improvement as t3.medium's "slower" difference;
  // (t3.medium − t3.xlarge) / t3.xlarge is several times larger.
  ["bifrost-medium-vs-xlarge", "gateway#1", "Bifrost Overhead", "+81% slower", "+325.9%"],
  ["bifrost-medium-vs-xlarge", "gateway#1", "Queue Wait Time", "+96% slower", "+2722.2%"],
  ["bifrost-medium-vs-xlarge", "gateway#1", "JSON Marshaling", "+58% slower", "+136.8%"],
  ["bifrost-medium-vs-xlarge", "gateway#1", "Response Parsing", "+81% slower", "+435.5%"],
  ["bifrost-xlarge-vs-medium", "gateway#2", "Bifrost Overhead", "11 µs", "13.9 µs"],
  // 1,312.79 MB of 4 GiB and 3,340.44 MB of 16 GiB; the page divides by 4,000 and 16,000 MB.
  ["bifrost-xlarge-vs-medium", "gateway#1", "Memory Utilization", "33%", "32.05%"],
  ["bifrost-xlarge-vs-medium", "gateway#2", "Memory Utilization", "21%", "20.39%"],
  ["bifrost-xlarge-vs-medium", "gateway#2", "Bifrost Overhead", "-81%", "−76.5%"],
  // 3,340.44 / 1,312.79 − 1 = +154.45%: rounds to +154%.
  ["bifrost-xlarge-vs-medium", "gateway#2", "Peak Memory Usage", "+155%", "+154.5%"],
  // Run 25's notes: mean latency 152,741 ms → 254,301 ms is +66.5%.
  ["chat-fixed-scaling", "chat#25", "Run 25 notes: latency vs 2 servers", "+69% latency", "+66.5%"],
  // The tuned-config summary pairs Run 8's configuration with Run 5's results.
  ["chat-tuned-summary", "chat#5", "RabbitMQ instance", "t3.micro", "t3.small"],
  ["chat-tuned-summary", "chat#8", "Peak queue depth", "~22", "20"],
  ["chat-tuned-summary", "chat#8", "Throughput", "2,077 msg/s", "2,091.67 msg/s"],
];

/** req/s per vCPU computed from the results table's rounded req/s, not from drill's figure. */
const FROM_ROUNDED_INPUTS: Known[] = [
  ["shuttle-light", "examples#1", "req/s / vCPU", "5480", "5,489 req/s/vCPU"],
  ["shuttle-light", "examples#2", "req/s / vCPU", "5500", "5,499.2 req/s/vCPU"],
  ["shuttle-light", "examples#3", "req/s / vCPU", "4272", "4,273.44 req/s/vCPU"],
  ["shuttle-light", "examples#4", "req/s / vCPU", "2234", "2,234.92 req/s/vCPU"],
  ["shuttle-medium", "examples#5", "req/s / vCPU", "1040", "1,034.4 req/s/vCPU"],
  ["shuttle-medium", "examples#6", "req/s / vCPU", "990", "989.1 req/s/vCPU"],
  ["shuttle-medium", "examples#8", "req/s / vCPU", "1066", "1,066.62 req/s/vCPU"],
];

/** Figures that cannot be checked because the run does not record what they state. */
const UNCHECKABLE: [table: string, run: string, label: string][] = [
  ["chat-tuned-summary", "chat#5", "Chat server"],
  ["chat-tuned-summary", "chat#5", "Accept mode"],
  ["chat-tuned-summary", "chat#5", "CONSUMER_RATE"],
];

const checks = PUBLISHED_TABLES.flatMap((table) =>
  checkSeedTable(table).map((check) => ({ table: table.key, ...check })),
);
const listed = (status: string): Known[] =>
  checks
    .filter((c) => c.status === status)
    .map((c) => [c.table, c.figure.runId, c.figure.label, c.figure.text, c.computedText]);

describe("published tables against computed values", () => {
  it("covers every table of the seed documents", () => {
    expect(PUBLISHED_TABLES.map((t) => t.key)).toEqual([
      "bifrost-summary",
      "bifrost-medium-vs-xlarge",
      "bifrost-xlarge-vs-medium",
      "shuttle-light",
      "shuttle-medium",
      "shuttle-heavy",
      "chat-worker-sweep",
      "chat-pool-sweep",
      "chat-two-server",
      "chat-scaling-final",
      "chat-fixed-scaling",
      "chat-tuned-summary",
    ]);
    expect(checks).toHaveLength(243);
  });

  it("counts only figures it computed: copied measurements and settings are carried as published", () => {
    const table = (key: string) => tallyPublishedChecks(checks.filter((c) => c.table === key));
    // Throughput per run, the deltas between runs: computed. Runtime, latency, pool size: copied.
    expect(publishedTallyText(table("chat-scaling-final"))).toBe(
      "11 figures computed: 11 agree; 30 carried as published",
    );
    const carried = checks.filter((c) => c.status === "carried");
    expect(carried.length).toBe(154);
    // Nothing Benchboard works out itself is ever carried.
    expect(carried.filter((c) => !["value", "config"].includes(c.figure.kind))).toEqual([]);
    expect(carried.filter((c) => c.figure.kind === "value" && DERIVED_KEYS.includes(c.figure.metric as never))).toEqual(
      [],
    );
  });

  it("finds exactly the known disagreements", () => {
    expect(listed("mismatch")).toEqual(DISAGREEMENTS);
  });

  it("finds exactly the figures derived from rounded inputs", () => {
    expect(listed("rounded")).toEqual(FROM_ROUNDED_INPUTS);
  });

  it("leaves only figures the runs cannot show unchecked", () => {
    expect(
      checks.filter((c) => c.status === "unavailable").map((c) => [c.table, c.figure.runId, c.figure.label]),
    ).toEqual(UNCHECKABLE);
  });

  it("reproduces the req/s per vCPU column where it follows from drill's figures", () => {
    const heavy = checks.filter((c) => c.table === "shuttle-heavy" && c.figure.label === "req/s / vCPU");
    expect(heavy.map((c) => [c.figure.text, c.computedText, c.status])).toEqual([
      ["18.72", "18.72 req/s/vCPU", "match"],
      ["19.18", "19.18 req/s/vCPU", "match"],
      ["19.39", "19.39 req/s/vCPU", "match"],
      ["19.4", "19.4 req/s/vCPU", "match"],
      ["14.55", "14.55 req/s/vCPU", "match"],
    ]);
  });

  it("reproduces the chat sweeps' meets-target marks and optimal rows", () => {
    const marks = checks.filter((c) => c.figure.kind === "verdict" || c.figure.kind === "best");
    expect(marks.map((c) => [c.table, c.figure.text, c.computedText, c.status])).toEqual([
      ["chat-worker-sweep", "✓", "meets thresholds", "match"],
      ["chat-worker-sweep", "✓ ← optimal", "best: #8", "match"],
      ["chat-pool-sweep", "✓", "meets thresholds", "match"],
      ["chat-pool-sweep", "✓ ← optimal so far", "best: #17", "match"],
    ]);
  });

  it("reproduces every printed throughput from messages over runtime", () => {
    const throughput = checks.filter((c) => c.figure.kind === "value" && c.figure.metric === "throughput");
    expect(throughput).toHaveLength(24);
    const off = throughput
      .filter((c) => c.status !== "match")
      .map((c) => `${c.table} ${c.figure.runId} ${c.figure.text}`);
    expect(off).toEqual(["chat-tuned-summary chat#8 2,077 msg/s"]);
  });
});

describe("transcribed runs", () => {
  it("holds the gateway's 2, the example apps' 14 and the chat log's 25 runs, each cited", () => {
    const byProject = (p: string) => PUBLISHED_RUNS.filter((r) => r.project === p).map((r) => r.number);
    expect(byProject("gateway")).toEqual([1, 2]);
    expect(byProject("examples")).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    expect(byProject("chat")).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    for (const run of PUBLISHED_RUNS) {
      // Cited by public address where the document has one, otherwise by title; never by a path.
      expect(run.cite.title.length).toBeGreaterThan(3);
      if (run.cite.url !== undefined) expect(run.cite.url).toMatch(/^https:\/\/[a-z0-9.-]+\/\S+$/);
      expect(JSON.stringify(run.cite)).not.toMatch(/shared\/seeds|\.\.\//);
      expect(run.cite.table.length).toBeGreaterThan(3);
    }
    const urls = new Set(PUBLISHED_TABLES.map((t) => t.cite.url ?? t.cite.title));
    expect(urls).toEqual(
      new Set([
        "https://www.getmaxim.ai/docs/bifrost/overview/benchmarks",
        "https://docs.getbifrost.ai/benchmarking/t3.medium",
        "https://docs.getbifrost.ai/benchmarking/t3.xl",
        "https://github.com/shuttle-hq/shuttle-examples/blob/main/_benchmarks/README.md",
        "Part 4 — System Tuning Log",
      ]),
    );
  });

  it("excludes only Run 18, with the log's reason", () => {
    const excluded = PUBLISHED_RUNS.filter((r) => r.excludedReason);
    expect(excluded.map((r) => r.key)).toEqual(["chat#18"]);
    expect(excluded[0]!.excludedReason).toMatch(/stale RabbitMQ queues/);
  });

  it("keeps drill's counts and rates consistent with each other", () => {
    for (const run of PUBLISHED_RUNS.filter((r) => r.project === "examples")) {
      const m = storedMetrics(run);
      expect(m.success! + m.failed!).toBe(m.requests);
      // req/s is printed from the unrounded time; the time is printed to 0.1 s.
      const lo = m.requests! / ((m.runtime_ms! + 50) / 1000);
      const hi = m.requests! / ((m.runtime_ms! - 50) / 1000);
      expect(m.rps).toBeGreaterThanOrEqual(lo - 0.005);
      expect(m.rps).toBeLessThanOrEqual(hi + 0.005);
    }
  });

  it("stores the gateway's stages and the chat log's measurements in the vocabulary's units", () => {
    const medium = storedMetrics(seedRun("gateway#1"));
    expect(medium["stage.queue_wait"]).toBeCloseTo(0.04713, 9);
    expect(medium["stage.key_selection"]).toBeCloseTo(0.000016, 12);
    expect(medium.latency_mean).toBe(2120);
    expect(medium.mem_peak_bytes).toBeCloseTo(1312.79 * 1024 * 1024, 3);
    const run8 = storedMetrics(seedRun("chat#8"));
    expect(run8).toMatchObject({ runtime_ms: 240_000, messages: 502_000, failed: 0, queue_depth_peak: 20 });
    expect(run8.throughput).toBeUndefined();
    expect(storedMetrics(seedRun("chat#9")).queue_depth_peak).toBe(40);
  });
});

describe("verdicts on the published runs", () => {
  const chat = PUBLISHED_PROJECTS.find((p) => p.key === "chat")!;
  const verdicts = (n: number) => {
    const run = seedRun(`chat#${n}`);
    return verdictsFor(
      storedMetrics(run),
      { config: configSnapshot(run), scenario: scenarioSnapshot(run) },
      chat.thresholds,
      approximateOf(run),
    );
  };
  const status = (n: number, metric: string) => verdicts(n).find((v) => v.metric === metric)?.status;

  it("reads run 6's unrecorded queue depth as not measured, not as a fail", () => {
    expect(storedMetrics(seedRun("chat#6")).queue_depth_peak).toBeUndefined();
    expect(status(6, "queue_depth_peak")).toBe("not_measured");
    expect(verdicts(6).map((v) => v.status)).toEqual(["not_measured", "pass", "pass"]);
  });

  it("fails 'no message loss' on runs 1 and 3, whose failed count is 0 but whose deliveries fell short", () => {
    for (const [n, lost] of [
      [1, 26_134],
      [3, 38_573],
    ] as const) {
      const v = verdicts(n).find((x) => x.metric === "message_loss")!;
      expect(storedMetrics(seedRun(`chat#${n}`)).failed).toBe(0);
      expect([v.status, v.actual]).toEqual(["fail", lost]);
    }
    expect(status(4, "message_loss")).toBe("pass");
    expect(chat.thresholds.map((t) => `${t.metric} ${t.op} ${t.value}`)).toContain("message_loss == 0");
  });

  it("judges approximate peaks across their printed range: ~35–40 and ~20 pass, ~10,000 fails", () => {
    expect(approximateOf(seedRun("chat#9"))).toEqual({ queue_depth_peak: [35, 40] });
    expect(status(9, "queue_depth_peak")).toBe("pass");
    expect(status(8, "queue_depth_peak")).toBe("pass");
    expect(status(10, "queue_depth_peak")).toBe("fail");
  });

  it("does not star 0.5 vCPU in the light-app sweep: 11,028 of its requests failed", () => {
    const table = PUBLISHED_TABLES.find((t) => t.key === "shuttle-light")!;
    const { bestRunId, rows } = judgeSeedTable(table);
    const half = PUBLISHED_RUNS.find((r) => r.label === "light @ 0.5 vCPU")!;
    expect(bestRunId).not.toBe(half.key);
    expect(PUBLISHED_RUNS.find((r) => r.key === bestRunId)!.label).toBe("light @ 0.1 vCPU");
    expect(rows.find((r) => r.runId === half.key)!.passedOver).toBe("success rate 92.64% is below 99% (11,028 failed)");
  });
});
