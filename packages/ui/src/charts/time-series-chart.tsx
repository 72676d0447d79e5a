"use client";

import { type KeyboardEvent, type PointerEvent, useId, useMemo, useSyncExternalStore } from "react";
import { valueAxis } from "./axis";
import { CHART, colorAt, formatElapsed, TOOLTIP_STYLE } from "./palette";
import {
  acrossPlot,
  arrowStep,
  cursorOf,
  INSET,
  nearest,
  type Point,
  pointerFraction,
  setCursor,
  timeTicks,
  VIEW_H,
  VIEW_W,
  valueAxisWidth,
} from "./plot";
import { ValueGridLines, ValueTickLabels } from "./value-axis";

export interface ChartLine {
  key: string;
  label: string;
  color?: string;
}

/**
 * Values over elapsed time, drawn as plain SVG: the server renders it whole (nothing to measure
 * first), and a page of six charts of 600 points a line costs milliseconds, not a chart library's
 * hundreds. Charts given the same `syncId` share their cursor and tooltip, so several metrics read
 * as one timeline; the arrow keys move the cursor of a focused chart.
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
  data: readonly Point[];
  lines: readonly ChartLine[];
  format: (value: number) => string;
  syncId?: string;
  height?: number;
  /** Values in bytes: ticks at round binary units. */
  binary?: boolean;
}) {
  const ownId = useId();
  const cursorId = syncId ?? ownId;
  const hovered = useSyncExternalStore(
    (listener) => {
      const c = cursorOf(cursorId);
      c.listeners.add(listener);
      return () => c.listeners.delete(listener);
    },
    () => cursorOf(cursorId).t,
    () => null,
  );

  const drawn = useMemo(() => {
    const plotHeight = height - INSET.top - INSET.bottom;
    const axis = valueAxis(
      data.flatMap((point) => lines.map((line) => point[line.key])),
      { binary, height },
    );
    const top = axis.domain[1] || 1;
    const tMin = data[0]?.t ?? 0;
    const tMax = data[data.length - 1]?.t ?? 0;
    const tSpan = tMax - tMin || 1;
    const x = (t: number) => ((t - tMin) / tSpan) * VIEW_W;
    const y = (v: number) => VIEW_H - (Math.max(0, v) / top) * VIEW_H;
    // A run of a second or two has one or two points: dots show them where a line would not.
    const fewPoints = data.length <= 3;
    const paths = lines.map((line) => {
      let d = "";
      let dots = "";
      let open = false;
      for (const point of data) {
        const v = point[line.key];
        if (typeof v !== "number" || !Number.isFinite(v) || point.t == null) {
          open = false; // a gap: the line breaks here
          continue;
        }
        const px = x(point.t).toFixed(1);
        const py = y(v).toFixed(2);
        d += `${open ? "L" : "M"}${px} ${py}`;
        // A zero-length segment with a round cap is a dot that stays round however the box stretches.
        if (fewPoints) dots += `M${px} ${py}l0 0`;
        open = true;
      }
      return { d, dots };
    });
    const labels = axis.ticks.map((v) => format(v));
    const axisWidth = valueAxisWidth(labels);
    return {
      plotHeight,
      ticks: axis.ticks.map((v, i) => ({ v, label: labels[i]!, frac: v / top })),
      times: timeTicks(tMin, tMax).map((t) => ({ t, frac: (t - tMin) / tSpan })),
      paths,
      fewPoints,
      axisWidth,
      tMin,
      tSpan,
    };
  }, [data, lines, format, binary, height]);

  const index = hovered === null || data.length === 0 ? null : nearest(data, hovered);
  const point = index === null ? null : data[index]!;
  const cursorFrac = point?.t == null ? null : (point.t - drawn.tMin) / drawn.tSpan;
  const plotLeft = drawn.axisWidth;
  const valueText = point
    ? [
        `t = ${formatElapsed(point.t ?? 0)}`,
        ...lines.map((line) => {
          const v = point[line.key];
          return `${line.label} ${typeof v === "number" ? format(v) : "no value"}`;
        }),
      ].join(", ")
    : "no point chosen";
  const across = (frac: number) => acrossPlot(frac, plotLeft, INSET.right);

  const onPointer = (event: PointerEvent<HTMLDivElement>) => {
    if (data.length === 0) return;
    const frac = pointerFraction(event, plotLeft, INSET.right);
    setCursor(cursorId, data[nearest(data, drawn.tMin + frac * drawn.tSpan)]!.t ?? null);
  };
  const onKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const next = arrowStep(event.key, index, data.length);
    if (next === null) return;
    event.preventDefault();
    setCursor(cursorId, data[next]!.t ?? null);
  };

  return (
    <figure className="min-w-0" aria-label={title}>
      <figcaption className="mb-1 text-xs font-medium text-slate-600">{title}</figcaption>
      <div
        className="relative select-none outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
        style={{ height }}
        // The cursor is a slider over the points: the arrow keys move it and it reads out the values.
        role="slider"
        aria-label={`${title}: time`}
        aria-valuemin={0}
        aria-valuemax={Math.max(0, data.length - 1)}
        aria-valuenow={index ?? 0}
        aria-valuetext={valueText}
        tabIndex={0}
        onPointerMove={onPointer}
        onPointerDown={onPointer}
        onPointerLeave={() => setCursor(cursorId, null)}
        onKeyDown={onKey}
        onBlur={() => setCursor(cursorId, null)}
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
          <g className="bb-chart-grid" stroke={CHART.grid} strokeDasharray="3 3" vectorEffect="non-scaling-stroke">
            <ValueGridLines ticks={drawn.ticks} />
            {drawn.times.map((tick) => (
              <line
                key={`x${tick.t}`}
                x1={tick.frac * VIEW_W}
                x2={tick.frac * VIEW_W}
                y1={0}
                y2={VIEW_H}
                vectorEffect="non-scaling-stroke"
              />
            ))}
          </g>
          {lines.map((line, i) => (
            <g key={line.key} stroke={line.color ?? colorAt(i)} fill="none" strokeLinecap="round">
              <path
                className="bb-chart-line"
                data-key={line.key}
                d={drawn.paths[i]!.d}
                strokeWidth={1.5}
                strokeLinejoin="round"
                vectorEffect="non-scaling-stroke"
              />
              {drawn.fewPoints && (
                <path
                  className="bb-chart-dots"
                  d={drawn.paths[i]!.dots}
                  strokeWidth={6}
                  vectorEffect="non-scaling-stroke"
                />
              )}
            </g>
          ))}
          {cursorFrac !== null && (
            <line
              className="bb-chart-cursor"
              x1={cursorFrac * VIEW_W}
              x2={cursorFrac * VIEW_W}
              y1={0}
              y2={VIEW_H}
              stroke={CHART.axis}
              vectorEffect="non-scaling-stroke"
            />
          )}
        </svg>
        <ValueTickLabels ticks={drawn.ticks} plotLeft={plotLeft} top={INSET.top} plotHeight={drawn.plotHeight} />
        {drawn.times.map((tick) => (
          <span
            key={`xl${tick.t}`}
            className="bb-chart-tick absolute -translate-x-1/2 tabular-nums"
            style={{ left: across(tick.frac), bottom: 0, fontSize: 11, color: CHART.axis }}
          >
            {formatElapsed(tick.t)}
          </span>
        ))}
        {point && cursorFrac !== null && (
          <div
            role="tooltip"
            className="bb-chart-tooltip pointer-events-none absolute z-10 whitespace-nowrap rounded border px-2 py-1 shadow-sm"
            style={{
              ...TOOLTIP_STYLE,
              top: INSET.top,
              left: across(cursorFrac),
              transform: cursorFrac > 0.6 ? "translateX(calc(-100% - 8px))" : "translateX(8px)",
            }}
          >
            <div>t = {formatElapsed(point.t ?? 0)}</div>
            {lines.map((line, i) => {
              const v = point[line.key];
              return (
                <div key={line.key} style={{ color: line.color ?? colorAt(i) }}>
                  {line.label}: {typeof v === "number" ? format(v) : "—"}
                </div>
              );
            })}
          </div>
        )}
      </div>
      {lines.length > 1 && (
        <ul className="mt-1 flex flex-wrap justify-center gap-x-3 text-xs" aria-label={`${title}: lines`}>
          {lines.map((line, i) => (
            <li key={line.key} className="flex items-center gap-1" style={{ color: line.color ?? colorAt(i) }}>
              <span aria-hidden="true" className="inline-block h-0.5 w-3" style={{ background: "currentColor" }} />
              {line.label}
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
