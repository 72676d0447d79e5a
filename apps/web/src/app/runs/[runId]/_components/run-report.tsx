"use client";

import type { RouterOutputs } from "@benchboard/api";
import { formatDurationMs, formatMetric, metricDef } from "@benchboard/core";
import { Card, cx, Skeleton, StatCard } from "@benchboard/ui";
import { HistogramChart } from "@benchboard/ui/charts/histogram-chart";
import { PublishedFigures } from "@benchboard/ui/published-figures";
import { StageBreakdown } from "./stage-breakdown";
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
  "target_rps",
  "throughput",
  "messages",
  "runtime_ms",
  "rps_per_vcpu",
  "gateway_overhead",
  "mem_peak_bytes",
  "mem_utilization",
  "queue_depth_peak",
  "failed_connections",
  "ttft_p50",
  "tokens_per_s",
];

function SummaryCard({
  metric,
  value,
  derived,
  failed,
}: {
  metric: string;
  value: number | undefined;
  derived: boolean;
  failed: number;
}) {
  const def = metricDef(metric);
  const text = formatMetric(metric, value);
  // A long unit (req/s/vCPU) moves under the number so the card keeps one line.
  const long = text.endsWith(` ${def.unit}`) && text.length > 11;
  const tone =
    metric === "success_rate" ? (failed ? "bad" : "good") : metric === "failed" && failed ? "bad" : "neutral";
  return (
    <StatCard
      label={def.label}
      value={long ? text.slice(0, -def.unit.length - 1) : text}
      tone={tone}
      hint={[long ? def.unit : null, derived ? "derived" : null].filter(Boolean).join(" · ") || undefined}
    />
  );
}

/**
 * A finished run's results. The same component renders the run page and a public share link,
 * so the link shows what the owner sees.
 */
export function RunReport({
  view,
  chart,
  chartLoading = false,
}: {
  view: View;
  chart: Chart | undefined;
  chartLoading?: boolean;
}) {
  const result = view.result;
  if (!result) return null;
  const m = result.metrics;
  const derived = new Set<string>(result.derivedKeys);
  const failed = m.failed ?? 0;
  // Imported summaries lack some of the usual figures: a card per measured metric only.
  const cards = [...BASE_CARDS, ...OPTIONAL_CARDS].filter((k) => m[k] !== undefined);
  const percentiles = PERCENTILE_KEYS.filter((k) => m[k] !== undefined);
  const statusCounts = Object.entries(result.statusCounts);
  const otherErrors = result.errors.filter((e) => e.kind !== "status");

  return (
    <div className="space-y-6">
      {!result.valid && (
        <div role="alert" className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          <span className="font-semibold">Not a valid measurement: </span>
          {result.invalidReasons.join("; ") || "the engine flagged this run"}
        </div>
      )}

      <section className="grid grid-cols-2 gap-4 md:grid-cols-3 xl:grid-cols-6" aria-label="Summary">
        {cards.map((k) => (
          <SummaryCard key={k} metric={k} value={m[k]} derived={derived.has(k)} failed={failed} />
        ))}
      </section>

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
                >
                  <span>
                    <span className={cx("mr-1.5 font-semibold", v.passed ? "text-emerald-700" : "text-rose-700")}>
                      {v.passed ? "pass" : "fail"}
                    </span>
                    {metricDef(v.metric).label} {v.op} {formatMetric(v.metric, v.value)}
                  </span>
                  <span className="tabular-nums text-slate-600">
                    {v.actual === null ? "not measured" : formatMetric(v.metric, v.actual)}
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
            emptyReason={
              view.run.source !== "launched"
                ? "The imported results carry no stage timings."
                : (m.success ?? 0) > 0
                  ? "The target sent no Server-Timing header."
                  : "No request got a response, so no stage was timed."
            }
          />
        </Card>
        <Card title="Responses and errors">
          {statusCounts.length === 0 && otherErrors.length === 0 ? (
            <p className="text-sm text-slate-500">
              {failed ? `${failed} failed, without a breakdown.` : "No errors recorded."}
            </p>
          ) : (
            <table className="w-full text-sm" aria-label="Status codes">
              <thead className="text-left text-xs uppercase text-slate-500">
                <tr>
                  <th className="py-1">Status or error</th>
                  <th className="py-1 text-right">Count</th>
                </tr>
              </thead>
              <tbody>
                {statusCounts.map(([code, n]) => (
                  <tr key={code} className="border-t border-slate-100">
                    <td className={cx("py-1.5", Number(code) >= 400 && "text-rose-700")}>{code}</td>
                    <td className="py-1.5 text-right tabular-nums">{n.toLocaleString("en-US")}</td>
                  </tr>
                ))}
                {otherErrors.map((e) => (
                  <tr key={`${e.kind}-${e.message}`} className="border-t border-slate-100 text-rose-700">
                    <td className="py-1.5">
                      {e.kind}
                      {e.message && `: ${e.message}`}
                    </td>
                    <td className="py-1.5 text-right tabular-nums">{e.count.toLocaleString("en-US")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>
      </div>

      {view.published && (
        <Card title="Published figures">
          <PublishedFigures
            source={view.published.reference.source}
            table={view.published.reference.table}
            checks={view.published.checks}
            runLabel={() => `#${view.run.number}`}
          />
        </Card>
      )}

      <section aria-label="Derived metrics" className="text-xs text-slate-500">
        Derived metrics ({[...derived].map((k) => metricDef(k).label).join(", ") || "none for this run"}) are computed
        from the stored figures and the config snapshot, never entered; req/s per vCPU divides by the CPU limit where it
        binds, times replicas.
      </section>
    </div>
  );
}

/** The instance config and scenario a run ran with. */
export function Snapshots({ view }: { view: View }) {
  const config = view.config;
  const knobs = (config?.knobs ?? {}) as Record<string, unknown>;
  const fields = Object.entries(config ?? {}).filter(([k, v]) => k !== "knobs" && v !== null && typeof v !== "object");
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Card title="Instance config snapshot">
        {config ? (
          <table className="w-full text-sm" aria-label="Instance config">
            <tbody>
              {fields.map(([k, v]) => (
                <tr key={k} className="border-t border-slate-100 first:border-0">
                  <th scope="row" className="py-1 text-left font-normal text-slate-600">
                    {k}
                  </th>
                  <td className="py-1 text-right font-mono text-xs">{String(v)}</td>
                </tr>
              ))}
              {Object.entries(knobs).map(([k, v]) => (
                <tr key={`knob-${k}`} className="border-t border-slate-100">
                  <th scope="row" className="py-1 text-left font-normal text-slate-600">
                    knobs.{k}
                  </th>
                  <td className="py-1 text-right font-mono text-xs">{String(v)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="text-sm text-slate-500">The run had no instance config.</p>
        )}
      </Card>
      <Card title="Scenario snapshot">
        {view.target && (
          <p className="mb-2 text-sm text-slate-600">
            Target <span className="font-medium text-slate-800">{view.target.name}</span>
            {view.target.kind && ` (${view.target.kind})`}
            {view.target.baseUrl && <span className="font-mono text-xs"> {view.target.baseUrl}</span>}
          </p>
        )}
        <pre className="max-h-80 overflow-auto rounded bg-slate-50 p-3 text-xs text-slate-700">
          {JSON.stringify(view.scenario ?? {}, null, 2)}
        </pre>
      </Card>
    </div>
  );
}
