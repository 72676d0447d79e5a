"use client";

import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { valueAxis } from "./axis";
import { CHART, TOOLTIP_STYLE } from "./palette";

export interface ValuePoint {
  /** The parameter value as shown on the axis. */
  label: string;
  value: number | null;
  best?: boolean;
  meetsTargets?: boolean | null;
  /** Some of this value's runs are not valid measurements: drawn hollow, never the best. */
  invalid?: boolean;
  /** Some of this value's runs saturated the target (still valid): drawn with a ring. */
  saturated?: boolean;
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
  markers = [],
}: {
  title: string;
  data: readonly ValuePoint[];
  format: (value: number) => string;
  thresholds: readonly { label: string; value: number }[];
  height?: number;
  xLabel: string;
  /** Vertical lines at parameter values (their axis labels), e.g. the rate a sweep sustains. */
  markers?: readonly { at: string; label: string }[];
}) {
  const values = data.flatMap((d) => (d.value === null ? [] : [d.value]));
  const axis = valueAxis([...values, ...thresholds.map((t) => t.value)], { height });
  return (
    <figure aria-label={title}>
      <LineChart
        responsive
        style={{ width: "100%", height }}
        data={data as ValuePoint[]}
        margin={{ top: 16, right: 24, bottom: 16, left: 0 }}
      >
        <CartesianGrid strokeDasharray="3 3" stroke={CHART.grid} />
        <XAxis
          dataKey="label"
          tick={{ fontSize: 11, fill: CHART.axis }}
          label={{ value: xLabel, position: "insideBottom", offset: -8, fontSize: 11, fill: CHART.label }}
        />
        <YAxis
          width="auto"
          tickFormatter={format}
          tick={{ fontSize: 11, fill: CHART.axis }}
          domain={axis.domain}
          ticks={axis.ticks}
          interval={0}
        />
        <Tooltip formatter={(v) => (typeof v === "number" ? format(v) : String(v))} contentStyle={TOOLTIP_STYLE} />
        {thresholds.map((t) => (
          <ReferenceLine
            key={t.label}
            y={t.value}
            stroke={CHART.bad}
            strokeDasharray="6 4"
            label={{ value: t.label, position: "insideTopRight", fontSize: 11, fill: CHART.badLabel }}
          />
        ))}
        {markers.map((m) => (
          <ReferenceLine
            key={`${m.at}:${m.label}`}
            x={m.at}
            stroke={CHART.good}
            strokeDasharray="4 3"
            label={{ value: m.label, position: "insideTopLeft", fontSize: 11, fill: CHART.goodLabel }}
          />
        ))}
        <Line
          dataKey="value"
          name={title}
          stroke={CHART.primary}
          strokeWidth={2}
          isAnimationActive={false}
          dot={(props: { cx?: number; cy?: number; payload?: ValuePoint; index?: number }) => {
            const { cx, cy, payload, index } = props;
            if (cx === undefined || cy === undefined || !payload || payload.value === null) return <g key={index} />;
            const fill = payload.best ? CHART.good : payload.meetsTargets === false ? CHART.bad : CHART.primary;
            if (payload.invalid) {
              return (
                <circle
                  key={index}
                  cx={cx}
                  cy={cy}
                  r={5.5}
                  fill={CHART.surface}
                  stroke={CHART.marker}
                  strokeWidth={2.5}
                  strokeDasharray="3 2"
                  data-invalid="true"
                >
                  <title>{`${payload.label}: not a valid measurement`}</title>
                </circle>
              );
            }
            if (payload.saturated) {
              return (
                <g key={index} data-saturated="true">
                  <circle cx={cx} cy={cy} r={8} fill="none" stroke={CHART.primary} strokeWidth={1.5} />
                  <circle cx={cx} cy={cy} r={4} fill={fill} stroke={CHART.surface} strokeWidth={1.5} />
                  <title>{`${payload.label}: saturated (the target was the limit; a valid measurement)`}</title>
                </g>
              );
            }
            return (
              <circle
                key={index}
                cx={cx}
                cy={cy}
                r={payload.best ? 7 : 4}
                fill={fill}
                stroke={CHART.surface}
                strokeWidth={1.5}
              />
            );
          }}
        />
      </LineChart>
    </figure>
  );
}
