import { formatDeltaPct, formatMetric, metricDef } from "@benchboard/core";
import type { TCompareResult, TRun, TThresholds } from "./api-types";

/**
 * Markdown for a CI job page (GitHub's step summary, a GitLab job log): what was compared, the
 * verdict up front, the metric table, the thresholds and why the gate failed.
 */

/** Text safe inside a Markdown table cell. */
function cell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

type RunRef = Pick<TRun, "number" | "url" | "git">;

function describeRun(run: RunRef): string {
  const parts = [`[#${run.number}](${run.url})`];
  if (run.git.branch) parts.push(code(run.git.branch));
  if (run.git.commit) parts.push(`@ ${code(run.git.commit.slice(0, 10))}`);
  return parts.join(" ");
}

const VERDICT_TEXT: Record<TCompareResult["metrics"][number]["verdict"], string> = {
  regressed: "❌ regressed",
  improved: "✅ improved",
  unchanged: "unchanged",
  incomparable: "not comparable",
};

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Bullet lines for every threshold, Benchboard's then the tool's; empty when there are none. */
export function thresholdLines(thresholds: TThresholds): string[] {
  const lines = thresholds.verdicts.map((v) => {
    const actual = v.actual === null ? "not measured" : formatMetric(v.metric, v.actual);
    return `- ${v.passed ? "✅" : "❌"} ${metricDef(v.metric).label} ${v.op} ${formatMetric(v.metric, v.value)} (${actual}; ${v.source} threshold)`;
  });
  for (const v of thresholds.tool) {
    lines.push(`- ${v.passed ? "✅" : "❌"} ${code(v.metric)} ${code(v.expression)} (the load tool's own threshold)`);
  }
  return lines;
}

function failedThresholdCount(thresholds: TThresholds): number {
  return thresholds.verdicts.filter((v) => !v.passed).length + thresholds.tool.filter((v) => !v.passed).length;
}

export function compareMarkdown(result: TCompareResult): string {
  const failedThresholds = failedThresholdCount(result.thresholds);
  const problems: string[] = [];
  if (result.regressed.length) problems.push(plural(result.regressed.length, "regression"));
  if (failedThresholds) problems.push(plural(failedThresholds, "failed threshold"));
  if (result.head.status !== "succeeded") problems.push(`head run ${result.head.status}`);
  const headline = result.passed
    ? `## ✅ Benchboard: no regression beyond ±${result.tolerancePct}%`
    : `## ❌ Benchboard: ${problems.join(", ") || "gate failed"}`;
  const lines = [
    headline,
    "",
    `**${result.head.scenario.name}** in ${result.head.project.name}: head ${describeRun(result.head)} against base ${describeRun(result.base)}, tolerance ±${result.tolerancePct}%.`,
    "",
  ];
  if (result.metrics.length) {
    lines.push("| Metric | Base | Head | Change | Verdict |", "| --- | ---: | ---: | ---: | --- |");
    for (const m of result.metrics) {
      lines.push(
        `| ${cell(m.label)} | ${formatMetric(m.key, m.base)} | ${formatMetric(m.key, m.head)} | ${formatDeltaPct(m.delta)} | ${VERDICT_TEXT[m.verdict]} |`,
      );
    }
  } else {
    lines.push("_Neither run has a metric to compare._");
  }
  const thresholds = thresholdLines(result.thresholds);
  if (thresholds.length) lines.push("", "**Thresholds of the head run**", "", ...thresholds);
  if (result.reasons.length) lines.push("", "**Why the gate failed**", "", ...result.reasons.map((r) => `- ${r}`));
  return `${lines.join("\n")}\n`;
}

const RUN_METRICS = ["requests", "rps", "throughput", "success_rate", "latency_p50", "latency_p99", "latency_max"];

/** One run on its own: its status, headline metrics and thresholds (a gate without a baseline). */
export function runMarkdown(run: TRun, note?: string): string {
  const failed = run.thresholds ? failedThresholdCount(run.thresholds) : 0;
  const ok = run.status === "succeeded" && failed === 0;
  const problems = [
    ...(run.status !== "succeeded" ? [`run ${run.status}`] : []),
    ...(failed ? [plural(failed, "failed threshold")] : []),
  ];
  const lines = [
    ok ? "## ✅ Benchboard: run passed its thresholds" : `## ❌ Benchboard: ${problems.join(", ")}`,
    "",
    `**${run.scenario.name}** in ${run.project.name}: ${describeRun(run)} (${run.source}).`,
  ];
  if (note) lines.push("", note);
  if (run.error) lines.push("", `> ${run.error.replace(/\n/g, " ")}`);
  const metrics = run.result?.metrics ?? {};
  const shown = RUN_METRICS.filter((k) => k in metrics);
  if (shown.length) {
    lines.push("", "| Metric | Value |", "| --- | ---: |");
    for (const key of shown) lines.push(`| ${metricDef(key).label} | ${formatMetric(key, metrics[key])} |`);
  }
  const thresholds = run.thresholds ? thresholdLines(run.thresholds) : [];
  if (thresholds.length) lines.push("", "**Thresholds**", "", ...thresholds);
  return `${lines.join("\n")}\n`;
}

/** Whether a finished run passes a gate on its own: it succeeded and every threshold passed. */
export function runPasses(run: TRun): boolean {
  return run.status === "succeeded" && (run.thresholds?.passed ?? true);
}
