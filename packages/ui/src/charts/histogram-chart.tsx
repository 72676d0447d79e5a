"use client";

import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import { valueAxis } from "./axis";
import { CHART, TOOLTIP_STYLE } from "./palette";

/** Latency distribution from log-spaced buckets (upper bound in ms and count). */
export function HistogramChart({
  buckets,
  formatMs,
  height = 200,
}: {
  buckets: readonly { leMs: number; count: number }[];
  formatMs: (ms: number) => string;
  height?: number;
}) {
  const data = buckets.map((b) => ({ label: formatMs(b.leMs), count: b.count }));
  const axis = valueAxis(
    data.map((d) => d.count),
    { height },
  );
  return (
    <figure aria-label="Latency histogram">
      <BarChart
        responsive
        style={{ width: "100%", height }}
        data={data}
        margin={{ top: 4, right: 8, bottom: 0, left: 0 }}
      >
        <CartesianGrid strokeDasharray="3 3" stroke={CHART.grid} vertical={false} />
        <XAxis dataKey="label" tick={{ fontSize: 10, fill: CHART.axis }} interval="preserveStartEnd" minTickGap={24} />
        <YAxis
          width="auto"
          tick={{ fontSize: 11, fill: CHART.axis }}
          domain={axis.domain}
          ticks={axis.ticks}
          interval={0}
          tickFormatter={(v: number) => v.toLocaleString("en-US")}
        />
        <Tooltip
          labelFormatter={(label) => `≤ ${String(label)}`}
          formatter={(value) => [Number(value).toLocaleString("en-US"), "requests"]}
          contentStyle={TOOLTIP_STYLE}
        />
        <Bar dataKey="count" fill={CHART.primary} isAnimationActive={false} />
      </BarChart>
    </figure>
  );
}
