"use client";

import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";

/** The smallest 1, 2, 2.5 or 5 × 10^k at or above `x`, so the axis ends on a round number. */
function niceCeil(x: number): number {
  if (!(x > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(x));
  const step = [1, 2, 2.5, 5, 10].find((m) => m * power >= x) ?? 10;
  return step * power;
}

export interface ValuePoint {
  /** The parameter value as shown on the axis. */
  label: string;
  value: number | null;
  best?: boolean;
  meetsTargets?: boolean | null;
  /** Some of this value's runs are not valid measurements: drawn hollow, never the best. */
  invalid?: boolean;
}

/**
 * A metric against a swept parameter, with threshold lines and the best value marked. Values
 * are categories in sweep order, so uneven steps (16, 32, …, 1000) stay readable.
 */
export function MetricByValueChart({
  title,
  data,
  format,
  thresholds,
  height = 260,
  xLabel,
}: {
  title: string;
  data: readonly ValuePoint[];
  format: (value: number) => string;
  thresholds: readonly { label: string; value: number }[];
  height?: number;
  xLabel: string;
}) {
  const values = data.flatMap((d) => (d.value === null ? [] : [d.value]));
  const top = niceCeil(Math.max(...values, ...thresholds.map((t) => t.value), 0) * 1.05);
  return (
    <figure aria-label={title}>
      <LineChart
        responsive
        style={{ width: "100%", height }}
        data={data as ValuePoint[]}
        margin={{ top: 16, right: 24, bottom: 16, left: 0 }}
      >
        <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
        <XAxis
          dataKey="label"
          tick={{ fontSize: 11, fill: "#64748b" }}
          label={{ value: xLabel, position: "insideBottom", offset: -8, fontSize: 11, fill: "#475569" }}
        />
        <YAxis
          width="auto"
          tickFormatter={format}
          tick={{ fontSize: 11, fill: "#64748b" }}
          domain={[0, top]}
          tickCount={6}
        />
        <Tooltip formatter={(v) => (typeof v === "number" ? format(v) : String(v))} contentStyle={{ fontSize: 12 }} />
        {thresholds.map((t) => (
          <ReferenceLine
            key={t.label}
            y={t.value}
            stroke="#dc2626"
            strokeDasharray="6 4"
            label={{ value: t.label, position: "insideTopRight", fontSize: 11, fill: "#b91c1c" }}
          />
        ))}
        <Line
          dataKey="value"
          name={title}
          stroke="#0284c7"
          strokeWidth={2}
          isAnimationActive={false}
          dot={(props: { cx?: number; cy?: number; payload?: ValuePoint; index?: number }) => {
            const { cx, cy, payload, index } = props;
            if (cx === undefined || cy === undefined || !payload || payload.value === null) return <g key={index} />;
            const fill = payload.best ? "#16a34a" : payload.meetsTargets === false ? "#dc2626" : "#0284c7";
            if (payload.invalid) {
              return (
                <circle
                  key={index}
                  cx={cx}
                  cy={cy}
                  r={5.5}
                  fill="white"
                  stroke="#d97706"
                  strokeWidth={2.5}
                  strokeDasharray="3 2"
                  data-invalid="true"
                >
                  <title>{`${payload.label}: not a valid measurement`}</title>
                </circle>
              );
            }
            return (
              <circle
                key={index}
                cx={cx}
                cy={cy}
                r={payload.best ? 7 : 4}
                fill={fill}
                stroke="white"
                strokeWidth={1.5}
              />
            );
          }}
        />
      </LineChart>
    </figure>
  );
}
