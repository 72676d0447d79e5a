"use client";

import { metricDef } from "@benchboard/core";
import { Card } from "@benchboard/ui";
import { useState } from "react";

/**
 * "Highest rate whose p99 stays at or under X": best by a limit instead of by the metric alone
 * (which, for latency over a rate sweep, trivially picks the lowest rate). Kept in the URL.
 */
export function CapacityQuestion({
  metrics,
  current,
  objectiveText,
  onAsk,
}: {
  metrics: string[];
  current: { metric: string; below: number } | null;
  objectiveText: string;
  onAsk: (q: { metric: string; below: number } | null) => void;
}) {
  const [picked, setMetric] = useState(current?.metric ?? null);
  const [below, setBelow] = useState(current ? String(current.below) : "");
  if (metrics.length === 0) return null;
  // The form may first render before any run has finished: the choice follows the metrics measured.
  const metric =
    picked && metrics.includes(picked) ? picked : (metrics.find((k) => k === "latency_p99") ?? metrics[0]!);
  const value = Number(below);
  const valid = below.trim() !== "" && Number.isFinite(value) && value > 0;
  return (
    <Card title="Capacity question">
      <form
        className="flex flex-wrap items-end gap-3 text-sm"
        aria-label="Capacity question"
        onSubmit={(e) => {
          e.preventDefault();
          if (valid) onAsk({ metric, below: value });
        }}
      >
        <span className="pb-1.5 text-slate-600">Highest value whose</span>
        <label className="flex flex-col gap-1 text-xs text-slate-600">
          Metric
          <select
            className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
            value={metric}
            onChange={(e) => setMetric(e.target.value)}
          >
            {metrics.map((k) => (
              <option key={k} value={k}>
                {metricDef(k).label}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs text-slate-600">
          stays at or under ({metricDef(metric).unit})
          <input
            className="w-28 rounded-md border border-slate-300 px-2 py-1.5 text-sm"
            inputMode="decimal"
            value={below}
            onChange={(e) => setBelow(e.target.value)}
            aria-invalid={below !== "" && !valid}
          />
        </label>
        <button
          type="submit"
          disabled={!valid}
          className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50"
        >
          Ask
        </button>
        {current && (
          <button type="button" className="px-2 py-1.5 text-sm text-slate-600 underline" onClick={() => onAsk(null)}>
            Back to the sweep's own answer
          </button>
        )}
      </form>
      <p className="mt-2 text-xs text-slate-500">
        The best value now answers: {objectiveText}. {below !== "" && !valid && "Enter a number above 0."}
      </p>
    </Card>
  );
}
