"use client";

import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { valueAxis } from "./axis";
import { CHART, colorAt, formatElapsed, TOOLTIP_STYLE } from "./palette";

export interface ChartLine {
  key: string;
  label: string;
  color?: string;
}

/**
 * Values over elapsed time. Charts given the same `syncId` and the same points share their
 * cursor and tooltip, so several metrics read as one timeline.
 */
export function TimeSeriesChart({
  title,
  data,
  lines,
  format,
  syncId,
  height = 180,
  binary = false,
}: {
  title: string;
  data: readonly Record<string, number | null>[];
  lines: readonly ChartLine[];
  format: (value: number) => string;
  syncId?: string;
  height?: number;
  /** Values in bytes: ticks at round binary units. */
  binary?: boolean;
}) {
  const axis = valueAxis(
    data.flatMap((point) => lines.map((line) => point[line.key])),
    { binary, height },
  );
  // A run of a second or two has one or two points: dots show them where a line would not.
  const fewPoints = data.length <= 3;
  return (
    <figure className="min-w-0" aria-label={title}>
      <figcaption className="mb-1 text-xs font-medium text-slate-600">{title}</figcaption>
      <LineChart
        responsive
        style={{ width: "100%", height }}
        data={data as Record<string, number | null>[]}
        syncId={syncId}
        margin={{ top: 4, right: 12, bottom: 0, left: 0 }}
      >
        <CartesianGrid strokeDasharray="3 3" stroke={CHART.grid} />
        <XAxis
          dataKey="t"
          type="number"
          domain={["dataMin", "dataMax"]}
          allowDecimals={false}
          tickFormatter={formatElapsed}
          tick={{ fontSize: 11, fill: CHART.axis }}
        />
        <YAxis
          width="auto"
          domain={axis.domain}
          ticks={axis.ticks}
          interval={0}
          tickFormatter={format}
          tick={{ fontSize: 11, fill: CHART.axis }}
        />
        <Tooltip
          labelFormatter={(t) => `t = ${formatElapsed(Number(t))}`}
          formatter={(value) => (typeof value === "number" ? format(value) : String(value))}
          contentStyle={TOOLTIP_STYLE}
        />
        {lines.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} />}
        {lines.map((line, i) => (
          <Line
            key={line.key}
            dataKey={line.key}
            name={line.label}
            stroke={line.color ?? colorAt(i)}
            dot={fewPoints ? { r: 3 } : false}
            strokeWidth={1.5}
            isAnimationActive={false}
            connectNulls={false}
          />
        ))}
      </LineChart>
    </figure>
  );
}
