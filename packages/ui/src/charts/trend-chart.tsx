"use client";

import { CartesianGrid, ComposedChart, Legend, Line, ReferenceLine, Scatter, Tooltip, XAxis, YAxis } from "recharts";
import { colorAt } from "./palette";

export interface TrendPoint {
  /** Position in run order. */
  index: number;
  label: string;
  /** Value per branch key; null elsewhere. */
  [branch: string]: number | string | null;
}

/** A metric in run order, one line per branch, excluded runs as grey points off the lines. */
export function TrendChart({
  data,
  branches,
  format,
  thresholds,
  height = 300,
}: {
  data: readonly TrendPoint[];
  branches: readonly { key: string; label: string }[];
  format: (value: number) => string;
  thresholds: readonly { label: string; value: number }[];
  height?: number;
}) {
  return (
    <figure aria-label="Trend">
      <ComposedChart
        responsive
        style={{ width: "100%", height }}
        data={data as TrendPoint[]}
        margin={{ top: 16, right: 24, bottom: 0, left: 0 }}
      >
        <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
        <XAxis dataKey="label" tick={{ fontSize: 11, fill: "#64748b" }} interval="preserveStartEnd" minTickGap={16} />
        <YAxis width="auto" tickFormatter={format} tick={{ fontSize: 11, fill: "#64748b" }} />
        <Tooltip formatter={(v) => (typeof v === "number" ? format(v) : String(v))} contentStyle={{ fontSize: 12 }} />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {thresholds.map((t) => (
          <ReferenceLine
            key={t.label}
            y={t.value}
            stroke="#dc2626"
            strokeDasharray="6 4"
            label={{ value: t.label, position: "insideTopRight", fontSize: 11, fill: "#b91c1c" }}
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
        <Scatter dataKey="excluded" name="excluded" fill="#94a3b8" isAnimationActive={false} />
      </ComposedChart>
    </figure>
  );
}
