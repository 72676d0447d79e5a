"use client";

import { capacitySearchBounds, formatDurationMs, type TCapacitySearchSpec } from "@benchboard/core";

/**
 * What a capacity search will do, in words, before it is saved: its steps, when it bisects, what
 * a plateau must meet, and the most it can take (checked against the organization's caps).
 */
export function CapacitySearchPlan({ spec }: { spec: TCapacitySearchSpec | null }) {
  if (!spec) {
    return (
      <p className="text-sm text-slate-500 md:col-span-3">
        Complete the SLO and the rate range to see the search plan.
      </p>
    );
  }
  const bounds = capacitySearchBounds(spec);
  const n = (v: number) => v.toLocaleString("en-US", { maximumFractionDigits: 1 });
  return (
    <div
      className="rounded-md border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-900 md:col-span-3"
      role="note"
      aria-label="Capacity search plan"
    >
      Plateaus of the open model start at {n(spec.minRate)} req/s and multiply by {n(spec.stepFactor)} until one fails
      or {n(spec.maxRate)} req/s is reached, then bisect between the last good and the first bad rate until they are
      within {n(spec.resolutionPct)} %. A plateau passes when its p99 is at most {n(spec.slo.p99Ms)} ms, its errors at
      most {n(spec.slo.errorRatePct)} %, it achieves the rate within 2 % and the generator kept its schedule. At most{" "}
      {bounds.plateaus} plateaus of {n(spec.plateauS)} s (+{n(spec.warmupS)} s warm-up):{" "}
      {formatDurationMs(bounds.maxDurationS * 1000)} at worst. It runs on one worker or agent.
    </div>
  );
}
