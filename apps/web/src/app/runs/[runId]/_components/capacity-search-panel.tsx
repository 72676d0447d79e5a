"use client";

import type { TCapacityPlateau, TCapacitySearchSummary } from "@benchboard/core";
import { Card, cx, WideTable } from "@benchboard/ui";
import { CHART, TOOLTIP_STYLE } from "@benchboard/ui/charts/palette";
import { CartesianGrid, Cell, ComposedChart, Line, ReferenceLine, Scatter, Tooltip, XAxis, YAxis } from "recharts";

const rate = (v: number | null) =>
  v === null
    ? "–"
    : v >= 100
      ? Math.round(v).toLocaleString("en-US")
      : v.toLocaleString("en-US", { maximumFractionDigits: 1 });
const ms = (v: number | null) =>
  v === null ? "–" : `${v.toLocaleString("en-US", { maximumFractionDigits: v < 10 ? 2 : 1 })} ms`;
const pct = (v: number | null) => (v === null ? "–" : `${v.toLocaleString("en-US", { maximumFractionDigits: 2 })} %`);

const VERDICT_COLOR: Record<TCapacityPlateau["verdict"], string> = {
  pass: "#059669",
  fail: "#e11d48",
  invalid: "#94a3b8",
};
const VERDICT_TEXT: Record<TCapacityPlateau["verdict"], string> = {
  pass: "meets the SLO",
  fail: "fails",
  invalid: "not a measurement",
};
const STOP_TITLE: Record<TCapacitySearchSummary["stop"]["kind"], string> = {
  "slo-broken": "SLO broken",
  saturated: "Target saturated",
  "range-max": "Reached the range's maximum",
  "generator-limit": "The load generator's limit",
  "below-range": "Fails at the range's minimum",
  canceled: "Canceled",
};

/**
 * A capacity search's answer: the sustainable rate with its bracket and agreement, why the search
 * stopped, and every plateau as evidence — on one chart of p99 against the rate offered, with the
 * SLO line and the knee, and in a table.
 */
export function CapacitySearchPanel({ search }: { search: TCapacitySearchSummary }) {
  const { bracket, confidence, stop } = search;
  const generator = stop.kind === "generator-limit";
  return (
    <Card title="Capacity search">
      <div className="space-y-4">
        <div className="flex flex-wrap items-baseline gap-x-6 gap-y-2">
          <div>
            <div className="text-xs uppercase tracking-wide text-slate-500">Sustainable rate</div>
            <div className="text-3xl font-semibold tabular-nums text-slate-900" data-testid="capacity-rate">
              {search.sustainableRps === null ? "none in range" : `${rate(search.sustainableRps)} req/s`}
            </div>
          </div>
          <div className="text-sm text-slate-600">
            SLO: p99 ≤ {ms(search.slo.p99Ms)}, errors ≤ {pct(search.slo.errorRatePct)}; achieved within 2 % of the rate
            offered · range {rate(search.range.minRate)}–{rate(search.range.maxRate)} req/s
          </div>
        </div>
        <p className="text-sm text-slate-800">{search.statement}</p>
        <div className="grid gap-3 text-sm md:grid-cols-2">
          <div
            className={cx(
              "rounded-md border px-3 py-2",
              generator ? "border-amber-300 bg-amber-50 text-amber-900" : "border-slate-200 bg-slate-50 text-slate-800",
            )}
            role="status"
          >
            <div className="font-medium">Stopped: {STOP_TITLE[stop.kind]}</div>
            <div>{stop.message}</div>
          </div>
          <div className="rounded-md border border-slate-200 bg-slate-50 px-3 py-2 text-slate-800">
            <div className="font-medium">Confidence</div>
            <div>
              Knee between {rate(bracket.lastGoodRps)} and {rate(bracket.firstBadRps)} req/s
              {confidence.bracketPct !== null
                ? ` (a ${pct(confidence.bracketPct)} bracket; resolution ${pct(search.resolutionPct)})`
                : ""}
              {" · "}
              {confidence.agreeing} of {confidence.judged} judged plateaus agree
            </div>
          </div>
        </div>
        <CapacityChart search={search} />
        <PlateauTable plateaus={search.plateaus} />
      </div>
    </Card>
  );
}

