import { count, type Fig, fig, ms, rate, valueFigure } from "./figures";
import type { SeedProject, SeedRun, SeedTable, SourceDocument } from "./types";

/**
 * Three example apps (light, medium, heavy) benchmarked with drill 0.8.2 at container CPU limits,
 * from the `_benchmarks` README of the shuttle-examples repository (2024-02-15, deployer v0.39.0).
 */
const FILE: SourceDocument = {
  title: "Shuttle Example project benchmarks",
  url: "https://github.com/shuttle-hq/shuttle-examples/blob/main/_benchmarks/README.md",
  // "General info › Date: 2024-02-15"; the Bifrost pages and the tuning log state no date.
  date: "2024-02-15",
};

export const examplesProject: SeedProject = {
  key: "examples",
  slug: "example-apps",
  name: "Example apps (Shuttle)",
  description: "HTTP example apps measured with drill at container CPU limits from 0.05 to 4 vCPU (published results).",
  thresholds: [],
};

interface DrillFullResult {
  vcpu: number;
  time: string;
  total: string;
  successful: string;
  failed: string;
  rps: string;
  median: string;
  average: string;
  stddev: string;
  p99: string;
  p995: string;
  p999: string;
  /** The summary table's rounded req/s and req/s per vCPU. */
  table: { rps: string; perVcpu: string };
}

interface App {
  key: "light" | "medium" | "heavy";
  test: string;
  scenario: string;
  plan: string;
  results: DrillFullResult[];
}

const r = (
  vcpu: number,
  time: string,
  total: string,
  successful: string,
  failed: string,
  rps: string,
  median: string,
  average: string,
  stddev: string,
  p99: string,
  p995: string,
  p999: string,
  table: [string, string],
): DrillFullResult => ({
  vcpu,
  time,
  total,
  successful,
  failed,
  rps,
  median,
  average,
  stddev,
  p99,
  p995,
  p999,
  table: { rps: table[0], perVcpu: table[1] },
});

const APPS: App[] = [
  {
    key: "light",
    test: "Test 1: Small static file server",
    scenario: "light: static files (axum-static-files.yml)",
    plan: "axum-static-files.yml",
    results: [
      r(0.05, "546.5", "150000", "150000", "0", "274.45", "45ms", "58ms", "67ms", "299ms", "301ms", "498ms", [
        "274",
        "5480",
      ]),
      r(0.1, "272.8", "150000", "150000", "0", "549.92", "4ms", "29ms", "37ms", "99ms", "99ms", "105ms", [
        "550",
        "5500",
      ]),
      r(0.25, "140.4", "150000", "145391", "4609", "1068.36", "5ms", "14ms", "18ms", "52ms", "54ms", "61ms", [
        "1068",
        "4272",
      ]),
      r(0.5, "134.2", "150000", "138972", "11028", "1117.46", "4ms", "12ms", "18ms", "51ms", "53ms", "57ms", [
        "1117",
        "2234",
      ]),
    ],
  },
  {
    key: "medium",
    test: "Test 2: SaaS fullstack template database call with 500 users",
    scenario: "medium: 500 customers from Postgres (saas-template.yml)",
    plan: "saas-template.yml",
    results: [
      r(0.05, "193.3", "10000", "10000", "0", "51.72", "301ms", "308ms", "63ms", "401ms", "498ms", "500ms", [
        "52",
        "1040",
      ]),
      r(0.1, "101.1", "10000", "10000", "0", "98.91", "195ms", "160ms", "51ms", "299ms", "299ms", "301ms", [
        "99",
        "990",
      ]),
      r(0.25, "38.0", "10000", "10000", "0", "262.92", "78ms", "57ms", "34ms", "99ms", "100ms", "104ms", [
        "263",
        "1052",
      ]),
      r(0.5, "18.8", "10000", "10000", "0", "533.31", "18ms", "26ms", "17ms", "64ms", "66ms", "72ms", ["533", "1066"]),
      r(1, "12.9", "10000", "10000", "0", "774.70", "16ms", "17ms", "3ms", "25ms", "26ms", "35ms", ["775", "775"]),
    ],
  },
  {
    key: "heavy",
    test: "Test 3: Image processing",
    scenario: "heavy: image resize (salvo-image-rescaler.yml)",
    plan: "salvo-image-rescaler.yml",
    results: [
      r(0.25, "427.0", "2000", "2000", "0", "4.68", "807ms", "853ms", "380ms", "1810ms", "2007ms", "2310ms", [
        "4.68",
        "18.72",
      ]),
      r(0.5, "208.6", "2000", "2000", "0", "9.59", "408ms", "416ms", "172ms", "803ms", "893ms", "999ms", [
        "9.59",
        "19.18",
      ]),
      r(1, "103.2", "2000", "2000", "0", "19.39", "208ms", "206ms", "86ms", "393ms", "397ms", "412ms", [
        "19.39",
        "19.39",
      ]),
      r(2, "51.5", "2000", "2000", "0", "38.80", "108ms", "102ms", "42ms", "191ms", "197ms", "216ms", ["38.8", "19.4"]),
      r(4, "34.4", "2000", "2000", "0", "58.18", "75ms", "68ms", "27ms", "132ms", "137ms", "145ms", ["58.18", "14.55"]),
    ],
  },
];

