"use client";

import type { RouterOutputs } from "@benchboard/api";
import { formatDurationMs, formatMetric, metricDef, THRESHOLD_STATUS_TEXT } from "@benchboard/core";
import { Card, cx, Skeleton } from "@benchboard/ui";
import { HistogramChart } from "@benchboard/ui/charts/histogram-chart";
import { PublishedFiguresCard } from "~/app/_components/published-figures-card";
import { GeneratorFigures } from "./generator-figures";
import { LlmLatency } from "./llm-latency";
import { ResponsesCard } from "./responses-card";
import { RunNotices } from "./run-notices";
import { StageBreakdown } from "./stage-breakdown";
import { SummaryCard } from "./summary-card";
import { Timeline } from "./timeline";

type View = RouterOutputs["run"]["view"];
type Chart = RouterOutputs["run"]["chart"];

const PERCENTILE_KEYS = [
  "latency_min",
  "latency_mean",
  "latency_p50",
  "latency_p90",
  "latency_p95",
  "latency_p99",
  "latency_p995",
  "latency_p999",
  "latency_max",
  "latency_stddev",
];

const BASE_CARDS = ["requests", "success_rate", "failed", "rps", "latency_p50", "latency_p99"];

/** Further cards, after the six a launched run always has. */
const OPTIONAL_CARDS = [
  "completed_rps",
  "target_rps",
  "throughput",
  "messages",
  "expected_deliveries",
  "lost_deliveries",
  "runtime_ms",
  "rps_per_vcpu",
  "gateway_overhead",
  "mem_peak_bytes",
  "mem_utilization",
  "queue_depth_peak",
  "failed_connections",
];

const STATUS_STYLE = {
  pass: "text-emerald-700",
  fail: "text-rose-700",
  not_measured: "text-amber-700",
} as const;

/**
 * A finished run's results. The same component renders the run page and a public share link,
 * so the link shows what the owner sees.
 */
