"use client";

import { formatBytes, formatDurationMs } from "@benchboard/core";
import { EmptyState } from "@benchboard/ui";
import { CHART, PALETTE } from "@benchboard/ui/charts/palette";
import { type ChartLine, TimeSeriesChart } from "@benchboard/ui/charts/time-series-chart";

type Points = readonly Record<string, number | null>[];

const count = (v: number) => v.toLocaleString("en-US", { maximumFractionDigits: 1 });

interface Panel {
  title: string;
  lines: ChartLine[];
  format: (v: number) => string;
  binary?: boolean;
}

/** `active_workers` → "Active workers": a gauge's name as a person reads it. */
export function gaugeTitle(name: string): string {
  const words = name.replace(/[_.-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function panels(metrics: readonly string[]): Panel[] {
  const has = (k: string) => metrics.includes(k);
  const out: Panel[] = [];
  if (has("rps")) out.push({ title: "Achieved rate (req/s)", lines: [{ key: "rps", label: "req/s" }], format: count });
  if (has("throughput")) {
    out.push({ title: "Throughput (msg/s)", lines: [{ key: "throughput", label: "msg/s" }], format: count });
  }
  const latency = ["latency_p50", "latency_p90", "latency_p99"].filter(has);
  if (latency.length) {
    out.push({
      // Each point is that second's own percentile (from its histogram), so a spike and its
      // recovery both show; nothing here is cumulative.
      title: "Latency percentiles (per second)",
      lines: latency.map((k, i) => ({
        key: k,
        label: k.replace("latency_", ""),
        color: [CHART.good, PALETTE[6], CHART.bad][i],
      })),
      format: formatDurationMs,
    });
  }
  for (const [prefix, title] of [
    ["ttft", "Time to first token (per second)"],
    ["itl", "Inter-token latency (per second)"],
  ] as const) {
    const keys = [`${prefix}_p50`, `${prefix}_p99`].filter(has);
    if (keys.length) {
      out.push({
        title,
        lines: keys.map((k, i) => ({ key: k, label: k.slice(prefix.length + 1), color: [CHART.good, CHART.bad][i] })),
        format: formatDurationMs,
      });
    }
  }
  if (has("errors")) {
    out.push({
      title: "Errors (per second)",
      lines: [{ key: "errors", label: "errors", color: CHART.bad }],
      format: count,
    });
  }
  if (has("mem_bytes")) {
    out.push({
      title: "Target memory",
      lines: [{ key: "mem_bytes", label: "RSS", color: PALETTE[3] }],
      format: formatBytes,
      binary: true,
    });
  }
  if (has("cpu_cores")) {
    out.push({
      title: "Target CPU (cores)",
      lines: [{ key: "cpu_cores", label: "cores", color: PALETTE[5] }],
      format: (v) => v.toFixed(2),
    });
  }
  const queues = metrics.filter((k) => k === "queue_depth" || k.startsWith("queue_depth."));
  if (queues.length) {
    out.push({
      title: "Queue depth",
      lines: queues.map((k) => ({ key: k, label: k === "queue_depth" ? "total" : k.slice("queue_depth.".length) })),
      format: count,
    });
  }
  for (const gauge of metrics.filter((k) => k.startsWith("gauge."))) {
    const name = gaugeTitle(gauge.slice(6));
    out.push({ title: `${name} (gauge)`, lines: [{ key: gauge, label: name }], format: count });
  }
  return out;
}

/** Every per-second series of a run on one shared, synchronized time axis. */
export function Timeline({
  metrics,
  points,
  intervalMs,
}: {
  metrics: readonly string[];
  points: Points;
  intervalMs: number;
}) {
  // A series whose every point is empty (a monitor that never read CPU, say) gets no chart.
  const shown = panels(metrics.filter((k) => points.some((p) => p[k] != null)));
  if (points.length === 0 || shown.length === 0) {
    return (
      <EmptyState title="No per-second series for this run">
        Imported summaries carry totals only; launched runs record achieved rate, latency and errors each second.
      </EmptyState>
    );
  }
  return (
    <div>
      <p className="mb-3 text-xs text-slate-500">
        One point per {intervalMs >= 1000 ? `${intervalMs / 1000} s` : `${intervalMs} ms`}; hover any chart to read all
        of them at that moment.
      </p>
      <div className="grid gap-4 xl:grid-cols-2">
        {shown.map((p) => (
          <TimeSeriesChart
            key={p.title}
            title={p.title}
            data={points}
            lines={p.lines}
            format={p.format}
            binary={p.binary}
            syncId="run-timeline"
          />
        ))}
      </div>
    </div>
  );
}
