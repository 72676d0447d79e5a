"use client";

import type { RouterOutputs } from "@benchboard/api";
import { formatDurationMs, formatMetric, metricDef, publishedHeadline, THRESHOLD_STATUS_TEXT } from "@benchboard/core";
import { Card, cx, Skeleton, StatCard } from "@benchboard/ui";
import { HistogramChart } from "@benchboard/ui/charts/histogram-chart";
import { PublishedFigures } from "@benchboard/ui/published-figures";
import { GeneratorFigures } from "./generator-figures";
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

const LLM_ROWS = [
  { prefix: "ttft", label: "Time to first token", hint: "due time → first streamed token" },
  { prefix: "itl", label: "Inter-token latency", hint: "gap between streamed tokens" },
  { prefix: "latency", label: "End-to-end", hint: "due time → last byte of the reply" },
] as const;
const LLM_STATS = ["p50", "p90", "p99"] as const;

const STATUS_STYLE = {
  pass: "text-emerald-700",
  fail: "text-rose-700",
  not_measured: "text-amber-700",
} as const;

/** Latency percentiles and output rates of an LLM run: the figures such a run is judged by. */
const TOKEN_COUNT_TEXT = {
  usage: "Output tokens are the provider's reported usage (asked for on streams with stream_options.include_usage).",
  "stream events":
    "The stream reported no usage: output tokens are counted as one per content event, which undercounts a provider that sends several tokens per event.",
  mixed:
    "Some replies reported usage and some did not: those without are counted as one token per content event, which may undercount.",
} as const;