export function RunReport({
  view,
  chart,
  chartLoading = false,
  readOnly = false,
}: {
  view: View;
  chart: Chart | undefined;
  /** A shared page: nothing on it can be changed, not even a local choice. */
  readOnly?: boolean;
  chartLoading?: boolean;
}) {
  const result = view.result;
  if (!result) return null;
  const m = result.metrics;
  const derived = new Set<string>(result.derivedKeys);
  const failed = m.failed ?? 0;
  // Imported summaries lack some of the usual figures: a card per measured metric only.
  const cards = [...BASE_CARDS, ...OPTIONAL_CARDS].filter((k) => m[k] !== undefined);
  const isLlm = Object.keys(m).some((k) => k.startsWith("ttft_") || k.startsWith("itl_") || k === "tokens_per_s");
  const printed = result.publishedText;
  // A printed headline figure that Benchboard's own computation contradicts carries the same ⚠ as
  // the published-figures table, so the headline never tells a different story than the check.
  const disagreements = new Map(
    (view.published?.checks ?? []).flatMap((c) =>
      c.figure.kind === "value" && c.status === "mismatch"
        ? [
            [
              c.figure.metric,
              { publishedText: formatMetric(c.figure.metric, c.figure.value), detail: c.detail },
            ] as const,
          ]
        : [],
    ),
  );
  const publicationOf = (metric: string) => {
    const figure = view.published?.checks.map((c) => c.figure).find((f) => f.kind === "value" && f.metric === metric);
    return {
      date: view.published?.reference.date,
      ...(figure?.kind === "value" ? { approximate: figure.approximate, range: figure.range } : {}),
    };
  };
  const percentiles = PERCENTILE_KEYS.filter((k) => m[k] !== undefined);

  return (
    <div className="space-y-6">
      <RunNotices result={result} />

      <section className="grid grid-cols-2 gap-4 md:grid-cols-3 xl:grid-cols-6" aria-label="Summary">
        {cards.map((k) => (
          <SummaryCard
            key={k}
            metric={k}
            value={m[k]}
            derived={derived.has(k)}
            failed={failed}
            printed={printed[k]}
            publication={printed[k] !== undefined ? publicationOf(k) : undefined}
            disagreement={printed[k] ? disagreements.get(k) : undefined}
          />
        ))}
      </section>

      {isLlm && (
        <Card title="LLM latency and output">
          <LlmLatency metrics={m} tokenCount={result.tokenCount} />
        </Card>
      )}

      {m.send_lag_p50 !== undefined && (
        <Card title="Load generator (its own error)">
          <GeneratorFigures
            metrics={m}
            scheduling={result.scheduling}
            helperThreads={result.helperThreads}
            loopSlice={result.loopSlice}
            pacingThread={result.pacingThread}
            stalls={result.stalls}
          />
        </Card>
      )}

      <div className="grid gap-6 lg:grid-cols-3">
        <Card title="Thresholds" className="self-start lg:col-span-1">
          {result.verdicts.length === 0 ? (
            <p className="text-sm text-slate-500">
              No thresholds apply to this run. Set project thresholds on the Trends page.
            </p>
          ) : (
            <ul className="space-y-1.5 text-sm" aria-label="Threshold verdicts">
              {result.verdicts.map((v) => (
                <li
                  key={`${v.source}-${v.metric}-${v.op}-${v.value}`}
                  className="flex items-baseline justify-between gap-3"
                  data-status={v.status}
                  title={v.note}
                >
                  <span>
                    <span className={cx("mr-1.5 font-semibold", STATUS_STYLE[v.status])}>
                      {THRESHOLD_STATUS_TEXT[v.status]}
                    </span>
                    {metricDef(v.metric).label} {v.op} {formatMetric(v.metric, v.value)}
                  </span>
                  <span className="tabular-nums text-slate-600">
                    {v.actual === null ? "not measured" : (printed[v.metric] ?? formatMetric(v.metric, v.actual))}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Card>

        <Card title="Latency percentiles" className="lg:col-span-2">
          <div className="grid gap-4 md:grid-cols-2">
            <table className="w-full text-sm" aria-label="Latency percentiles">
              <tbody>
                {percentiles.map((key) => (
                  <tr key={key} className="border-t border-slate-100 first:border-0">
                    <th scope="row" className="py-1.5 text-left font-normal text-slate-600">
                      {metricDef(key).label}
                    </th>
                    <td className="py-1.5 text-right font-medium tabular-nums">{formatMetric(key, m[key])}</td>
                  </tr>
                ))}
                {percentiles.length === 0 && (
                  <tr>
                    <td className="py-1.5 text-slate-500">No latency recorded.</td>
                  </tr>
                )}
              </tbody>
            </table>
            <div>
              {result.latency ? (
                <>
                  <HistogramChart buckets={result.latency.buckets} formatMs={formatDurationMs} />
                  <p className="mt-1 text-xs text-slate-500">
                    {result.latency.count.toLocaleString("en-US")} samples in the merged HDR histogram; p99.99{" "}
                    {formatDurationMs(result.latency.percentiles.find((p) => p.percentile === 99.99)?.ms ?? 0)}.
                  </p>
                </>
              ) : (
                <p className="text-sm text-slate-500">
                  {view.run.source === "launched"
                    ? "No histogram: no request of this run got a response."
                    : "No histogram stored: imported runs carry percentiles only."}
                </p>
              )}
            </div>
          </div>
        </Card>
      </div>

      <Card title="Timeline">
        {chartLoading ? (
          <Skeleton className="h-48" label="Loading the timeline" />
        ) : (
          <Timeline
            metrics={chart?.metrics ?? []}
            points={chart?.points ?? []}
            intervalMs={chart?.intervalMs ?? 1000}
          />
        )}
      </Card>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card title="Stage breakdown (server timing)">
          <StageBreakdown
            stages={result.stages}
            overheadStages={view.overheadStages}
            readOnly={readOnly}
            emptyReason={
              view.run.source !== "launched"
                ? "The imported results carry no stage timings."
                : (m.success ?? 0) > 0
                  ? "The target sent no Server-Timing header."
                  : "No request got a response, so no stage was timed."
            }
          />
        </Card>
        <ResponsesCard result={result} failed={failed} />
      </div>

      {view.published && <PublishedFiguresCard published={view.published} runLabel={() => `#${view.run.number}`} />}

      <section aria-label="Derived metrics" className="text-xs text-slate-500">
        Derived metrics ({[...derived].map((k) => metricDef(k).label).join(", ") || "none for this run"}) are computed
        from the stored figures and the config snapshot, never entered; req/s per vCPU divides by the CPU limit where it
        binds, times replicas.
      </section>
    </div>
  );
}
