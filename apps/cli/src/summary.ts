import { formatDeltaPct, formatMetric, MIN_NOISE_RUNS, mean, metricDef, sampleVariance } from "@benchboard/core";
import {
  compareOutcome,
  type TCompareOutcome,
  type TCompareResult,
  type TRun,
  type TThresholdStatus,
  type TThresholds,
} from "./api-types";

/**
 * Markdown for a CI job page (GitHub's step summary, a GitLab job log): what was compared, the
 * verdict up front, the metric table, the thresholds and why the gate failed.
 */

/** Text safe inside a Markdown table cell. */
function cell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

/** Text safe as a Markdown link's text, inside a table cell too. */
function linkText(text: string): string {
  return cell(text).replace(/[[\]]/g, "\\$&");
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

/**
 * A run as every line of the CLI names it: the title the web app gives it, which says the load
 * that ran ("Run #24 · 400 req/s · 20 s · rate = 400 (value 3 of 4)"); "Run #24" from a server
 * that sends no title.
 */
export function runName(run: Pick<TRun, "number" | "title">): string {
  return run.title?.trim() || `Run #${run.number}`;
}

/** What the title says beyond the run's number ("400 req/s · 20 s · t3.xlarge"), or null. */
export function runIdentityText(run: Pick<TRun, "number" | "title">): string | null {
  const rest = runName(run)
    .replace(/^Run #\d+(?: · )?/, "")
    .trim();
  return rest || null;
}

/**
 * The run's name with its scenario, unless the title is the scenario's name already (a run
 * whose load is unknown is titled by its scenario): "Run #3 · 200 req/s · 20 s (scenario checkout)".
 */
export function runNameWithScenario(run: Pick<TRun, "number" | "title" | "scenario">, extra?: string): string {
  const identity = runIdentityText(run);
  const inside = [extra, identity === run.scenario.name ? undefined : `scenario ${run.scenario.name}`].filter(Boolean);
  return inside.length ? `${runName(run)} (${inside.join(", ")})` : runName(run);
}

type RunRef = Pick<TRun, "number" | "url" | "git" | "title">;

function describeRun(run: RunRef): string {
  const parts = [`[${linkText(runName(run))}](${run.url})`];
  if (run.git.branch) parts.push(code(run.git.branch));
  if (run.git.commit) parts.push(`@ ${code(run.git.commit.slice(0, 10))}`);
  return parts.join(" ");
}

const VERDICT_TEXT: Record<TCompareResult["metrics"][number]["verdict"], string> = {
  regressed: "❌ regressed",
  improved: "improved",
  unchanged: "unchanged",
  noise: "within noise",
  inconclusive: "⚠️ can't tell (noise unknown)",
  incomparable: "⚠️ not comparable",
};

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

type Verdict = TThresholds["verdicts"][number];

/** A verdict's three-state status; servers that predate it send only `passed` and `actual`. */
export function verdictStatus(v: Verdict): TThresholdStatus {
  if (v.status) return v.status;
  if (v.actual === null) return "not_measured";
  return v.passed ? "pass" : "fail";
}

const STATUS_MARK: Record<TThresholdStatus, string> = { pass: "✅", fail: "❌", not_measured: "⚠️ not measured:" };

/** Bullet lines for every threshold, Benchboard's then the tool's; empty when there are none. */
export function thresholdLines(thresholds: TThresholds): string[] {
  const lines = thresholds.verdicts.map((v) => {
    const actual = v.actual === null ? "not measured" : formatMetric(v.metric, v.actual);
    const note = v.note ? `; ${v.note}` : "";
    return `- ${STATUS_MARK[verdictStatus(v)]} ${metricDef(v.metric).label} ${v.op} ${formatMetric(v.metric, v.value)} (${actual}; ${v.source} threshold${note})`;
  });
  for (const v of thresholds.tool) {
    lines.push(`- ${v.passed ? "✅" : "❌"} ${code(v.metric)} ${code(v.expression)} (the load tool's own threshold)`);
  }
  return lines;
}

function failedThresholdCount(thresholds: TThresholds): number {
  return (
    thresholds.verdicts.filter((v) => verdictStatus(v) === "fail").length +
    thresholds.tool.filter((v) => !v.passed).length
  );
}

function notMeasuredCount(thresholds: TThresholds): number {
  return thresholds.verdicts.filter((v) => verdictStatus(v) === "not_measured").length;
}

/** Thresholds that judged the run (passed or failed); one it did not measure judged nothing. */
export function judgedThresholdCount(thresholds: TThresholds | null | undefined): number {
  if (!thresholds) return 0;
  return thresholds.verdicts.filter((v) => verdictStatus(v) !== "not_measured").length + thresholds.tool.length;
}

type CompareMetric = TCompareResult["metrics"][number];

/** The noise band's edge on the metric's worse side: where a regression would have to go. */
function noiseEdge(m: CompareMetric, direction: "lower" | "higher" | "neutral"): string {
  if (!m.noise || direction === "neutral") return "—";
  return direction === "lower" ? `≤ ${formatMetric(m.key, m.noise.high)}` : `≥ ${formatMetric(m.key, m.noise.low)}`;
}

/** What head was judged against, in words: "the last 5 runs of `main`" or "base #12". */
function baselineText(result: TCompareResult): string {
  const b = result.baseline;
  if (!b?.branch) return `base ${describeRun(result.base)}`;
  if (b.runs.length === 1) return `the last run of ${code(b.branch)}, ${describeRun(result.base)}`;
  const numbers = b.runs.map((r) => `#${r.number}`);
  const span = `${numbers[0]}–${numbers.at(-1)}`;
  return `the last ${plural(b.runs.length, "run")} of ${code(b.branch)} (${span}, newest ${describeRun(result.base)})`;
}

/**
 * Baseline runs too few to estimate their noise from, or null when the noise was estimated. The
 * noise gate then judged by the tolerance alone: a metric within it passes (a regression must be
 * beyond both), one beyond it is inconclusive. The summary says which was done, never more.
 */
function noiseUnknownFrom(result: TCompareResult): number | null {
  const runs = result.baseline?.runs.length ?? 1;
  return runs < MIN_NOISE_RUNS ? runs : null;
}

/** The rule a metric was judged by, in one sentence. */
function ruleText(result: TCompareResult): string {
  const alpha = result.alpha ?? 0.01;
  const noise = `beyond the baseline's noise (a bound one more run of the baseline passes ${alpha === 0.01 ? "1 time in 100" : `with probability ${alpha}`})`;
  const center = (result.baseline?.runs.length ?? 1) > 1 ? "the baseline's median" : "the base run";
  // Servers before the noise gate send no `gate` or judge by the tolerance.
  const gate = result.gate ?? "tolerance";
  const unknown = noiseUnknownFrom(result);
  if (gate === "statistical") return `A regression is ${noise}.`;
  if (gate !== "noise") return `A regression is worse than ${center} by more than ±${result.tolerancePct}%.`;
  if (unknown !== null) {
    return `A regression is worse than ${center} by more than ±${result.tolerancePct}% and ${noise}; ${plural(unknown, "run")} cannot show that noise (${MIN_NOISE_RUNS} needed), so a change beyond ±${result.tolerancePct}% is inconclusive.`;
  }
  return `A regression is worse than ${center} by more than ±${result.tolerancePct}% and ${noise}.`;
}

function headlineOf(result: TCompareResult, outcome: TCompareOutcome): string {
  if (outcome === "pass") {
    const gate = result.gate ?? "tolerance";
    const unknown = gate === "noise" ? noiseUnknownFrom(result) : null;
    const against =
      gate !== "noise" && gate !== "statistical"
        ? `beyond ±${result.tolerancePct}%`
        : gate === "statistical"
          ? "beyond the baseline's noise"
          : unknown !== null
            ? `beyond ±${result.tolerancePct}%`
            : `beyond ±${result.tolerancePct}% and the baseline's noise`;
    const notEstimated = unknown !== null ? `the baseline's noise not estimated from ${plural(unknown, "run")}` : null;
    const runs = result.baseline?.branch
      ? `${plural(result.baseline.runs.length, "run")} of ${result.baseline.branch}`
      : null;
    const detail = [runs, notEstimated].filter(Boolean).join("; ");
    return `## ✅ Benchboard: no regression ${against}${detail ? ` (${detail})` : ""}`;
  }
  if (outcome === "inconclusive") {
    const b = result.baseline;
    const short = b?.branch && b.runs.length < b.required && (result.gate ?? "tolerance") !== "tolerance";
    const why = short
      ? `${b.runs.length} of ${b.required} baseline runs`
      : (result.inconclusiveReasons?.[0] ?? "the gate could not judge");
    return `## ⚠️ Benchboard: inconclusive, ${why}`;
  }
  const failedThresholds = failedThresholdCount(result.thresholds);
  const notMeasured = notMeasuredCount(result.thresholds);
  const problems: string[] = [];
  if (result.valid === false) problems.push("head run not valid");
  if (result.regressed.length) problems.push(plural(result.regressed.length, "regression"));
  if (failedThresholds) problems.push(plural(failedThresholds, "failed threshold"));
  if (notMeasured) problems.push(`${plural(notMeasured, "threshold")} not measured`);
  if (result.head.status !== "succeeded") problems.push(`head run ${result.head.status}`);
  return `## ❌ Benchboard: ${problems.join(", ") || "gate failed"}`;
}

export function compareMarkdown(result: TCompareResult): string {
  const outcome = compareOutcome(result);
  const lines = [
    headlineOf(result, outcome),
    "",
    `**${result.head.scenario.name}** in ${result.head.project.name}: head ${describeRun(result.head)} against ${baselineText(result)}. ${ruleText(result)}`,
    "",
  ];
  if (result.metrics.length) {
    const many = (result.baseline?.runs.length ?? 1) > 1;
    lines.push(
      `| Metric | ${many ? "Base (median)" : "Base"} | Head | Change | Noise bound | Verdict |`,
      "| --- | ---: | ---: | ---: | ---: | --- |",
    );
    for (const m of result.metrics) {
      const direction = metricDef(m.key).direction;
      // An incomparable metric says which side lacks it; the rest explain themselves below the table.
      const verdict =
        m.note && m.verdict === "incomparable" ? `${VERDICT_TEXT[m.verdict]}: ${m.note}` : VERDICT_TEXT[m.verdict];
      lines.push(
        `| ${cell(m.label)} | ${formatMetric(m.key, m.base)} | ${formatMetric(m.key, m.head)} | ${formatDeltaPct(m.delta)} | ${noiseEdge(m, direction)} | ${cell(verdict)} |`,
      );
    }
  } else {
    lines.push("_Neither side has a metric to compare._");
  }
  if (result.valid === false) {
    lines.push(
      "",
      `> ⚠️ Head is not a valid measurement: ${result.invalidReasons?.join("; ") || "flagged by the engine"}`,
    );
  } else if (result.head.reading === "saturated") {
    lines.push("", saturatedNote("Head", result.head.saturation));
  }
  const changes = changePointLines(result);
  if (changes.length) lines.push("", "**Change points in head's history**", "", ...changes);
  const thresholds = thresholdLines(result.thresholds);
  if (thresholds.length) lines.push("", "**Thresholds of the head run**", "", ...thresholds);
  if (result.reasons.length) lines.push("", "**Why the gate failed**", "", ...result.reasons.map((r) => `- ${r}`));
  const unjudged = result.inconclusiveReasons ?? [];
  if (unjudged.length) lines.push("", "**Why the gate could not judge**", "", ...unjudged.map((r) => `- ${r}`));
  return `${lines.join("\n")}\n`;
}

/** "Latency p99: change point at run 20, +15.2 %", one line per metric with a change point. */
export function changePointLines(result: Pick<TCompareResult, "changePoints">): string[] {
  return (result.changePoints ?? []).map(
    (c) =>
      `- ${c.label}: change point at run ${c.runNumber}, ${c.change === null ? "from 0" : formatDeltaPct(c.change).replace("%", " %")} (p = ${c.pValue.toPrecision(2)})`,
  );
}

const RUN_METRICS = [
  "requests",
  "rps",
  "completed_rps",
  "throughput",
  "success_rate",
  "latency_p50",
  "latency_p99",
  "latency_max",
  "ttft_p50",
  "ttft_p99",
  "itl_p50",
  "itl_p99",
  "tokens_per_s",
  "tokens_per_s_total",
];

export interface GateOptions {
  /** A threshold whose metric the run did not measure does not fail the gate. */
  allowNotMeasured?: boolean;
  /** A run the engine flagged invalid does not fail the gate. */
  allowInvalid?: boolean;
}

/** Whether a finished run passes a gate on its own, and why not, one line each. */
export function runGate(run: TRun, options: GateOptions = {}): { passed: boolean; reasons: string[] } {
  const reasons: string[] = [];
  if (run.status !== "succeeded") reasons.push(`run #${run.number} ${run.status}${run.error ? `: ${run.error}` : ""}`);
  if (run.valid === false && !options.allowInvalid) {
    reasons.push(
      `run #${run.number} is not a valid measurement${run.invalidReasons?.length ? `: ${run.invalidReasons.join("; ")}` : ""}`,
    );
  }
  for (const v of run.thresholds?.verdicts ?? []) {
    const status = verdictStatus(v);
    const what = `${metricDef(v.metric).label} ${v.op} ${formatMetric(v.metric, v.value)}`;
    if (status === "fail")
      reasons.push(`run #${run.number} failed threshold ${what} (was ${formatMetric(v.metric, v.actual)})`);
    else if (status === "not_measured" && !options.allowNotMeasured) {
      const hint = notMeasuredHint(run.source, v.metric);
      reasons.push(`run #${run.number} did not measure threshold ${what}${hint ? `: ${hint}` : ""}`);
    }
  }
  for (const v of run.thresholds?.tool ?? []) {
    if (!v.passed) reasons.push(`run #${run.number} failed the tool's threshold ${v.metric}: ${v.expression}`);
  }
  return { passed: reasons.length === 0, reasons };
}

/**
 * How to get a metric the uploaded output lacked, when the tool can give it. k6's summary
 * (`--summary-export`, `handleSummary`) keeps only the percentiles named in
 * `--summary-trend-stats`, which by default stop at p(95).
 */
export function notMeasuredHint(source: string, metric: string): string | undefined {
  const percentile = /^latency_p(\d+)$/.exec(metric)?.[1];
  if (source !== "import:k6" || percentile === undefined || percentile === "50") return undefined;
  const stat = `p(${percentile.length > 2 ? `${percentile.slice(0, 2)}.${percentile.slice(2)}` : percentile})`;
  return `k6's summary only has the percentiles of --summary-trend-stats (by default up to p(95)): run k6 with --summary-trend-stats "avg,min,med,max,p(90),p(95),${stat}", or upload its --out json stream, which has every request`;
}

/**
 * One run on its own: its status, headline metrics and thresholds (a gate without a baseline).
 * `headline` replaces the verdict line of a run that passed (an inconclusive gate's), and
 * `unjudged` lists why the gate could not judge it.
 */
export function runMarkdown(
  run: TRun,
  note?: string,
  options: GateOptions = {},
  extra: { headline?: string; unjudged?: readonly string[] } = {},
): string {
  const failed = run.thresholds ? failedThresholdCount(run.thresholds) : 0;
  const notMeasured = run.thresholds ? notMeasuredCount(run.thresholds) : 0;
  const ok = runGate(run, options).passed;
  const problems = [
    ...(run.status !== "succeeded" ? [`run ${run.status}`] : []),
    ...(run.valid === false ? ["run not valid"] : []),
    ...(failed ? [plural(failed, "failed threshold")] : []),
    ...(notMeasured ? [`${plural(notMeasured, "threshold")} not measured`] : []),
  ];
  const allowed = problems.length ? ` (${problems.join(", ")}: allowed)` : "";
  const lines = [
    ok && extra.headline
      ? extra.headline
      : !ok
        ? `## ❌ Benchboard: ${problems.join(", ")}`
        : judgedThresholdCount(run.thresholds) === 0
          ? // No ✅ for a run no threshold judged: it ended, and that is all that is known.
            `## Benchboard: run ${run.status}, no thresholds judged it${allowed}`
          : `## ✅ Benchboard: run passed its thresholds${allowed}`,
    "",
    `**${run.scenario.name}** in ${run.project.name}: ${describeRun(run)} (${run.source}).`,
  ];
  if (note) lines.push("", note);
  if (run.error) lines.push("", `> ${run.error.replace(/\n/g, " ")}`);
  if (run.valid === false) {
    lines.push("", `> ⚠️ Not a valid measurement: ${run.invalidReasons?.join("; ") || "flagged by the engine"}`);
  } else if (run.reading === "saturated") {
    lines.push("", saturatedNote("The run", run.saturation));
  }
  const metrics = run.result?.metrics ?? {};
  const shown = RUN_METRICS.filter((k) => k in metrics);
  if (shown.length) {
    lines.push("", "| Metric | Value |", "| --- | ---: |");
    for (const key of shown) lines.push(`| ${metricDef(key).label} | ${formatMetric(key, metrics[key])} |`);
  }
  const thresholds = run.thresholds ? thresholdLines(run.thresholds) : [];
  if (thresholds.length) lines.push("", "**Thresholds**", "", ...thresholds);
  if (extra.unjudged?.length) {
    lines.push("", "**Why the gate could not judge**", "", ...extra.unjudged.map((r) => `- ${r}`));
  }
  return `${lines.join("\n")}\n`;
}

/** Whether a finished run passes a gate on its own: it succeeded, is valid and every threshold passed. */
export function runPasses(run: TRun, options: GateOptions = {}): boolean {
  return runGate(run, options).passed;
}

/** The group's figures for one metric: over the runs that count (succeeded and valid). */
export interface GroupMetric {
  key: string;
  n: number;
  mean: number;
  /** Sample standard deviation; null with a single value. */
  sd: number | null;
  min: number;
  max: number;
}

/** Whether a run's figures belong in its group's mean: it succeeded and is a valid measurement. */
function counts(run: TRun): boolean {
  return run.status === "succeeded" && run.valid !== false;
}

/** Mean and spread of each headline metric across a repetition group's counting runs. */
export function groupMetrics(runs: readonly TRun[]): GroupMetric[] {
  const counted = runs.filter(counts);
  const out: GroupMetric[] = [];
  for (const key of RUN_METRICS) {
    const values = counted
      .map((r) => r.result?.metrics[key])
      .filter((v): v is number => typeof v === "number" && Number.isFinite(v));
    if (values.length === 0) continue;
    out.push({
      key,
      n: values.length,
      mean: mean(values),
      sd: values.length > 1 ? Math.sqrt(sampleVariance(values)) : null,
      min: Math.min(...values),
      max: Math.max(...values),
    });
  }
  return out;
}

/** The group side by side on the compare page (its first ten runs), built from a run's address. */
export function groupLink(runs: readonly Pick<TRun, "id" | "url">[]): string | null {
  const first = runs[0];
  if (!first) return null;
  const at = first.url.lastIndexOf("/runs/");
  if (at < 0) return null;
  return `${first.url.slice(0, at)}/compare?runs=${runs
    .slice(0, 10)
    .map((r) => encodeURIComponent(r.id))
    .join(",")}`;
}

/**
 * A repetition group once every run has ended: the verdict over the group up front, the mean and
 * spread of the headline metrics (failed and invalid runs left out of them, and said so), each
 * run's verdict, and a link to the group side by side.
 */
export function groupMarkdown(runs: readonly TRun[], options: GateOptions = {}): string {
  const judged = runs.map((run) => ({ run, ...runGate(run, options) }));
  const failing = judged.filter((j) => !j.passed);
  const first = runs[0]!;
  const lines = [
    failing.length > 0
      ? `## ❌ Benchboard: ${failing.length} of ${runs.length} repetitions failed the gate`
      : runs.every((r) => judgedThresholdCount(r.thresholds) === 0)
        ? // No ✅ where no threshold judged a run: they ended, and that is all that is known.
          `## Benchboard: all ${runs.length} repetitions ended, no thresholds judged them`
        : `## ✅ Benchboard: all ${runs.length} repetitions passed`,
    "",
    `**${first.scenario.name}** in ${first.project.name}: ${runs.length} repetitions, ${runs.map((r) => `[#${r.number}](${r.url})`).join(", ")}.`,
  ];
  const link = groupLink(runs);
  if (link) lines.push("", `Side by side: ${link}`);
  const left = runs.filter((r) => !counts(r));
  const metrics = groupMetrics(runs);
  if (metrics.length) {
    lines.push(
      "",
      `**Across the group** (${plural(runs.length - left.length, "run")}${left.length ? `; left out: ${left.map((r) => `#${r.number} (${r.status !== "succeeded" ? r.status : "not valid"})`).join(", ")}` : ""})`,
      "",
      "| Metric | Mean | ± SD | CV | Min | Max |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
    );
    for (const m of metrics) {
      const cv = m.sd !== null && m.mean !== 0 ? `${((m.sd / Math.abs(m.mean)) * 100).toFixed(1)} %` : "—";
      lines.push(
        `| ${metricDef(m.key).label} | ${formatMetric(m.key, m.mean)} | ${m.sd === null ? "—" : formatMetric(m.key, m.sd)} | ${cv} | ${formatMetric(m.key, m.min)} | ${formatMetric(m.key, m.max)} |`,
      );
    }
  } else {
    lines.push("", "No run of the group has figures to average.");
  }
  lines.push("", "| Run | Status | Verdict |", "| --- | --- | --- |");
  for (const { run, passed, reasons } of judged) {
    const status = run.valid === false ? `${run.status}, ⚠️ not valid` : run.status;
    const verdict = passed
      ? run.valid === false
        ? "✅ passed (not valid: allowed)"
        : "✅ passed"
      : `❌ ${reasons.map((r) => r.replace(`run #${run.number} `, "")).join("; ")}`;
    lines.push(`| [${linkText(runName(run))}](${run.url}) | ${status} | ${cell(verdict)} |`);
  }
  return `${lines.join("\n")}\n`;
}

/** A saturated run is a valid measurement of the target at its limit: said, never as a fault. */
function saturatedNote(who: string, saturation: string | null | undefined): string {
  return `> ℹ️ ${who} ${saturation ?? "saturated"}: the target was the limit; the figures are a valid measurement of it.`;
}