function LlmLatency({
  metrics,
  tokenCount,
}: {
  metrics: Record<string, number>;
  tokenCount: keyof typeof TOKEN_COUNT_TEXT | null;
}) {
  const rows = LLM_ROWS.filter((r) => LLM_STATS.some((s) => metrics[`${r.prefix}_${s}`] !== undefined));
  return (
    <div className="space-y-3">
      <table className="w-full text-sm" aria-label="LLM latency">
        <thead className="text-left text-xs uppercase text-slate-500">
          <tr>
            <th className="py-1">Latency</th>
            {LLM_STATS.map((s) => (
              <th key={s} className="py-1 text-right">
                {s}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.prefix} className="border-t border-slate-100" data-llm-row={r.prefix}>
              <th scope="row" className="py-1.5 text-left font-normal text-slate-700">
                {r.label} <span className="text-xs text-slate-500">({r.hint})</span>
              </th>
              {LLM_STATS.map((s) => (
                <td key={s} className="py-1.5 text-right font-medium tabular-nums">
                  {formatMetric(`${r.prefix}_${s}`, metrics[`${r.prefix}_${s}`])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <dl className="grid grid-cols-2 gap-3 text-sm">
        {(["tokens_per_s", "tokens_per_s_total", "output_tokens"] as const).map((k) => (
          <div key={k}>
            <dt className="text-xs text-slate-500">{metricDef(k).label}</dt>
            <dd className="font-medium tabular-nums">{formatMetric(k, metrics[k])}</dd>
          </div>
        ))}
      </dl>
      <p className="text-xs text-slate-500">
        Output tokens/s per request (streaming runs only): tokens after the first content event over the time they took,
        pooled over every request (what one client sees); a reply that arrives whole has no such rate. In total: all
        output tokens over the run&apos;s runtime (what the server delivered).{" "}
        {tokenCount ? TOKEN_COUNT_TEXT[tokenCount] : ""}
      </p>
    </div>
  );
}

function SummaryCard({
  metric,
  value,
  derived,
  failed,
  printed,
  publication,
  disagreement,
}: {
  metric: string;
  value: number | undefined;
  /** The printed figure (formatted like any other) when Benchboard's own disagrees with it, and why. */
  disagreement?: { publishedText: string; detail: string | null };
  derived: boolean;
  failed: number;
  /** The figure as a document printed it: the card says so, and formats the value like any other. */
  printed?: string;
  /** The document that printed it: its date (YYYY-MM-DD) and whether the figure was approximate. */
  publication?: { date?: string; approximate?: boolean; range?: readonly [number, number] };
}) {
  const def = metricDef(metric);
  // A derived figure is Benchboard's own; a stored one of a transcribed run is the document's.
  const { text, source } = publishedHeadline(
    metric,
    value,
    printed !== undefined && !derived ? (publication ?? {}) : null,
  );
  // A long unit (req/s/vCPU) moves under the number so the card keeps one line.
  const long = text.endsWith(` ${def.unit}`) && text.length > 11;
  const tone =
    metric === "success_rate" ? (failed ? "bad" : "good") : metric === "failed" && failed ? "bad" : "neutral";
  return (
    <StatCard
      label={def.label}
      value={long ? text.slice(0, -def.unit.length - 1) : text}
      tone={tone}
      hint={
        <>
          {[long ? def.unit : null, derived ? "derived" : null, source].filter(Boolean).join(" · ") || null}
          {disagreement && (
            <span
              className="block font-medium text-amber-700"
              title={disagreement.detail ?? undefined}
              data-published-disagreement
            >
              ⚠ published {disagreement.publishedText}
            </span>
          )}
        </>
      }
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
  const statusCounts = Object.entries(result.statusCounts);
  const otherErrors = result.errors.filter((e) => e.kind !== "status");

  return (
    <div className="space-y-6">
      {result.reading === "invalid" && (
        <div role="alert" className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          <span className="font-semibold">Not a valid measurement: </span>
          {result.invalidReasons.join("; ") || "the engine flagged this run"}
        </div>
      )}

      {result.reading === "saturated" && (
        <section
          aria-label="The target at its limit"
          className="rounded-lg border border-sky-200 bg-sky-50 px-4 py-3 text-sm text-sky-900"
          data-reading="saturated"
        >
          <span className="font-semibold">
            {result.saturation ? `${result.saturation[0]!.toUpperCase()}${result.saturation.slice(1)}` : "Saturated"}:{" "}
          </span>
          {result.saturationReasons.join("; ")}. The figures are valid: they measure the target at its limit, not the
          load generator.
        </section>
      )}

      {result.contradictions.length > 0 && (
        <div role="alert" className="rounded-lg border border-rose-200 bg-rose-50 px-4 py-3 text-sm text-rose-900">
          <span className="font-semibold">Figures that contradict each other: </span>
          {result.contradictions.join(" ")}
        </div>
      )}

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
            url={view.published.reference.url}
            table={view.published.reference.table}
            date={view.published.reference.date}
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

/** The instance config, the server config in effect, the shards and the scenario a run ran with. */
export function Snapshots({ view }: { view: View }) {
  const config = view.config;
  const knobs = (config?.knobs ?? {}) as Record<string, unknown>;
  const fields = Object.entries(config ?? {}).filter(([k, v]) => k !== "knobs" && v !== null && typeof v !== "object");
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Card title="Instance config snapshot">
        {config ? (
          <KeyValues
            label="Instance config"
            rows={[...fields, ...Object.entries(knobs).map(([k, v]) => [`knobs.${k}`, v] as [string, unknown])]}
          />
        ) : (
          <p className="text-sm text-slate-500">The run had no instance config.</p>
        )}
      </Card>
      <ServerConfigCard view={view} />
      {view.shards && <ShardsCard shards={view.shards} />}
      <Card title="Scenario snapshot">
        {view.target && (
          <p className="mb-2 text-sm text-slate-600">
            Target <span className="font-medium text-slate-800">{view.target.name}</span>
            {view.target.kind && ` (${view.target.kind})`}
            {view.target.baseUrl && <span className="font-mono text-xs"> {view.target.baseUrl}</span>}
          </p>
        )}
        {view.overrides && (
          <p className="mb-2 text-sm text-slate-600">
            Launched with{" "}
            {Object.entries(view.overrides)
              .map(
                ([k, v]) =>
                  `${k === "durationS" ? "duration" : k} ${v.toLocaleString("en-US")}${k === "durationS" ? " s" : k === "rate" ? " req/s" : ""}`,
              )
              .join(", ")}{" "}
            instead of the scenario's own (the spec below is what ran).
          </p>
        )}
        <pre className="max-h-80 overflow-auto rounded bg-slate-50 p-3 text-xs text-slate-700">
          {JSON.stringify(view.scenario ?? {}, null, 2)}
        </pre>
      </Card>
    </div>
  );
}

function KeyValues({ label, rows }: { label: string; rows: [string, unknown][] }) {
  return (
    <table className="w-full text-sm" aria-label={label}>
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k} className="border-t border-slate-100 first:border-0">
            <th scope="row" className="py-1 text-left font-normal text-slate-600">
              {k}
            </th>
            <td className="py-1 text-right font-mono text-xs">
              {typeof v === "object" ? JSON.stringify(v) : String(v)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What the target's config hook reported right before load: the config the run actually ran on. */
function ServerConfigCard({ view }: { view: View }) {
  const reported = view.serverConfig;
  const unreadable = typeof reported?.unreadable === "string" ? reported.unreadable : null;
  return (
    <Card title="Server config in effect">
      {!reported ? (
        <p className="text-sm text-slate-500">
          {view.run.source === "launched"
            ? "The target has no config hook, so the config it ran with was not recorded."
            : "Not recorded for runs that were uploaded."}
        </p>
      ) : unreadable ? (
        <p className="text-sm text-amber-800">The target's config hook could not be read: {unreadable}.</p>
      ) : (
        <>
          <p className="mb-2 text-sm text-slate-600">
            {view.config
              ? "Reported by the target's config hook right before load."
              : "The run had no instance config: the target was set to its baseline, as reported by its config hook right before load."}
          </p>
          <KeyValues label="Server config in effect" rows={Object.entries(reported)} />
        </>
      )}
    </Card>
  );
}

function ShardsCard({ shards }: { shards: NonNullable<View["shards"]> }) {
  return (
    <Card title={`Shards (${shards.count})`}>
      {shards.workerLabel && (
        <p className="mb-2 text-sm text-slate-600">
          On workers labelled <span className="font-mono text-xs">{shards.workerLabel}</span>.
        </p>
      )}
      {shards.agentLabel && (
        <p className="mb-2 text-sm text-slate-600">
          On your agents labelled <span className="font-mono text-xs">{shards.agentLabel}</span>.
        </p>
      )}
      <table className="w-full text-sm" aria-label="Shards">
        <thead>
          <tr className="text-left text-xs text-slate-500">
            <th scope="col" className="py-1 font-normal">
              Shard
            </th>
            <th scope="col" className="py-1 font-normal">
              {shards.agentLabel ? "Agent" : "Worker"}
            </th>
            <th scope="col" className="py-1 font-normal">
              Share of the load
            </th>
            <th scope="col" className="py-1 font-normal">
              Status
            </th>
          </tr>
        </thead>
        <tbody>
          {shards.items.map((s) => (
            <tr key={s.index} className="border-t border-slate-100">
              <td className="py-1">{s.index + 1}</td>
              <td className="py-1 font-mono text-xs">{s.worker ?? "not picked up"}</td>
              <td className="py-1">{s.share ?? "—"}</td>
              <td className="py-1" title={s.error ?? undefined}>
                {s.status}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}
