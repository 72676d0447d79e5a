"use client";

import type { RouterOutputs } from "@benchboard/api";
import { formatBytes, formatDurationMs } from "@benchboard/core";
import { Card } from "@benchboard/ui";
import { colorAt } from "@benchboard/ui/charts/palette";
import { TimeSeriesChart } from "@benchboard/ui/charts/time-series-chart";

type View = RouterOutputs["comparison"]["view"];

const CHARTS: { metric: string; title: string; format: (v: number) => string; binary?: boolean }[] = [
  { metric: "latency_p50", title: "Latency p50", format: formatDurationMs },
  { metric: "latency_p99", title: "Latency p99", format: formatDurationMs },
  {
    metric: "rps",
    title: "Achieved rate (req/s)",
    format: (v) => v.toLocaleString("en-US", { maximumFractionDigits: 1 }),
  },
  { metric: "mem_bytes", title: "Target memory", format: formatBytes, binary: true },
  {
    metric: "queue_depth",
    title: "Queue depth",
    format: (v) => v.toLocaleString("en-US", { maximumFractionDigits: 1 }),
  },
];

/** The runs' per-second series overlaid, one chart per metric, on a shared cursor. */
export function ComparisonCharts({ runs, charts }: { runs: View["runs"]; charts: View["charts"] }) {
  return (
    <Card title="Over time">
      {Object.keys(charts).length === 0 ? (
        <p className="text-sm text-slate-500">
          None of these runs stored per-second series (imported summaries carry totals only).
        </p>
      ) : (
        <div className="grid gap-4 xl:grid-cols-2">
          {CHARTS.filter((c) => charts[c.metric]).map((c) => (
            <TimeSeriesChart
              key={c.metric}
              title={c.title}
              data={charts[c.metric]!}
              format={c.format}
              binary={c.binary}
              lines={runs.map((run, i) => ({ key: run.id, label: run.label, color: colorAt(i) }))}
              syncId="compare"
            />
          ))}
        </div>
      )}
    </Card>
  );
}
