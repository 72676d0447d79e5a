"use client";

import { type KeyboardEvent, type PointerEvent, useMemo, useState } from "react";
import { valueAxis } from "./axis";
import { CHART, TOOLTIP_STYLE } from "./palette";
import { acrossPlot, arrowStep, pointerFraction, VIEW_H, VIEW_W, valueAxisWidth } from "./plot";
import { ValueGridLines, ValueTickLabels } from "./value-axis";

/** Plot insets in pixels: the bucket labels below, a margin on the right. */
const INSET = { top: 4, right: 8, bottom: 18 } as const;
/** Each bucket's bar fills this share of its slot, leaving a gap between neighbours. */
const BAR_SHARE = 0.8;
/** Average width of a 10 px (bucket axis) character, to lay out labels without measuring. */
const BUCKET_CHAR_PX = 6;
/** Space kept between two bucket labels. */
const LABEL_GAP_PX = 16;
/** Plot width the always-shown bucket labels must fit (a phone's card); a chart 28rem wide or more (`@md`) shows about twice as many. */
const NARROW_PLOT_PX = 280;

/** Evenly spread bucket indices from the first to the last, `most` of them at most. */
function spread(count: number, most: number): number[] {
  if (most >= count) return Array.from({ length: count }, (_, i) => i);
  return Array.from({ length: most }, (_, k) => Math.round((k * (count - 1)) / (most - 1)));
}

/**
 * Which buckets get a label on the x axis: the first, the last, and evenly spread ones between —
 * as many as fit a narrow plot, and (`wide`) about twice as many where the plot is twice as wide.
 */
export function bucketLabels(count: number, longestLabel: number): { index: number; wide: boolean }[] {
  if (count === 0) return [];
  const perLabel = longestLabel * BUCKET_CHAR_PX + LABEL_GAP_PX;
  const narrow = Math.max(2, Math.floor(NARROW_PLOT_PX / perLabel));
  const always = new Set(spread(count, narrow));
  // 2n − 1 labels put one between each pair of the narrow set's when the buckets divide evenly.
  const more = spread(count, narrow * 2 - 1);
  return [...new Set([...always, ...more])].sort((a, b) => a - b).map((index) => ({ index, wide: !always.has(index) }));
}

/**
 * Latency distribution from log-spaced buckets (upper bound in ms and count), drawn as plain SVG:
 * the server renders it whole, with no chart library to load or measure first. Hovering a bar, or
 * the arrow keys on the focused chart, read out that bucket's range and count.
 */
