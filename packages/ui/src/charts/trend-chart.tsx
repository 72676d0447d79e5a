"use client";

import { CartesianGrid, ComposedChart, Legend, Line, ReferenceLine, Scatter, Tooltip, XAxis, YAxis } from "recharts";
import { valueAxis } from "./axis";
import { CHART, colorAt, TOOLTIP_STYLE } from "./palette";

export interface TrendPoint {
  /** Position in run order. */
  index: number;
  label: string;
  /** When the run ran, in epoch milliseconds: the x axis. */
  t: number;
  /** Value per branch key; null elsewhere. */
  [branch: string]: number | string | null;
}

const DAY_MS = 86_400_000;

function timeTick(span: number) {
  return (t: number) => {
    const d = new Date(t);
    if (span > 2 * DAY_MS) return d.toLocaleDateString("en-GB", { day: "numeric", month: "short" });
    return d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  };
}

/**
 * A metric over time, one line per branch, excluded runs as grey points off the lines, runs that
 * are not valid measurements as hollow amber points (a point's `invalid` value), thresholds
 * as dashed red lines and change points as labelled vertical lines at the first run of a new level.
 */
export function TrendChart({
  data,
  branches,
  format,
  thresholds,
  changePoints = [],
  height = 300,
}: {
  data: readonly TrendPoint[];
  branches: readonly { key: string; label: string }[];
  format: (value: number) => string;
  thresholds: readonly { label: string; value: number }[];
  changePoints?: readonly { t: number; label: string }[];
  height?: number;
}) {
  const times = data.map((d) => d.t);
  const span = times.length ? Math.max(...times) - Math.min(...times) : 0;
  const tick = timeTick(span);
  const axis = valueAxis(
    [
      ...data.flatMap((d) => [...branches.map((b) => d[b.key]), d.excluded, d.invalid]),
      ...thresholds.map((t) => t.value),
    ].map((v) => (typeof v === "number" ? v : null)),
    { height },
  );
  return (
    <figure aria-label="Trend">
      <ComposedChart
        responsive
        style={{ width: "100%", height }}
        data={data as TrendPoint[]}
        margin={{ top: 16, right: 24, bottom: 0, left: 0 }}
      >
        <CartesianGrid strokeDasharray="3 3" stroke={CHART.grid} />
        <XAxis
          dataKey="t"
          type="number"
          scale="time"
          domain={["dataMin", "dataMax"]}
          tickFormatter={tick}
          tick={{ fontSize: 11, fill: CHART.axis }}
          minTickGap={24}
        />
        <YAxis
          width="auto"
          tickFormatter={format}
          tick={{ fontSize: 11, fill: CHART.axis }}
          domain={axis.domain}
          ticks={axis.ticks}
          interval={0}
        />
        <Tooltip
          formatter={(v) => (typeof v === "number" ? format(v) : String(v))}
          labelFormatter={(t, payload) => {
            const point = payload?.[0]?.payload as TrendPoint | undefined;
            return `${point?.label ?? ""} · ${new Date(Number(t)).toLocaleString("en-GB")}`;
          }}
          contentStyle={TOOLTIP_STYLE}
        />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {thresholds.map((t) => (
          <ReferenceLine
            key={t.label}
            y={t.value}
            // A threshold above every value still shows: the axis grows to include it.
            ifOverflow="extendDomain"
            stroke={CHART.bad}
            strokeDasharray="6 4"
            label={{ value: t.label, position: "insideTopRight", fontSize: 11, fill: CHART.badLabel }}
          />
        ))}
        {changePoints.map((c) => (
          <ReferenceLine
            key={`${c.t}-${c.label}`}
            x={c.t}
            stroke={CHART.change}
            strokeWidth={2}
            label={{ value: c.label, position: "insideTopLeft", fontSize: 11, fill: CHART.changeLabel }}
          />
        ))}
        {branches.map((b, i) => (
          <Line
            key={b.key}
            dataKey={b.key}
            name={b.label}
            stroke={colorAt(i)}
            strokeWidth={2}
            connectNulls
            isAnimationActive={false}
            dot={{ r: 3 }}
          />
        ))}
        <Scatter dataKey="excluded" name="excluded" fill={CHART.excluded} isAnimationActive={false} />
        <Scatter
          dataKey="invalid"
          name="not a valid measurement"
          fill={CHART.surface}
          stroke={CHART.marker}
          strokeWidth={2}
          isAnimationActive={false}
        />
      </ComposedChart>
    </figure>
  );
}