const seconds = (text: string): Fig => {
  const f = fig(text, "count");
  return { text: `${text} seconds`, value: f.value * 1000, step: f.step * 1000 };
};

function toRun(app: App, res: DrillFullResult, number: number): SeedRun {
  const requests = count(res.total);
  const success = count(res.successful);
  const successRate = (success.value / requests.value) * 100;
  return {
    key: `examples#${number}`,
    project: "examples",
    number,
    label: `${app.key} @ ${res.vcpu} vCPU`,
    cite: { ...FILE, table: `${app.test} › Full results › vCPU Limit: ${res.vcpu}` },
    scenario: {
      name: app.scenario,
      engine: "http-closed",
      spec: {
        engine: "http-closed",
        requests: requests.value,
        plan: app.plan,
        tool: "drill 0.8.2 --stats --benchmark",
      },
    },
    config: {
      name: `CPU limit ${res.vcpu} vCPU`,
      cpuLimit: res.vcpu,
      replicas: 1,
      // The methodology sets the quota with `docker container update --cpu-quota=N` (100000 = one core).
      knobs: { cpu_quota: Math.round(res.vcpu * 100_000) },
    },
    metrics: {
      runtime_ms: seconds(res.time),
      requests,
      success,
      failed: count(res.failed),
      // Computed from the counts drill prints, to the precision it prints them.
      success_rate: { text: `${success.value} of ${requests.value}`, value: successRate, step: 0 },
      rps: rate(res.rps),
      latency_p50: ms(res.median),
      latency_mean: ms(res.average),
      latency_stddev: ms(res.stddev),
      latency_p99: ms(res.p99),
      latency_p995: ms(res.p995),
      latency_p999: ms(res.p999),
    },
    printed: {},
    notes: `Imported from drill's --stats output (${app.plan}, deployer v0.39.0, 2024-02-15).`,
    tags: ["published", app.key],
  };
}

let next = 1;
const runsByApp = APPS.map((app) => ({ app, runs: app.results.map((res) => ({ res, run: toRun(app, res, next++) })) }));

export const examplesRuns: SeedRun[] = runsByApp.flatMap((a) => a.runs.map((x) => x.run));

export const examplesTables: SeedTable[] = runsByApp.map(({ app, runs }) => ({
  key: `shuttle-${app.key}`,
  kind: "sweep" as const,
  project: "examples" as const,
  title: `${app.key[0]!.toUpperCase()}${app.key.slice(1)} app across vCPU limits`,
  cite: { ...FILE, table: `${app.test} › Results` },
  runs: runs.map((x) => x.run.key),
  sweep: { parameter: "config.cpuLimit", metric: "rps", owns: runs.map((x) => x.run.key) },
  figures: runs.flatMap(({ res, run }) => [
    valueFigure("req/s", run.key, "rps", rate(res.table.rps)),
    valueFigure("req/s / vCPU", run.key, "rps_per_vcpu", rate(res.table.perVcpu)),
  ]),
}));