export function HistogramChart({
  buckets,
  formatMs,
  height = 200,
}: {
  buckets: readonly { leMs: number; count: number }[];
  formatMs: (ms: number) => string;
  height?: number;
}) {
  const [active, setActive] = useState<number | null>(null);

  const drawn = useMemo(() => {
    const plotHeight = height - INSET.top - INSET.bottom;
    const axis = valueAxis(
      buckets.map((b) => b.count),
      { height },
    );
    const top = axis.domain[1] || 1;
    const slot = VIEW_W / Math.max(buckets.length, 1);
    const bars = buckets.map((b, i) => {
      const h = (Math.max(0, b.count) / top) * VIEW_H;
      return { x: i * slot + (slot * (1 - BAR_SHARE)) / 2, y: VIEW_H - h, h };
    });
    const names = buckets.map((b) => formatMs(b.leMs));
    // A bucket holds what is above the previous one's bound, up to its own.
    const ranges = names.map((name, i) => (i === 0 ? `≤ ${name}` : `${names[i - 1]} – ${name}`));
    const ticks = axis.ticks.map((v) => ({ v, label: v.toLocaleString("en-US"), frac: v / top }));
    const axisWidth = valueAxisWidth(ticks.map((t) => t.label));
    const labels = bucketLabels(buckets.length, Math.max(0, ...names.map((n) => n.length))).map((l) => ({
      ...l,
      text: names[l.index]!,
      width: names[l.index]!.length * BUCKET_CHAR_PX + 4,
      frac: (l.index + 0.5) / buckets.length,
    }));
    return { plotHeight, ticks, axisWidth, slot, bars, ranges, labels };
  }, [buckets, formatMs, height]);

  const plotLeft = drawn.axisWidth;
  const across = (frac: number) => acrossPlot(frac, plotLeft, INSET.right);
  const chosen = active === null || active >= buckets.length ? null : active;
  const chosenFrac = chosen === null ? 0 : (chosen + 0.5) / buckets.length;
  const requests = (count: number) => `${count.toLocaleString("en-US")} ${count === 1 ? "request" : "requests"}`;

  const onPointer = (event: PointerEvent<HTMLDivElement>) => {
    if (buckets.length === 0) return;
    const frac = pointerFraction(event, plotLeft, INSET.right);
    setActive(Math.min(buckets.length - 1, Math.max(0, Math.floor(frac * buckets.length))));
  };
  const onKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const next = arrowStep(event.key, chosen, buckets.length);
    if (next === null) return;
    event.preventDefault();
    setActive(next);
  };

  return (
    <figure className="min-w-0" aria-label="Latency histogram">
      <div
        className="@container relative select-none outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
        style={{ height }}
        // The chosen bucket is a slider over the buckets: the arrow keys move it and it reads out the bucket.
        role="slider"
        aria-label="Latency histogram: bucket"
        aria-valuemin={0}
        aria-valuemax={Math.max(0, buckets.length - 1)}
        aria-valuenow={chosen ?? 0}
        aria-valuetext={
          chosen === null ? "no bucket chosen" : `${drawn.ranges[chosen]}: ${requests(buckets[chosen]!.count)}`
        }
        tabIndex={0}
        onPointerMove={onPointer}
        onPointerDown={onPointer}
        onPointerLeave={() => setActive(null)}
        onKeyDown={onKey}
        onBlur={() => setActive(null)}
      >
        <svg
          className="bb-chart-plot absolute overflow-visible"
          style={{
            left: plotLeft,
            top: INSET.top,
            width: `calc(100% - ${plotLeft + INSET.right}px)`,
            height: drawn.plotHeight,
          }}
          viewBox={`0 0 ${VIEW_W} ${VIEW_H}`}
          preserveAspectRatio="none"
          aria-hidden="true"
        >
          {chosen !== null && (
            <rect
              className="bb-chart-cursor"
              x={chosen * drawn.slot}
              y={0}
              width={drawn.slot}
              height={VIEW_H}
              fill={CHART.grid}
              opacity={0.6}
            />
          )}
          <g className="bb-chart-grid" stroke={CHART.grid} strokeDasharray="3 3">
            <ValueGridLines ticks={drawn.ticks} />
          </g>
          <g className="bb-chart-bars" fill={CHART.primary}>
            {drawn.bars.map((bar, i) => (
              <rect
                // biome-ignore lint/suspicious/noArrayIndexKey: the bucket's index is its identity
                key={i}
                className="bb-chart-bar"
                x={bar.x}
                y={bar.y}
                width={drawn.slot * BAR_SHARE}
                height={bar.h}
              />
            ))}
          </g>
        </svg>
        <ValueTickLabels ticks={drawn.ticks} plotLeft={plotLeft} top={INSET.top} plotHeight={drawn.plotHeight} />
        {drawn.labels.map((label) => (
          <span
            key={`x${label.index}`}
            className={`bb-chart-tick absolute whitespace-nowrap text-center tabular-nums${label.wide ? " hidden @md:block" : ""}`}
            style={{
              // Centred under its bar, but kept inside the chart: the first and last labels move in.
              left: `clamp(${plotLeft - 2}px, ${across(label.frac)} - ${label.width / 2}px, 100% - ${label.width}px)`,
              width: label.width,
              bottom: 0,
              fontSize: 10,
              color: CHART.axis,
            }}
          >
            {label.text}
          </span>
        ))}
        {chosen !== null && (
          <div
            role="tooltip"
            className="bb-chart-tooltip pointer-events-none absolute z-10 whitespace-nowrap rounded border px-2 py-1 shadow-sm"
            style={{
              ...TOOLTIP_STYLE,
              top: INSET.top,
              left: across(chosenFrac),
              transform: chosenFrac > 0.6 ? "translateX(calc(-100% - 8px))" : "translateX(8px)",
            }}
          >
            <div>{drawn.ranges[chosen]}</div>
            <div style={{ color: CHART.primary }}>{requests(buckets[chosen]!.count)}</div>
          </div>
        )}
      </div>
    </figure>
  );
}