function CapacityChart({ search }: { search: TCapacitySearchSummary }) {
  const points = [...search.plateaus]
    .filter((p) => p.p99Ms !== null)
    .sort((a, b) => a.offeredRps - b.offeredRps || a.index - b.index);
  if (!points.length) return null;
  const p99s = points.map((p) => Math.max(p.p99Ms ?? 0, 0.01));
  const top = 10 ** Math.ceil(Math.log10(Math.max(search.slo.p99Ms * 1.2, ...p99s)));
  const bottom = 10 ** Math.floor(Math.log10(Math.min(search.slo.p99Ms, ...p99s)));
  const ticks: number[] = [];
  for (let t = bottom; t <= top * 1.001; t *= 10) ticks.push(t);
  const height = 280;
  return (
    <figure aria-label="p99 latency against the rate offered, per plateau">
      <ComposedChart
        responsive
        style={{ width: "100%", height }}
        data={points.map((p) => ({ ...p, p99Ms: Math.max(p.p99Ms ?? 0, 0.01) }))}
        margin={{ top: 16, right: 24, bottom: 20, left: 8 }}
      >
        <CartesianGrid strokeDasharray="3 3" stroke={CHART.grid} />
        <XAxis
          type="number"
          dataKey="offeredRps"
          domain={[0, "auto"]}
          tickFormatter={(v: number) => rate(v)}
          tick={{ fontSize: 11, fill: CHART.axis }}
          label={{
            value: "rate offered (req/s)",
            position: "insideBottom",
            offset: -10,
            fontSize: 11,
            fill: CHART.label,
          }}
        />
        <YAxis
          type="number"
          dataKey="p99Ms"
          width="auto"
          // Past the knee p99 grows by orders of magnitude: a log scale keeps the SLO line and
          // the plateaus below it readable beside them.
          scale="log"
          domain={[bottom, top]}
          ticks={ticks}
          interval={0}
          allowDataOverflow
          tickFormatter={(v: number) => ms(v)}
          tick={{ fontSize: 11, fill: CHART.axis }}
        />
        <Tooltip
          contentStyle={TOOLTIP_STYLE}
          formatter={(v, name) =>
            name === "p99Ms" && typeof v === "number" ? [ms(v), "p99"] : [String(v), String(name)]
          }
          labelFormatter={(v) => `${rate(Number(v))} req/s offered`}
        />
        <ReferenceLine
          y={search.slo.p99Ms}
          stroke={CHART.bad}
          strokeDasharray="6 4"
          label={{
            value: `SLO p99 ≤ ${ms(search.slo.p99Ms)}`,
            position: "insideTopLeft",
            fontSize: 11,
            fill: CHART.badLabel,
          }}
        />
        {search.sustainableRps !== null && (
          <ReferenceLine
            x={search.sustainableRps}
            stroke={CHART.good}
            strokeDasharray="4 3"
            label={{
              value: `knee: sustains ${rate(search.sustainableRps)}`,
              position: "insideTopRight",
              fontSize: 11,
              fill: CHART.good,
            }}
          />
        )}
        <Line dataKey="p99Ms" stroke="#94a3b8" strokeWidth={1} dot={false} isAnimationActive={false} />
        <Scatter dataKey="p99Ms" isAnimationActive={false}>
          {points.map((p) => (
            <Cell key={p.index} fill={VERDICT_COLOR[p.verdict]} />
          ))}
        </Scatter>
      </ComposedChart>
      <figcaption className="mt-1 flex flex-wrap gap-4 text-xs text-slate-600">
        {(["pass", "fail", "invalid"] as const).map((v) => (
          <span key={v} className="inline-flex items-center gap-1">
            <span className="inline-block h-2.5 w-2.5 rounded-full" style={{ background: VERDICT_COLOR[v] }} />
            {VERDICT_TEXT[v]}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

function PlateauTable({ plateaus }: { plateaus: readonly TCapacityPlateau[] }) {
  return (
    <WideTable>
      <table className="w-full text-sm" aria-label="Plateaus">
        <thead className="text-left text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th className="py-1 pr-3">#</th>
            <th className="py-1 pr-3">Phase</th>
            <th className="py-1 pr-3 text-right">Offered</th>
            <th className="py-1 pr-3 text-right">Achieved</th>
            <th className="py-1 pr-3 text-right">p50</th>
            <th className="py-1 pr-3 text-right">p99</th>
            <th className="py-1 pr-3 text-right">Errors</th>
            <th className="py-1 pr-3">Reading</th>
            <th className="py-1 pr-3">Verdict</th>
          </tr>
        </thead>
        <tbody className="tabular-nums">
          {plateaus.map((p) => (
            <tr key={p.index} className="border-t border-slate-100 align-top">
              <td className="py-1 pr-3">{p.index}</td>
              <td className="py-1 pr-3">{p.phase}</td>
              <td className="py-1 pr-3 text-right">{rate(p.offeredRps)} req/s</td>
              <td className="py-1 pr-3 text-right">{rate(p.achievedRps)} req/s</td>
              <td className="py-1 pr-3 text-right">{ms(p.p50Ms)}</td>
              <td className="py-1 pr-3 text-right">{ms(p.p99Ms)}</td>
              <td className="py-1 pr-3 text-right">{pct(p.errorRatePct)}</td>
              <td className="py-1 pr-3">{p.reading}</td>
              <td className="py-1 pr-3">
                <span style={{ color: VERDICT_COLOR[p.verdict] }} className="font-medium">
                  {VERDICT_TEXT[p.verdict]}
                </span>
                {p.reasons.length > 0 && <div className="text-xs text-slate-600">{p.reasons.join("; ")}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </WideTable>
  );
}
