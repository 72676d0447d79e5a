"use client";

import { formatMetric, metricDef } from "@benchboard/core";

const LLM_ROWS = [
  { prefix: "ttft", label: "Time to first token", hint: "due time → first streamed token" },
  { prefix: "itl", label: "Inter-token latency", hint: "gap between streamed tokens" },
  { prefix: "latency", label: "End-to-end", hint: "due time → last byte of the reply" },
] as const;
const LLM_STATS = ["p50", "p90", "p99"] as const;

/** Latency percentiles and output rates of an LLM run: the figures such a run is judged by. */
const TOKEN_COUNT_TEXT = {
  usage: "Output tokens are the provider's reported usage (asked for on streams with stream_options.include_usage).",
  "stream events":
    "The stream reported no usage: output tokens are counted as one per content event, which undercounts a provider that sends several tokens per event.",
  mixed:
    "Some replies reported usage and some did not: those without are counted as one token per content event, which may undercount.",
} as const;

export function LlmLatency({
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
