import type { ImportFormat } from "@benchboard/core/importers";

/** The upload form's choice of format: detection, Benchboard's own JSON, or an importer's. */
export type UploadChoice = "auto" | "native" | ImportFormat;

/**
 * Every format the server reads, with the file each wants. Typed over every importer, so a new
 * importer does not compile until the form offers it.
 */
export const UPLOAD_CHOICES: Record<UploadChoice, { label: string; hint: string }> = {
  auto: { label: "Detect from the content", hint: "Any file below; its content tells which tool wrote it." },
  native: {
    label: "Benchboard run JSON",
    hint: "A run as Benchboard writes it: a run's JSON download, or what the REST API takes.",
  },
  k6: {
    label: "k6 summary (JSON)",
    hint: "k6 --summary-export=summary.json, the data handleSummary() receives, or k6 ≥ 1.5's machine-readable summary.",
  },
  "k6-json": {
    label: "k6 results stream (--out json)",
    hint: "k6 run --out json=results.json: one JSON point per line.",
  },
  drill: { label: "drill --stats output", hint: "What drill --benchmark plan.yml --stats printed." },
  wrk: { label: "wrk / wrk2 output", hint: "wrk's or wrk2's text output; run with --latency for percentiles." },
  hey: { label: "hey output", hint: "hey's text summary, as printed." },
  ab: { label: "ab (ApacheBench) output", hint: "ab's text report, as printed." },
  vegeta: { label: "vegeta JSON report", hint: "vegeta report -type=json." },
  "vegeta-results": {
    label: "vegeta results (JSON lines)",
    hint: "vegeta attack … | vegeta encode: one JSON result per request.",
  },
  bifrost: {
    label: "bifrost-benchmarking results.json",
    hint: "The benchmark's results.json, keyed by provider; pick the provider below when it holds several.",
  },
  oha: { label: "oha JSON output", hint: "oha --output-format json (formerly --json)." },
  gatling: { label: "Gatling stats.json", hint: "js/stats.json from a simulation's report directory." },
  jmeter: { label: "JMeter results (.jtl CSV)", hint: "JMeter's JTL results in CSV, with its header line." },
};

/** In the order the form lists them: detection and the native JSON first, then the tools. */
export const UPLOAD_CHOICE_ORDER: UploadChoice[] = [
  "auto",
  "native",
  "k6",
  "k6-json",
  "drill",
  "wrk",
  "hey",
  "ab",
  "vegeta",
  "vegeta-results",
  "oha",
  "gatling",
  "jmeter",
  "bifrost",
];
