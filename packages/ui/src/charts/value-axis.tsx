import { CHART } from "./palette";
import { VIEW_H, VIEW_W } from "./plot";

/** A value-axis tick: its value, its label, and its height as a share of the plot. */
export interface ValueTick {
  v: number;
  label: string;
  frac: number;
}

/** The dashed horizontal grid line of each value tick, inside a plot's stretched SVG. */
export function ValueGridLines({ ticks }: { ticks: readonly ValueTick[] }) {
  return ticks.map((tick) => (
    <line
      key={`y${tick.v}`}
      x1={0}
      x2={VIEW_W}
      y1={VIEW_H - tick.frac * VIEW_H}
      y2={VIEW_H - tick.frac * VIEW_H}
      vectorEffect="non-scaling-stroke"
    />
  ));
}

/** The value axis's labels: HTML beside the plot, right-aligned in its `plotLeft` px, each at its tick's height. */
export function ValueTickLabels({
  ticks,
  plotLeft,
  top,
  plotHeight,
}: {
  ticks: readonly ValueTick[];
  plotLeft: number;
  top: number;
  plotHeight: number;
}) {
  return ticks.map((tick) => (
    <span
      key={`yl${tick.v}`}
      className="bb-chart-tick absolute -translate-y-1/2 text-right tabular-nums"
      style={{
        left: 0,
        width: plotLeft - 6,
        top: top + (1 - tick.frac) * plotHeight,
        fontSize: 11,
        color: CHART.axis,
      }}
    >
      {tick.label}
    </span>
  ));
}
