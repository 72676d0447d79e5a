import { formatDurationMs } from "@benchboard/core";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { valueAxis } from "./axis";
import { bucketLabels, HistogramChart } from "./histogram-chart";

/** 40 log-spaced buckets from 2 ms to 50 ms, most requests around 4 ms. */
const buckets = Array.from({ length: 40 }, (_, i) => {
  const leMs = 2 * (50 / 2) ** ((i + 1) / 40);
  return { leMs, count: Math.round(5_000 * Math.exp(-(((leMs - 4) / 1.5) ** 2))) + (i === 39 ? 200 : 0) };
});

const render = (props: Partial<Parameters<typeof HistogramChart>[0]> = {}) =>
  renderToString(<HistogramChart buckets={buckets} formatMs={formatDurationMs} {...props} />);

const texts = (html: string, className: string) =>
  [...html.matchAll(new RegExp(`class="${className}[^"]*"[^>]*>([^<]*)<`, "g"))].map((m) => m[1]);

describe("HistogramChart", () => {
  it("renders on the server: a labelled figure with one bar per bucket, heights in proportion to the counts", () => {
    const html = render();
    expect(html).toMatch(/^<figure[^>]*aria-label="Latency histogram"/);
    const bars = [
      ...html.matchAll(/<rect class="bb-chart-bar" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/g),
    ];
    expect(bars).toHaveLength(buckets.length);
    const top = valueAxis(
      buckets.map((b) => b.count),
      { height: 200 },
    ).domain[1];
    bars.forEach((bar, i) => {
      expect(Number(bar[4])).toBeCloseTo((buckets[i]!.count / top) * 100, 6);
      // Bars stand on the axis, in bucket order, without touching.
      expect(Number(bar[2]) + Number(bar[4])).toBeCloseTo(100, 6);
      if (i > 0) expect(Number(bar[1])).toBeGreaterThan(Number(bars[i - 1]![1]) + Number(bars[i - 1]![3]));
    });
    // No tooltip until a bucket is hovered or chosen with the keyboard.
    expect(html).not.toContain('role="tooltip"');
    expect(html).toContain('aria-valuetext="no bucket chosen"');
  });

  it("labels the value axis with the even ticks of valueAxis, every one, and grids them", () => {
    const html = render({ height: 240 });
    const ticks = valueAxis(
      buckets.map((b) => b.count),
      { height: 240 },
    ).ticks;
    const labels = texts(html, "bb-chart-tick absolute -translate-y-1/2");
    expect(labels).toEqual(ticks.map((t) => t.toLocaleString("en-US")));
    expect(labels[0]).toBe("0");
    expect(html.match(/<line /g)).toHaveLength(ticks.length);
  });

  it("labels the first and the last bucket by their bounds, and a few evenly between", () => {
    const html = render();
    const labels = texts(html, "bb-chart-tick absolute whitespace-nowrap");
    expect(labels[0]).toBe(formatDurationMs(buckets[0]!.leMs));
    expect(labels[labels.length - 1]).toBe(formatDurationMs(buckets[39]!.leMs));
    expect(labels.length).toBeGreaterThanOrEqual(3);
    expect(labels.length).toBeLessThanOrEqual(9);
  });

  it("draws nothing but its axis for no buckets", () => {
    const html = render({ buckets: [] });
    expect(html).not.toContain(`class="bb-chart-bar"`);
    expect(html).toContain('aria-valuemax="0"');
  });
});

describe("bucketLabels", () => {
  it("keeps the first and last, spreads the rest evenly, and the wide set only adds between them", () => {
    const labels = bucketLabels(40, 8);
    const always = labels.filter((l) => !l.wide).map((l) => l.index);
    const all = labels.map((l) => l.index);
    expect(always[0]).toBe(0);
    expect(always[always.length - 1]).toBe(39);
    expect(all).toEqual([...all].sort((a, b) => a - b));
    expect(all.length).toBe(always.length * 2 - 1);
    // Evenly: the gaps of the narrow set differ by at most one bucket.
    const gaps = always.slice(1).map((v, i) => v - always[i]!);
    expect(Math.max(...gaps) - Math.min(...gaps)).toBeLessThanOrEqual(1);
    // Labels that fit a 280 px plot, 8 characters of 6 px and a 16 px gap each.
    expect(always.length).toBe(Math.floor(280 / (8 * 6 + 16)));
  });

  it("labels every bucket when there are few, and one alone", () => {
    expect(bucketLabels(3, 6)).toEqual([
      { index: 0, wide: false },
      { index: 1, wide: false },
      { index: 2, wide: false },
    ]);
    expect(bucketLabels(1, 6)).toEqual([{ index: 0, wide: false }]);
    expect(bucketLabels(0, 6)).toEqual([]);
  });
});
